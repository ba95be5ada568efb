"""The user's code, run as ``check`` runs it: their module imported and
their ``build`` called, each refused in one line (``BadModel``) whatever it
does instead of returning.

While it runs, ``sys.argv`` is the module's name alone (the worker's own
arguments are not theirs to parse: ``argparse`` at import sees none), the
current directory is first on ``sys.path``, and what it prints goes to
stderr or to the caller's ``echo`` (stdout carries the worker's records). A
``SystemExit`` (``sys.exit``, ``argparse``'s error) is named with its status
and the last line the code printed; an exception with its type and first
line. ``call_into`` reads their source, running nothing.
"""

import ast
import contextlib
import importlib
import inspect
import io
import os
import sys
from pathlib import Path
from typing import Callable, List, Optional, TextIO, TypeVar

from .pt2_file import BadModel

T = TypeVar("T")


class _Tail(io.TextIOBase):
    """Writes through to ``target``, keeping the last lines written."""

    def __init__(self, target: io.TextIOBase) -> None:
        self.target, self.text = target, ""

    def write(self, text: str) -> int:
        self.target.write(text)
        self.text = (self.text + text)[-4000:]
        return len(text)

    def flush(self) -> None:
        self.target.flush()

    def last_line(self) -> str:
        lines = [line.strip() for line in self.text.splitlines() if line.strip()]
        return lines[-1] if lines else ""


def first_line(error: BaseException) -> str:
    """``Type: first line of its message`` (or the type alone)."""
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__


def run_users_code(
    what: str, action: Callable[[], T], argv0: str, echo: Optional[TextIO] = None
) -> T:
    """``action()``, the user's code, what it prints written to ``echo``
    (default: stderr); ``BadModel`` naming ``what`` if it exits or raises
    (an ``ImportError`` of the import itself says so)."""
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [argv0]
    sys.path.insert(0, os.getcwd())
    tail = _Tail(echo or sys.stderr)  # type: ignore[arg-type]
    try:
        with contextlib.redirect_stdout(tail), contextlib.redirect_stderr(tail):
            return action()
    except SystemExit as exit:
        code = exit.code
        status = 0 if code is None else code if isinstance(code, int) else 1
        said = tail.last_line() or (code if isinstance(code, str) else "")
        raise BadModel(
            f"{what} exited with status {status} (SystemExit)"
            + (f": {said}" if said else "")
        ) from None
    except ImportError as error:
        name = error.name or ""
        if what.startswith("importing") and f"{argv0}.".startswith(f"{name}."):
            raise BadModel(f"cannot import {argv0!r}: {error}") from None
        raise BadModel(f"{what} raised {first_line(error)}") from None
    except Exception as error:
        raise BadModel(f"{what} raised {first_line(error)}") from None
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path


def import_users_module(name: str, echo: Optional[TextIO] = None) -> object:
    return run_users_code(
        f"importing {name!r}", lambda: importlib.import_module(name), name, echo
    )


def required_parameters(function: object) -> List[str]:
    """The parameters ``function`` cannot be called without."""
    try:
        signature = inspect.signature(function)  # type: ignore[arg-type]
    except (TypeError, ValueError):  # no signature to read: call it
        return []
    return [
        name
        for name, parameter in signature.parameters.items()
        if parameter.default is parameter.empty
        and parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
    ]


def call_into(file: str, line: int) -> Optional[str]:
    """The function or method defined in ``file`` that ``line`` calls, if
    any: torch records the frames of modules' ``forward`` only, so the ops
    of a helper that ``forward`` calls carry the line of that call."""
    try:
        tree = ast.parse(Path(file).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        func = call.func
        on_self = (
            isinstance(func, ast.Attribute) and getattr(func.value, "id", "") == "self"
        )
        name = func.attr if on_self else getattr(func, "id", None)
        if call.lineno == line and name in defined - {"forward"}:
            return name
    return None
