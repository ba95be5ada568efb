"""Opt-in activation for code you do not own: with ``EXPORTPASS_FIX=1`` in the
environment, the fix is applied the moment ``executorch.exir.pass_base`` is
first imported.

The ``exportpass_fix.pth`` file this project installs runs one line at
interpreter start: only when the variable is set and not blank does it call
``from_environment()``, which reads the value and, when it says yes, puts a
one-shot finder on ``sys.meta_path``. Nothing imports torch or executorch at
start-up. The hook never breaks the import it rides on: a refusal, or an
error of its own, becomes a warning at the user's import line, or a line on
stderr where warnings are errors.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types
import warnings
from typing import Optional, Sequence

from ..shared.installed import ENV_VAR

TARGET = "executorch.exir.pass_base"
YES = ("1", "true", "yes", "on")
NO = ("0", "false", "no", "off")
_OWN_DIR = os.path.dirname(os.path.dirname(__file__))  # exportpass_fix
_read = False  # from_environment() has run in this process


def _is_machinery(filename: str) -> bool:
    """Frames of the import system, this package or executorch's own."""
    executorch = sys.modules.get("executorch")
    executorch_dirs = list(getattr(executorch, "__path__", []))
    if "importlib" in filename and "_bootstrap" in filename:
        return True
    return any(filename.startswith(d) for d in [_OWN_DIR, *executorch_dirs])


def _tell(message: str) -> None:
    """A UserWarning located at the user's import; on stderr if it would raise."""
    frame = sys._getframe(1)
    while frame.f_back is not None and _is_machinery(frame.f_code.co_filename):
        frame = frame.f_back
    try:
        warnings.warn_explicit(
            message,
            UserWarning,
            frame.f_code.co_filename,
            frame.f_lineno,
            module=frame.f_globals.get("__name__", "__main__"),
            registry=frame.f_globals.setdefault("__warningregistry__", {}),
            module_globals=frame.f_globals,
        )
    except Exception:  # warnings are errors here: never inside the import
        if sys.stderr is not None:
            print(f"exportpass_fix: {message}", file=sys.stderr)


def _apply_or_warn(pass_base: types.ModuleType) -> None:
    try:  # the import too: nothing the hook meets may break the user's import
        from .replace_call import apply_to

        apply_to(pass_base)
    except Exception as error:  # BackportRefused, or any error of the hook's
        detail = str(error)
        if type(error).__name__ != "BackportRefused":  # named: not imported yet
            detail = f"{type(error).__name__}: {detail}"
        _tell(f"{ENV_VAR} is set but the fix was not applied: {detail}")


class _ApplyAfterExec(importlib.abc.Loader):
    """Runs the real loader, then applies the fix to the fresh module."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(
        self, spec: importlib.machinery.ModuleSpec
    ) -> Optional[types.ModuleType]:
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self.loader.exec_module(module)
        _apply_or_warn(module)

    def __getattr__(self, name: str) -> object:
        # get_source, get_filename, ... as the real loader has them.
        return getattr(self.loader, name)


class _PassBaseFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self,
        fullname: str,
        path: Optional[Sequence[str]],
        target: Optional[types.ModuleType] = None,
    ) -> Optional[importlib.machinery.ModuleSpec]:
        if fullname != TARGET:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _ApplyAfterExec(spec.loader)
        return spec


def install() -> None:
    """Apply the fix now if pass_base is loaded, else when it is imported."""
    if TARGET in sys.modules:
        _apply_or_warn(sys.modules[TARGET])
    elif not any(isinstance(f, _PassBaseFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _PassBaseFinder())


def from_environment() -> None:
    """``install()`` when ``EXPORTPASS_FIX`` says yes (1, true, yes, on, in
    any case); a value that says neither yes nor no gets one line on stderr."""
    global _read
    if _read:  # site may run the .pth twice (a venv's lib64 -> lib link)
        return
    _read = True
    value = os.environ.get(ENV_VAR, "")
    said = value.strip().lower()
    if said in YES:
        install()
    elif said and said not in NO and sys.stderr:
        print(
            f"exportpass_fix: {ENV_VAR}={value!r} is not one of"
            f" {', '.join(YES)} (or {', '.join(NO)}): the fix is not applied",
            file=sys.stderr,
        )
