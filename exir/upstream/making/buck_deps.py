"""The Buck deps of the new tests: each module the patch newly imports into
``exir/tests/test_pass_infra.py`` becomes a direct dep of the ``pass_infra``
``python_unittest``, as upstream lists direct deps.

The target is found in the tree it is given: ``exir/tests/targets.bzl`` on
main, ``exir/tests/TARGETS`` on release/1.4. Each dep is the rule of the
module's own package whose ``srcs`` list the module's file, so a dep is only
ever added when the tree defines it. An installed package has no build files
at all: then there is nothing to edit (``None``).
"""

import re
import sys
from pathlib import Path
from typing import List, Optional, Tuple

from .import_merge import imported_modules

BUILD_FILES = ("BUCK", "TARGETS", "targets.bzl")
TEST_TARGET = "pass_infra"
TORCH_TARGET = "//caffe2:torch"
_NAME = re.compile(r'\bname\s*=\s*"([^"]+)"')
_LIST = re.compile(r"\[([^\]]*)\]")


class BuckDepsError(ValueError):
    """The tree's build files do not define what the new tests need."""


def build_files(tree: Path, package: str) -> List[Path]:
    return [
        tree / package / name
        for name in BUILD_FILES
        if (tree / package / name).is_file()
    ]


def has_build_files(tree: Path) -> bool:
    return any(
        next((tree / "exir").rglob(name), None) is not None for name in BUILD_FILES
    )


def _rules(text: str) -> List[Tuple[str, int, int]]:
    """(name, start, end) of each rule's text, from its ``name =`` to the next."""
    names = list(_NAME.finditer(text))
    ends = [m.start() for m in names[1:]] + [len(text)]
    return [(m.group(1), m.start(), end) for m, end in zip(names, ends)]


def _string_list(rule: str, attribute: str) -> Optional[re.Match]:
    found = re.search(rf"\b{attribute}\s*=\s*", rule)
    return _LIST.match(rule, found.end()) if found else None


def _target_of(tree: Path, module: str) -> Optional[str]:
    if module == "torch" or module.startswith("torch."):
        return TORCH_TARGET
    top = module.split(".")[0]
    if top in sys.stdlib_module_names:
        return None
    if top != "executorch":
        raise BuckDepsError(f"no Buck target is known for the module {module}")
    parts = module.split(".")[1:]
    candidates = [("/".join(parts[:-1]), parts[-1] + ".py")] if parts else []
    candidates.append(("/".join(parts), "__init__.py"))
    for package, source in candidates:
        for path in build_files(tree, package):
            text = path.read_text(encoding="utf-8")
            for name, start, end in _rules(text):
                srcs = _string_list(text[start:end], "srcs")
                if srcs and f'"{source}"' in srcs.group(1):
                    return f"//executorch/{package}:{name}"
    raise BuckDepsError(
        f"{tree}: no rule in {'/'.join(parts[:-1]) or '.'}'s"
        f" {'/'.join(BUILD_FILES)} lists the source of {module} in its srcs"
    )


def dep_sort_key(label: str) -> Tuple[int, List[str]]:
    """buildifier's order: plain, ``:local``, ``//absolute``, ``@repo``
    labels, then by the parts split at ``.`` and ``:``."""
    phase = (
        3
        if label.startswith("@")
        else 2 if label.startswith("//") else 1 if label.startswith(":") else 0
    )
    return phase, re.split(r"[.:]", label)


def _test_rule(tree: Path) -> Tuple[Path, str, int, int]:
    for path in build_files(tree, "exir/tests"):
        text = path.read_text(encoding="utf-8")
        for name, start, end in _rules(text):
            if name == TEST_TARGET:
                return path, text, start, end
    raise BuckDepsError(
        f"{tree}: no {TEST_TARGET} target in exir/tests/{{{','.join(BUILD_FILES)}}}"
    )


def with_test_deps(
    tree: Path, old_test: str, new_test: str
) -> Optional[Tuple[str, str, str]]:
    """(relative path, old text, new text) of the build file that defines
    ``pass_infra``, with a dep for each module ``new_test`` imports and
    ``old_test`` does not; ``None`` for a tree without build files."""
    if not has_build_files(tree):
        return None
    modules = sorted(imported_modules(new_test) - imported_modules(old_test))
    wanted = {target for module in modules if (target := _target_of(tree, module))}
    path, text, start, end = _test_rule(tree)
    deps = _string_list(text[start:end], "deps")
    if deps is None or "\n" not in deps.group(1):
        raise BuckDepsError(
            f"{path}: the {TEST_TARGET} target has no deps list of one dep per line"
        )
    lines = deps.group(1).splitlines(keepends=True)
    items = [
        (line.strip().rstrip(",").strip('"'), line) for line in lines if line.strip()
    ]
    indent = re.match(r"\s*", items[0][1]).group(0) if items else "    "
    for label in sorted(wanted - {have for have, _ in items}, key=dep_sort_key):
        at = next(
            (
                i
                for i, (have, _) in enumerate(items)
                if dep_sort_key(have) > dep_sort_key(label)
            ),
            len(items),
        )
        items.insert(at, (label, f'{indent}"{label}",\n'))
    closing = lines[-1] if lines and not lines[-1].strip() else ""
    body = "\n" + "".join(line for _, line in items) + closing
    list_start = start + deps.start(1)
    new = text[:list_start] + body + text[start + deps.end(1) :]
    return str(path.relative_to(tree)), text, new
