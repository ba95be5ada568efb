"""Locate classes and methods in Python source by line span, with ``ast``.

The patch maker and the backport both work on source text: they find
``_ExportPassBase.call`` in upstream's file and in this project's, and the
test class in this project's test file, by the lines ``ast`` reports.
"""

import ast
import hashlib
from dataclasses import dataclass
from typing import List, Optional, Union


@dataclass(frozen=True)
class Span:
    """Lines ``start`` to ``end`` (1-based, inclusive) of ``lines``."""

    lines: List[str]
    start: int
    end: int

    @property
    def text(self) -> str:
        return "".join(self.lines[self.start - 1 : self.end])

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def replaced_by(self, text: str) -> str:
        """The whole source, with these lines replaced by ``text``."""
        return (
            "".join(self.lines[: self.start - 1])
            + text
            + "".join(self.lines[self.end :])
        )


def _class_node(tree: ast.Module, class_name: str) -> Optional[ast.ClassDef]:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return node
    return None


def _span(source: str, node: Union[ast.ClassDef, ast.FunctionDef]) -> Span:
    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return Span(source.splitlines(keepends=True), start, node.end_lineno or start)


def class_span(source: str, class_name: str) -> Optional[Span]:
    """The lines of top-level class ``class_name``, decorators included."""
    node = _class_node(ast.parse(source), class_name)
    return None if node is None else _span(source, node)


def method_span(source: str, class_name: str, method_name: str) -> Optional[Span]:
    """The lines of ``class_name.method_name``, decorators included."""
    node = _class_node(ast.parse(source), class_name)
    if node is None:
        return None
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == method_name:
            return _span(source, item)
    return None
