"""Job 1, the upstream patch, in three sub-jobs: ``making`` it (``patch``),
``proving`` it on a checkout (``prove``), ``judging`` fixes (``mutants``);
beside them ``cherry_pick`` and the job's commands (``cli``).

May import ``shared`` and its own sub-jobs; never ``backport`` or
``diagnosis``.
"""
