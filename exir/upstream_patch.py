"""Turn this project's exir/ contribution into a ``git am``-ready patch.

The fix (``exir/pass_base.py``) and its regression test
(``exir/tests/test_pass_infra.py``) live in this package at the paths they
patch upstream. ``make_patch`` splices them into the matching files of an
ExecuTorch tree (a checkout's root or an installed ``executorch`` package)
and writes the difference as one mail-formatted patch.
"""

import ast
import difflib
import email.utils
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

from .known_calls import UNFIXED_CALL_SHA256
from .source_spans import class_span, method_span, Span

PASS_BASE = "exir/pass_base.py"
TEST_PASS_INFRA = "exir/tests/test_pass_infra.py"
PATCHED_CLASS = "_ExportPassBase"
PATCHED_METHOD = "call"
TEST_CLASS = "TestExportPassFakeModeOfConstantInputs"

PACKAGE_DIR = Path(__file__).resolve().parent
FIX_FILE = PACKAGE_DIR / "pass_base.py"
TEST_FILE = PACKAGE_DIR / "tests" / "test_pass_infra.py"

SUBJECT = "Reuse the graph's fake mode when every ExportPass input is a constant"
DEFAULT_AUTHOR = "executorch-exportpass-fix <exportpass-fix@users.noreply.github.com>"

BODY = """\
### Summary

Fixes #22309.

`_ExportPassBase.call` picks the `FakeTensorMode` to retrace under by
scanning `self.inputs()` for a `FakeTensor`. `inputs()` unwraps a
constant-carrying FakeTensor to its real `.constant` tensor, so a graph whose
placeholders are all lifted constants yields no FakeTensor: a brand-new mode
is opened, the retraced nodes land in it, and the placeholders keep the
graph's original mode. `detect_fake_mode()` then asserts on the mixed graph,
and because the assertion escapes the pass manager the whole lowering aborts
with a message that names an unrelated pass (`FuseBatchNormPass` on Vulkan).
Partitioners make exactly such graphs: an input-independent subgraph, e.g. a
sine positional embedding (RF-DETR, DETR, DINOv2), split into its own
submodule.

When no input is a FakeTensor, `call` now takes the mode from the
placeholders' own `meta["val"]`, before constants are unwrapped. Nothing
else changes: graphs with a FakeTensor input pick their mode as before,
graphs with no fake tensor at all still get a fresh
`FakeTensorMode(allow_non_fake_inputs=True)` with a `nullcontext()`
dispatcher, placeholders of two modes still raise "Multiple fake tensor mode
detected.", and `inputs()` keeps unwrapping constants for constant
propagation and `lift_fresh_copy` retracing.

The diagnosis follows #22310 (@msluszniak, who reported #22309) and #22891
(@psiddh, DINOv2 on WebGPU); this change keeps their approach to the
smallest diff in `call` and adds the issue's repro to `test_pass_infra.py`,
which open-source CI runs (`test_passes.py` is ignored by `pytest.ini`).

### Test plan

```
python -m pytest exir/tests/test_pass_infra.py -k TestExportPassFakeModeOfConstantInputs
python -m pytest exir/tests/test_pass_infra.py
lintrunner exir/pass_base.py exir/tests/test_pass_infra.py
```

Without the `exir/pass_base.py` change,
`test_constant_only_inputs_keep_the_graph_fake_mode` fails ("ExportPass
retraced a constant-only graph under a new FakeTensorMode") and
`test_constant_inputs_of_two_fake_modes_are_rejected` fails (no error
raised); with it, all four new tests and the rest of the file pass on main
and on release/1.4. The issue's reduced model (arange -> pow -> add) now
lowers through `VulkanPartitioner` and `XnnpackPartitioner`.

Release notes: exir
"""


class PatchRefused(Exception):
    """The tree or the output directory does not fit; nothing was written."""


@dataclass(frozen=True)
class FileChange:
    path: str
    old: str
    new: str


def _read_tree_file(tree: Path, relative: str) -> str:
    path = tree / relative
    if not path.is_file():
        raise PatchRefused(
            f"{tree} is not an ExecuTorch tree: {relative} is missing"
            " (pass --tree a checkout's root or an installed executorch"
            " package directory)"
        )
    try:
        text = path.read_text(encoding="utf-8")
        compile(text, str(path), "exec", flags=ast.PyCF_ONLY_AST)
    except (SyntaxError, ValueError) as error:  # UnicodeDecodeError too
        raise PatchRefused(f"{path} is not readable Python source: {error}") from None
    return text


def fixed_call_span() -> Span:
    """Where the fixed method stands in this package's pass_base.py."""
    span = method_span(
        FIX_FILE.read_text(encoding="utf-8"), PATCHED_CLASS, PATCHED_METHOD
    )
    assert span is not None, f"{FIX_FILE} lost {PATCHED_CLASS}.{PATCHED_METHOD}"
    return span


def fixed_call_text() -> str:
    return fixed_call_span().text


def regression_test_text() -> str:
    span = class_span(TEST_FILE.read_text(encoding="utf-8"), TEST_CLASS)
    assert span is not None, f"{TEST_FILE} lost {TEST_CLASS}"
    return span.text


def splice_pass_base(upstream: str, where: str) -> str:
    """``upstream`` with its ``_ExportPassBase.call`` replaced by the fix."""
    span = method_span(upstream, PATCHED_CLASS, PATCHED_METHOD)
    if span is None:
        raise PatchRefused(
            f"{where}: no {PATCHED_CLASS}.{PATCHED_METHOD} found; this is not"
            " a pass_base.py the patch knows"
        )
    fixed = fixed_call_text()
    if span.text == fixed:
        raise PatchRefused(f"{where}: the fix for #22309 is already applied")
    if span.sha256 not in UNFIXED_CALL_SHA256:
        raise PatchRefused(
            f"{where}: {PATCHED_CLASS}.{PATCHED_METHOD} (lines"
            f" {span.start}-{span.end}, sha256 {span.sha256[:12]}) differs from"
            " every unfixed version the patch knows; upstream changed it,"
            " perhaps by fixing #22309 another way (see #22310, #22891)."
            " Refusing to patch a diverged tree"
        )
    lines = span.lines
    return "".join(lines[: span.start - 1]) + fixed + "".join(lines[span.end :])


def splice_test(upstream: str, where: str) -> str:
    """``upstream`` with the regression test class appended at its end."""
    if class_span(upstream, TEST_CLASS) is not None:
        raise PatchRefused(f"{where}: {TEST_CLASS} is already there")
    return upstream.rstrip("\n") + "\n\n\n" + regression_test_text()


def planned_changes(tree: Path) -> List[FileChange]:
    if not tree.is_dir():
        raise PatchRefused(f"{tree}: no such directory")
    old_pass_base = _read_tree_file(tree, PASS_BASE)
    old_test = _read_tree_file(tree, TEST_PASS_INFRA)
    return [
        FileChange(
            PASS_BASE,
            old_pass_base,
            splice_pass_base(old_pass_base, str(tree / PASS_BASE)),
        ),
        FileChange(
            TEST_PASS_INFRA,
            old_test,
            splice_test(old_test, str(tree / TEST_PASS_INFRA)),
        ),
    ]


def _file_diff(change: FileChange) -> Tuple[str, int, int]:
    """A ``diff --git`` section for one file, with its added/removed counts."""
    hunks = list(
        difflib.unified_diff(
            change.old.splitlines(keepends=True),
            change.new.splitlines(keepends=True),
            fromfile=f"a/{change.path}",
            tofile=f"b/{change.path}",
            n=3,
        )
    )
    body = hunks[2:]
    added = sum(1 for line in body if line.startswith("+"))
    removed = sum(1 for line in body if line.startswith("-"))
    text = f"diff --git a/{change.path} b/{change.path}\n" + "".join(hunks)
    return text, added, removed


def _bar_width(count: int, scale: float) -> int:
    """As git draws it: scaled to fit, but never zero for a nonzero count."""
    return max(1, round(count * scale)) if count else 0


def _diffstat(rows: List[Tuple[str, int, int]]) -> str:
    width = max(len(path) for path, _, _ in rows)
    most = max(added + removed for _, added, removed in rows)
    scale = min(1.0, 50 / most) if most else 1.0
    lines = []
    for path, added, removed in rows:
        bar = "+" * _bar_width(added, scale) + "-" * _bar_width(removed, scale)
        lines.append(f" {path.ljust(width)} | {added + removed:3d} {bar}\n")
    total_added = sum(added for _, added, _ in rows)
    total_removed = sum(removed for _, _, removed in rows)
    lines.append(
        f" {len(rows)} files changed,"
        f" {total_added} insertion{'s' if total_added != 1 else ''}(+),"
        f" {total_removed} deletion{'s' if total_removed != 1 else ''}(-)\n"
    )
    return "".join(lines)


def patch_text(changes: List[FileChange], author: str, date: str) -> str:
    diffs = [_file_diff(change) for change in changes]
    stat = _diffstat(
        [(c.path, added, removed) for c, (_, added, removed) in zip(changes, diffs)]
    )
    return (
        "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
        f"From: {author}\n"
        f"Date: {date}\n"
        f"Subject: [PATCH] {SUBJECT}\n"
        "\n"
        f"{BODY}"
        "---\n"
        f"{stat}"
        "\n"
        + "".join(text for text, _, _ in diffs)
        + "-- \nexecutorch-exportpass-fix\n\n"
    )


def default_author() -> str:
    """The committer git would use here, else a neutral placeholder."""
    try:
        name, mail = (
            subprocess.run(
                ["git", "config", key],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            for key in ("user.name", "user.email")
        )
    except (OSError, subprocess.CalledProcessError):
        return DEFAULT_AUTHOR
    return f"{name} <{mail}>" if name and mail else DEFAULT_AUTHOR


def patch_file_name() -> str:
    slug = "".join(c if c.isalnum() else "-" for c in SUBJECT)
    while "--" in slug:
        slug = slug.replace("--", "-")
    return f"0001-{slug.strip('-')}.patch"


def _check_writable(out_dir: Path) -> None:
    if out_dir.exists() and not out_dir.is_dir():
        raise PatchRefused(f"output directory {out_dir} is not a directory")
    if not out_dir.is_dir():
        raise PatchRefused(f"output directory {out_dir} does not exist")
    try:
        probe_fd, probe = tempfile.mkstemp(dir=out_dir, prefix=".probe-")
    except OSError as error:
        raise PatchRefused(
            f"output directory {out_dir} is not writable: {error.strerror}"
        ) from None
    os.close(probe_fd)
    os.unlink(probe)


def make_patch(
    tree: Path,
    out_dir: Path,
    author: Optional[str] = None,
    date: Optional[str] = None,
) -> Path:
    """Write the patch for ``tree`` into ``out_dir`` and return its path.

    Raises ``PatchRefused`` before writing anything when the tree lacks the
    files, already has the fix, or has a ``call`` the patch does not know,
    or when ``out_dir`` cannot be written.
    """
    changes = planned_changes(tree)
    _check_writable(out_dir)
    text = patch_text(
        changes,
        author or default_author(),
        date or email.utils.formatdate(time.time(), localtime=True),
    )
    target = out_dir.resolve() / patch_file_name()
    with tempfile.NamedTemporaryFile(
        "w", dir=out_dir, prefix=".patch-", delete=False, encoding="utf-8"
    ) as handle:
        handle.write(text)
    os.replace(handle.name, target)
    return target
