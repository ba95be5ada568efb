"""Compile one method's source text in a module's namespace.

The backport installs the fixed ``call`` this way on the running ExecuTorch,
as the kill table (test/upstream/judging/) installs each variant of it: the
names in the text resolve exactly as they would in that module's own source.
``method_code`` only compiles, executing nothing: the backport uses it to
check that a source file still holds the code a function runs.
"""

import types
from typing import Callable, Optional


def _padded(class_name: str, text: str, first_line: int) -> str:
    return "\n" * (first_line - 2) + f"class {class_name}:\n" + text


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
    padded = _padded(class_name, text, first_line)
    namespace: dict = {}
    exec(compile(padded, filename, "exec"), vars(module), namespace)
    (name,) = [n for n, v in vars(namespace[class_name]).items() if callable(v)]
    method = vars(namespace[class_name])[name]
    method.__qualname__ = f"{class_name}.{name}"
    return method


def _code_constants(code: types.CodeType, name: str) -> list:
    return [
        c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == name
    ]


def method_code(
    class_name: str, text: str, filename: str, first_line: int, method_name: str
) -> Optional[types.CodeType]:
    """The code object that ``compiled_method`` would give ``method_name``,
    or None when ``text`` does not compile to exactly one such method."""
    try:
        module_code = compile(_padded(class_name, text, first_line), filename, "exec")
    except (SyntaxError, ValueError):
        return None
    bodies = _code_constants(module_code, class_name)
    methods = _code_constants(bodies[0], method_name) if len(bodies) == 1 else []
    return methods[0] if len(methods) == 1 else None
