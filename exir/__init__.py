"""executorch-exportpass-fix: the fix for pytorch/executorch#22309.

``pass_base.py`` and ``tests/test_pass_infra.py`` hold what this project
contributes to upstream's files of the same paths. The other modules are the
tooling around them: the patch maker (``python -m exportpass_fix patch``) and
the backport for installed wheels (``apply``, ``revert``, ``is_fixed``).
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
    # Lazy, so the EXPORTPASS_FIX start-up hook (exportpass_fix.autoapply)
    # imports nothing else of the package until executorch is imported.
    if name in _BACKPORT_NAMES:
        from . import backport

        return getattr(backport, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
