"""executorch-exportpass-fix: the fix for pytorch/executorch#22309.

The backport, for the ExecuTorch installed here (1.0.0 to 1.5.1):

- ``apply()``: install the fixed ``_ExportPassBase.call`` until ``revert()``;
  returns "applied", "already applied", "fixed upstream" or "already fixed
  (earlier version of this fix)".
- ``revert()``: undo ``apply()``; True only when the original is back.
- ``applied()``: the fix for a ``with`` block; blocks nest and overlap across
  threads, and the fix stays until the last one exits.
- ``is_fixed()``: whether this process has the fix, by behaviour.
- ``BackportRefused``: raised, changing nothing, for a ``call`` that is
  neither known nor behaves fixed. ``installed_version()``: ExecuTorch's.

Or run a script with ``EXPORTPASS_FIX=1``. ``pass_base.py`` and
``tests/test_pass_infra.py`` hold what this project contributes upstream;
``python -m exportpass_fix --help`` lists the commands. Importing this
package imports neither torch nor executorch.
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


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))
