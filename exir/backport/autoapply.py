"""Opt-in activation for code you do not own: with ``EXPORTPASS_FIX=1`` in the
environment, the fix is applied the moment ``executorch.exir.pass_base`` is
first imported.

The ``exportpass_fix.pth`` file this project installs runs one line at
interpreter start: it reads the variable and, only when it is ``1``, calls
``install()``, which puts a one-shot finder on ``sys.meta_path``. Nothing
imports torch or executorch at start-up.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
import warnings
from typing import Optional, Sequence

from ..shared.installed import ENV_VAR

TARGET = "executorch.exir.pass_base"


def _apply_or_warn(pass_base: types.ModuleType) -> None:
    from .replace_call import apply_to, BackportRefused

    try:
        apply_to(pass_base)
    except BackportRefused as refusal:
        warnings.warn(
            f"{ENV_VAR}=1 but the fix was not applied: {refusal}", stacklevel=2
        )


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
