"""Job 2, the backport: the same fix installed on the ExecuTorch in this
environment (``replace_call``: ``apply``, ``revert``, ``applied``,
``is_fixed``), and the opt-in ``EXPORTPASS_FIX=1`` start-up hook
(``autoapply``, run by the installed ``exportpass_fix.pth``).

May import ``shared``; never ``upstream`` or ``diagnosis``. Importing it
imports neither torch nor executorch.
"""
