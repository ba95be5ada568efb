"""Merge one module's import block into another's, as usort would leave it.

The regression test uses module-level imports, as upstream's test file does.
Only the names upstream's file lacks are added: a name whose module upstream
already imports from joins that statement; any other gets a statement of its
own, placed where usort 1.0 sorts it (``first_party_detection = false``:
standard library, then everything else; within each, plain ``import``
statements before ``from`` imports, by module, case-insensitively). Lines are
written as black 24 writes them.
"""

import ast
import sys
from typing import Dict, List, Optional, Set, Tuple, Union

ImportStmt = Union[ast.Import, ast.ImportFrom]
Alias = Tuple[str, Optional[str]]
LINE_LENGTH = 88


class ImportMergeError(ValueError):
    """The import block cannot be merged without guessing."""


def import_block(source: str) -> Tuple[List[ImportStmt], str]:
    """The module's leading import statements, and the source after them."""
    tree = ast.parse(source)
    imports: List[ImportStmt] = []
    for node in tree.body:
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            break
        imports.append(node)
    end = imports[-1].end_lineno if imports else 0
    rest = "".join(source.splitlines(keepends=True)[end:]).lstrip("\n")
    return imports, rest


def _aliases(node: ImportStmt) -> List[Alias]:
    return [(alias.name, alias.asname) for alias in node.names]


def _alias_text(alias: Alias) -> str:
    return alias[0] if alias[1] is None else f"{alias[0]} as {alias[1]}"


def _module(node: ImportStmt) -> str:
    if isinstance(node, ast.ImportFrom):
        if node.level:
            raise ImportMergeError("relative imports are not merged")
        return node.module or ""
    return node.names[0].name


def imported_modules(source: str) -> Set[str]:
    """The modules the source's import block imports from."""
    return {
        alias.name if isinstance(node, ast.Import) else _module(node)
        for node in import_block(source)[0]
        for alias in node.names
    }


def _sort_key(node: ImportStmt) -> Tuple[int, bool, str]:
    top = _module(node).split(".")[0]
    stdlib = top in sys.stdlib_module_names
    return (0 if stdlib else 1, isinstance(node, ast.ImportFrom), _module(node).lower())


def _render(node: ImportStmt, aliases: List[Alias], multiline: bool) -> str:
    if isinstance(node, ast.Import):
        return "".join(f"import {_alias_text(a)}\n" for a in aliases)
    names = sorted(aliases, key=lambda a: (a[0].lower(), a[0]))
    head = f"from {node.module} import "
    line = head + ", ".join(_alias_text(a) for a in names)
    if not multiline and len(line) <= LINE_LENGTH:
        return line + "\n"
    return head + "(\n" + "".join(f"    {_alias_text(a)},\n" for a in names) + ")\n"


def _missing(theirs: List[ImportStmt], ours: List[ImportStmt]) -> List[ImportStmt]:
    """One statement for each of ``ours`` with the aliases ``theirs`` lacks."""
    present: Set[Tuple[str, str, Alias]] = {
        (type(n).__name__, _module(n), a) for n in theirs for a in _aliases(n)
    }
    missing: List[ImportStmt] = []
    for node in ours:
        aliases = [
            a
            for a in _aliases(node)
            if (type(node).__name__, _module(node), a) not in present
        ]
        if not aliases:
            continue
        names = [ast.alias(name=name, asname=asname) for name, asname in aliases]
        if isinstance(node, ast.ImportFrom):
            missing.append(ast.ImportFrom(module=node.module, names=names, level=0))
        else:
            missing.extend(ast.Import(names=[name]) for name in names)
    return missing


def _insertion_point(theirs: List[ImportStmt], node: ImportStmt) -> Tuple[str, int]:
    """Where a new statement goes: ("after" | "before", upstream index), or
    ("new block before" | "new block after", index) for a category upstream
    does not import from yet."""
    key = _sort_key(node)
    same = [i for i, n in enumerate(theirs) if _sort_key(n)[0] == key[0]]
    if not same:
        return ("new block before", 0) if key[0] == 0 else ("new block after", -1)
    not_after = [i for i in same if _sort_key(theirs[i]) <= key]
    return ("after", not_after[-1]) if not_after else ("before", same[0])


def merge_imports(upstream: str, ours: List[ImportStmt]) -> str:
    """``upstream`` with the names of ``ours`` that it lacks imported too."""
    theirs, _ = import_block(upstream)
    if not theirs:
        raise ImportMergeError("the file has no import block")
    grown: Dict[int, List[Alias]] = {}
    inserted: Dict[Tuple[str, int], List[str]] = {}
    for node in _missing(theirs, ours):
        same_module = [
            i
            for i, n in enumerate(theirs)
            if isinstance(node, ast.ImportFrom)
            and isinstance(n, ast.ImportFrom)
            and _module(n) == _module(node)
        ]
        if same_module:
            i = same_module[0]
            grown.setdefault(i, _aliases(theirs[i])).extend(_aliases(node))
            continue
        where, i = _insertion_point(theirs, node)
        inserted.setdefault((where, i % len(theirs)), []).append(
            _render(node, _aliases(node), multiline=False)
        )
    lines = upstream.splitlines(keepends=True)
    out: List[str] = lines[: theirs[0].lineno - 1]
    for i, node in enumerate(theirs):
        start, end = node.lineno - 1, node.end_lineno or node.lineno
        new_block = inserted.get(("new block before", i), [])
        out.extend(new_block + ["\n"] if new_block else [])
        out.extend(inserted.get(("before", i), []))
        if i in grown:
            out.append(_render(node, grown[i], multiline=end - start > 1))
        else:
            out.extend(lines[start:end])
        out.extend(inserted.get(("after", i), []))
        new_block = inserted.get(("new block after", i), [])
        out.extend(["\n"] + new_block if new_block else [])
        following = theirs[i + 1].lineno - 1 if i + 1 < len(theirs) else end
        out.extend(lines[end:following])
    out.extend(lines[theirs[-1].end_lineno or 0 :])
    return "".join(out)
