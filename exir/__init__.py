"""executorch-exportpass-fix: the fix for pytorch/executorch#22309.

``pass_base.py`` and ``tests/test_pass_infra.py`` hold what this project
contributes to upstream's files of the same paths. The tooling around them
serves three jobs, a folder each: ``upstream`` (the patch and its proof),
``backport`` (the fix on the installed wheel), ``diagnosis`` (is #22309 what
blocks a user's export); ``shared`` holds what more than one job needs.
Importing this package imports neither torch nor executorch.
"""

_BACKPORT_NAMES = (
    "applied",
    "apply",
    "BackportRefused",
    "installed_version",
    "is_fixed",
    "revert",
)
__all__ = list(_BACKPORT_NAMES)


def __getattr__(name: str) -> object:
    # Lazy, so the EXPORTPASS_FIX start-up hook (exportpass_fix.backport.autoapply)
    # imports nothing else of the package until executorch is imported.
    if name in _BACKPORT_NAMES:
        from .backport import replace_call

        return getattr(replace_call, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
