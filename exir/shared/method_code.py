"""Compile one method's source text in a module's namespace.

The backport installs the fixed ``call`` this way on the running ExecuTorch,
and ``mutants`` runs its witnesses under each variant of ``call``: the names
in the text resolve exactly as they would in that module's own source.
"""

import types
from typing import Callable


def compiled_method(
    module: types.ModuleType,
    class_name: str,
    text: str,
    filename: str,
    first_line: int = 2,
) -> Callable[..., object]:
    """The function that ``text`` (a method, indented as in its class)
    defines, compiled so that its first line is line ``first_line`` of
    ``filename`` (tracebacks and ``inspect`` then point at the right lines)."""
    padded = "\n" * (first_line - 2) + f"class {class_name}:\n" + text
    namespace: dict = {}
    exec(compile(padded, filename, "exec"), vars(module), namespace)
    (name,) = [n for n, v in vars(namespace[class_name]).items() if callable(v)]
    method = vars(namespace[class_name])[name]
    method.__qualname__ = f"{class_name}.{name}"
    return method
