"""The patch's Buck-file hunk: one direct dep of ``pass_infra`` per module
the new tests import, found in the tree's own build files, in buildifier's
order, in ``targets.bzl`` (main's layout) or ``TARGETS`` (release/1.4's).

The trees are the installed wheel's two files plus small build files shaped
like upstream's (the wheel ships none); upstream's real ones are proven by
``prove`` on a checkout.
"""

import re
import subprocess
import sys
from pathlib import Path
from typing import Dict

import pytest
from conftest import git, git_repo

from exportpass_fix.upstream.making.buck_deps import dep_sort_key
from exportpass_fix.upstream.making.import_merge import imported_modules
from trees import wheel_texts

pytestmark = pytest.mark.once

AUTHOR = "A Person <a.person@example.org>"
OLD_DEPS = [
    "//caffe2:torch",
    "//executorch/exir:lib",
    "//executorch/exir:pass_manager",
    "//executorch/exir/passes:lib",
    "//executorch/exir/passes:pass_registry",
]
# The module each new import comes from, and the target upstream defines it in.
NEW_EVERYWHERE = {
    "executorch.exir.backend.backend_details": "//executorch/exir/backend:backend_details",
    "executorch.exir.backend.compile_spec_schema": "//executorch/exir/backend:compile_spec_schema",
    "executorch.exir.backend.partitioner": "//executorch/exir/backend:partitioner",
}
# 1.0.x's test file does not import pass_base yet.
TARGET_OF_MODULE = {
    **NEW_EVERYWHERE,
    "executorch.exir.pass_base": "//executorch/exir:pass_base",
}


def _rule(name: str, srcs: str, deps: list, indent: str = "") -> str:
    lines = [f"{indent}python_library(", f'{indent}    name = "{name}",']
    lines += [f"{indent}    srcs = [", f'{indent}        "{srcs}",', f"{indent}    ],"]
    if deps:
        lines.append(f"{indent}    deps = [")
        lines += [f'{indent}        "{dep}",' for dep in deps]
        lines.append(f"{indent}    ],")
    return "\n".join(lines + [f"{indent})", ""]) + "\n"


def _tests_build_file(indent: str) -> str:
    return _rule("pass_infra", "test_pass_infra.py", OLD_DEPS, indent) + _rule(
        "common", "test_common.py", ["//executorch/exir:common"], indent
    )


def _tree(root: Path, layout: str, drop: str = "") -> Path:
    backend = "".join(
        _rule(name, f"{name}.py", [":compile_spec_schema"] * (name != "utils"))
        for name in ("compile_spec_schema", "partitioner", "backend_details", "utils")
        if name != drop
    )
    files: Dict[str, str] = {
        **wheel_texts(),
        "exir/BUCK": _rule("lib", "__init__.py", [])
        + _rule("lowered_backend_module", "lowered_backend_module.py", [":lib"])
        + _rule("pass_base", "pass_base.py", [":lib"]),
        "exir/backend/BUCK": 'load(":targets.bzl", "define_common_targets")\n',
        "exir/backend/targets.bzl": backend,
    }
    if layout == "main":
        files["exir/tests/BUCK"] = 'load(":targets.bzl", "define_common_targets")\n'
        files["exir/tests/targets.bzl"] = (
            "def define_common_targets():\n" + _tests_build_file("    ")
        )
    else:
        files["exir/tests/BUCK"] = 'oncall("executorch")\n'
        files["exir/tests/TARGETS"] = _tests_build_file("")
    return git_repo(root, files)


def _patch(tree: Path, out: Path) -> subprocess.CompletedProcess:
    out.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "patch", "--tree", str(tree)]
        + ["-o", str(out), "--author", AUTHOR, "--closed-unmerged", "22310", "22891"],
        capture_output=True,
        text=True,
    )


def _pass_infra_deps(text: str) -> list:
    rule = text.split('name = "pass_infra"', 1)[1].split('name = "common"', 1)[0]
    return re.findall(r'"(//[^"]+)"', rule.split("deps = [", 1)[1].split("]", 1)[0])


@pytest.mark.parametrize(
    "layout, build_file",
    [("main", "exir/tests/targets.bzl"), ("release/1.4", "exir/tests/TARGETS")],
)
def test_hunk_adds_a_dep_per_new_import_in_buildifier_order(
    layout: str, build_file: str, tmp_path: Path
) -> None:
    tree = _tree(tmp_path / "et", layout)
    old_test = (tree / "exir/tests/test_pass_infra.py").read_text()

    done = _patch(tree, tmp_path / "out")

    assert done.returncode == 0, done.stderr
    applied = git(tree, "am", done.stdout.strip())
    assert applied.returncode == 0, applied.stdout + applied.stderr
    new_test = (tree / "exir/tests/test_pass_infra.py").read_text()
    new_modules = imported_modules(new_test) - imported_modules(old_test)
    expected = {TARGET_OF_MODULE[m] for m in new_modules if m.startswith("executorch.")}
    assert set(NEW_EVERYWHERE.values()) <= expected
    deps = _pass_infra_deps((tree / build_file).read_text())
    assert set(deps) == set(OLD_DEPS) | expected
    assert deps == sorted(deps, key=dep_sort_key)
    assert deps[:3] == [
        "//caffe2:torch",
        "//executorch/exir:lib",
        "//executorch/exir:pass_manager",
    ]
    changed = git(tree, "diff", "--name-only", "HEAD~1", "HEAD").stdout.split()
    assert sorted(changed) == sorted(
        [build_file, "exir/pass_base.py", "exir/tests/test_pass_infra.py"]
    )
    # Only the pass_infra target changed, only by added lines.
    diff = git(tree, "diff", "-U0", "HEAD~1", "HEAD", "--", build_file).stdout
    added = [line[1:] for line in diff.splitlines() if line.startswith("+")][1:]
    removed = [line for line in diff.splitlines() if line.startswith("-")][1:]
    assert removed == [] and len(added) == len(expected)


@pytest.mark.parametrize(
    "case, message",
    [
        ("undefined target", "lists the source of executorch.exir.backend.partitioner"),
        ("no pass_infra", "no pass_infra target in exir/tests"),
    ],
)
def test_a_tree_whose_build_files_lack_a_target_is_refused(
    case: str, message: str, tmp_path: Path
) -> None:
    if case == "undefined target":
        tree = _tree(tmp_path / "et", "main", drop="partitioner")
    else:
        tree = _tree(tmp_path / "et", "main")
        bzl = tree / "exir/tests/targets.bzl"
        bzl.write_text(bzl.read_text().replace('"pass_infra"', '"other"'))
    out = tmp_path / "out"

    done = _patch(tree, out)

    assert done.returncode == 2, done.stdout + done.stderr
    (refusal,) = done.stderr.strip().splitlines()
    assert message in refusal
    assert list(out.iterdir()) == []


def test_sort_key_is_buildifiers() -> None:
    labels = [
        "//executorch/exir/passes:lib",
        "fbsource//third-party:x",
        ":local",
        "//executorch/exir:pass_manager",
        "//caffe2:torch",
        "@repo//a:b",
        "//executorch/exir:lib",
    ]
    assert sorted(labels, key=dep_sort_key) == [
        "fbsource//third-party:x",
        ":local",
        "//caffe2:torch",
        "//executorch/exir:lib",
        "//executorch/exir:pass_manager",
        "//executorch/exir/passes:lib",
        "@repo//a:b",
    ]
