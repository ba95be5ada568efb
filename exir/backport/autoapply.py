"""Opt-in activation for code you do not own: with ``EXPORTPASS_FIX=1`` in the
environment, the fix is applied the moment ``executorch.exir.pass_base`` is
first imported.

The ``exportpass_fix.pth`` file this project installs runs one line at
interpreter start, which does nothing unless the variable is set and not
blank. For a value that says yes (1, true, yes, on, in any case, spaces
trimmed) it puts a finder of its own first on ``sys.meta_path``: a few lines
compiled with the line itself, importing no module. Importing one, even a
small one, costs each start where bytecode is not written
(``PYTHONDONTWRITEBYTECODE``) a compile, and a process's first compile also
builds the AST types, about 1 ms, more than all the rest of the hook. That
finder answers every other name at once with None; for ``pass_base`` it
imports this module and returns ``find_spec``'s answer. A value that says no
does nothing; any other value, or a ``pass_base`` loaded already, calls
``from_environment()``.

``find_spec`` wraps the loader the other finders give, until a ``pass_base``
has been loaded through it once (a failed import, or a ``find_spec`` probe,
leaves it armed). The hook's finders (the .pth's, or ``install()``'s when it
is called from Python) say so by a class attribute ``exportpass_fix_hook``:
the hook asks none of them, and adds none where one is already. They never
take themselves off ``sys.meta_path``, which another thread may be walking.
This module imports only ``os`` and ``sys``; the backport and ``warnings``
wait for a ``pass_base`` to be loaded.

The hook never breaks the import it rides on: a refusal, or an error of its
own, becomes a warning at the user's import line, or a line on stderr where
warnings are errors.
"""

import os
import sys

# shared.installed's ENV_VAR, not imported from there: its imports (pathlib,
# typing, importlib.util) would be the cost of a start with a value not yes.
ENV_VAR = "EXPORTPASS_FIX"
TARGET = "executorch.exir.pass_base"
YES = ("1", "true", "yes", "on")
NO = ("0", "false", "no", "off")
_OWN_DIR = os.path.dirname(os.path.dirname(__file__))  # exportpass_fix
PTH_NAMESPACE = "exportpass_fix.pth"  # __name__ of the .pth's finder's code
_read = False  # from_environment() has run in this process
_done = False  # a pass_base was loaded through the hook: its one shot is spent


def _is_machinery(frame: object) -> bool:
    """Frames of the import system, this package, its .pth or executorch."""
    filename = frame.f_code.co_filename  # type: ignore[attr-defined]
    executorch = sys.modules.get("executorch")
    executorch_dirs = list(getattr(executorch, "__path__", []))
    if "importlib" in filename and "_bootstrap" in filename:
        return True
    if frame.f_globals.get("__name__") == PTH_NAMESPACE:  # type: ignore[attr-defined]
        return True
    return any(filename.startswith(d) for d in [_OWN_DIR, *executorch_dirs])


def _tell(message: str) -> None:
    """A UserWarning located at the user's import; on stderr if it would raise."""
    try:
        import warnings

        frame = sys._getframe(1)
        while frame.f_back is not None and _is_machinery(frame):
            frame = frame.f_back
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


def _apply_or_warn(pass_base: object) -> None:
    try:  # the import too: nothing the hook meets may break the user's import
        from .replace_call import apply_to

        apply_to(pass_base)  # type: ignore[arg-type]
    except Exception as error:  # BackportRefused, or any error of the hook's
        detail = str(error)
        if type(error).__name__ != "BackportRefused":  # named: not imported yet
            detail = f"{type(error).__name__}: {detail}"
        _tell(f"{ENV_VAR} is set but the fix was not applied: {detail}")


class _ApplyAfterExec:
    """Runs the real loader, then applies the fix to the fresh module. A
    plain class: ``importlib.abc`` would cost start-up its imports."""

    def __init__(self, loader: object) -> None:
        self.loader = loader

    def create_module(self, spec: object) -> object:
        return self.loader.create_module(spec)  # type: ignore[attr-defined]

    def exec_module(self, module: object) -> None:
        global _done
        self.loader.exec_module(module)  # type: ignore[attr-defined]
        _done = True  # under pass_base's import lock: one thread at a time
        _apply_or_warn(module)

    def __getattr__(self, name: str) -> object:
        # get_source, get_filename, ... as the real loader has them.
        if name == "loader":  # not set yet (a copy being made)
            raise AttributeError(name)
        return getattr(self.loader, name)


def _is_hook(finder: object) -> bool:
    return getattr(type(finder), "exportpass_fix_hook", False) is True


def _spec_of_the_others(fullname: str, path: object, target: object) -> object:
    """The spec the finders other than the hook's give, its loader wrapped;
    they are asked as the import system asks them, over a copy of the list."""
    for finder in list(sys.meta_path):
        ask = getattr(finder, "find_spec", None)
        if _is_hook(finder) or ask is None:
            continue
        spec = ask(fullname, path, target)
        if spec is None:
            continue
        loader = getattr(spec, "loader", None)
        if hasattr(loader, "exec_module") and not isinstance(loader, _ApplyAfterExec):
            spec.loader = _ApplyAfterExec(loader)
        return spec
    return None


def find_spec(fullname: str, path: object = None, target: object = None) -> object:
    """The hook's answer, the .pth's finder's and ``_PassBaseFinder``'s."""
    if fullname != TARGET or _done:
        return None
    try:
        return _spec_of_the_others(fullname, path, target)
    except Exception as error:  # the import goes on without the hook
        _tell(
            f"{ENV_VAR} is set but the fix was not applied:"
            f" {type(error).__name__}: {error}"
        )
        return None


class _PassBaseFinder:
    """The hook's finder when ``install()`` is called from Python."""

    exportpass_fix_hook = True

    def find_spec(self, fullname: str, path: object = None, target: object = None):
        return find_spec(fullname, path, target)


def install() -> None:
    """Apply the fix now if pass_base is loaded, else when it is imported."""
    global _done
    if TARGET in sys.modules:
        _apply_or_warn(sys.modules[TARGET])
        return
    _done = False
    if not any(_is_hook(f) for f in sys.meta_path):
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
