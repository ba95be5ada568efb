"""Job 1, the upstream patch and its proof: ``patch`` splices the fix and the
tests into an ExecuTorch tree, with the tests' Buck deps and a PR body that
stands alone upstream (``patch``, ``import_merge``, ``buck_deps``,
``mail_patch``, ``pr_description``, ``evidence``); ``prove`` applies it to a
checkout's refs and runs the tests, upstream's linters and mypy and the
``exir/tests`` differential (``prove``, ``checkout``, ``trees``,
``static_checks``, ``differential``); ``cherry-pick`` writes the release
tracker's request (``cherry_pick``).

May import ``shared``; never ``backport`` or ``diagnosis``.
"""
