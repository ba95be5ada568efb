"""Job 1, the upstream patch, in two sub-jobs: ``making`` it (``patch``) and
``proving`` it on a checkout (``prove``); beside them ``cherry_pick`` and
the job's commands (``cli``). Which fixes are wrong is judged by test data
outside the package (test/upstream/judging/).

May import ``shared``, its own sub-jobs and ``survey`` (the counts
``cherry_pick`` cites); never ``backport`` or ``diagnosis``.
"""
