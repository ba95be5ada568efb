"""Job 3, the diagnosis, in two sub-jobs over the built-in ``models``:
``checking`` a user's model (``check``), and ``evidence`` (``matrix``,
``releases``); the job's commands are in ``cli``.

May import ``shared``, ``backport`` (its fixed column applies the backport)
and its own sub-jobs; never ``upstream``.
"""
