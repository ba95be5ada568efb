"""Making the patch: the fix and the tests spliced into an ExecuTorch tree
(``patch``, ``tests_only``, ``import_merge``, ``buck_deps``), mailed
(``mail_patch``) with its body (``pr_description``, ``evidence``); and a
tree linked over the installed package with pytest run in it (``trees``).

May import ``shared``; never the other sub-jobs.
"""
