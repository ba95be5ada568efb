"""Where the fix's source lives in this package, and how to read its spans.

``pass_base.py`` and ``tests/test_pass_infra.py`` sit at the paths they patch
upstream. The patch maker splices them into an ExecuTorch tree and the
backport compiles the same method; both read them through this module.
"""

import re
from pathlib import Path
from typing import List, Optional, Tuple

from .source_spans import class_span, method_span, Span

PASS_BASE = "exir/pass_base.py"
TEST_PASS_INFRA = "exir/tests/test_pass_infra.py"
PATCHED_CLASS = "_ExportPassBase"
PATCHED_METHOD = "call"
TEST_CLASS = "TestExportPassFakeModeOfConstantInputs"

PACKAGE_DIR = Path(__file__).resolve().parent.parent
FIX_FILE = PACKAGE_DIR / "pass_base.py"
TEST_FILE = PACKAGE_DIR / "tests" / "test_pass_infra.py"


def fixed_call_span() -> Span:
    """Where the fixed method stands in this package's pass_base.py."""
    span = method_span(
        FIX_FILE.read_text(encoding="utf-8"), PATCHED_CLASS, PATCHED_METHOD
    )
    assert span is not None, f"{FIX_FILE} lost {PATCHED_CLASS}.{PATCHED_METHOD}"
    return span


def fixed_call_text() -> str:
    return fixed_call_span().text


def regression_test_source() -> str:
    """This package's test file, whose test class the patch appends."""
    source = TEST_FILE.read_text(encoding="utf-8")
    assert class_span(source, TEST_CLASS) is not None, f"{TEST_FILE} lost {TEST_CLASS}"
    return source


def what_each_test_pins() -> List[Tuple[str, str]]:
    """(test name, its first comment without ``#``) for each test of the
    test class: the behaviour it pins."""
    span = class_span(regression_test_source(), TEST_CLASS)
    assert span is not None
    found = re.findall(r"^    def (test_\w+)\(.*\n\s+# (.+)$", span.text, re.M)
    return [(name, comment.strip()) for name, comment in found]


# The fix as a change to any known unfixed ``call``: the lines it adds after
# ``inputs = ...`` (up to the scan), and the scan over ``vals``. ExecuTorch
# 1.0.x has another ``call`` (before #16222) in which both anchors read the
# same; spliced into 1.1's text, the result is exactly ``fixed_call_text()``.
INPUTS_LINE = "inputs = self.inputs(graph_module)"
SCAN_START = "fake_tensor_mode = None"
UNFIXED_SCAN = "for i in inputs:"


def _index(lines: List[str], text: str, start: int = 0) -> Optional[int]:
    for index in range(start, len(lines)):
        if lines[index].strip() == text:
            return index
    return None


def _anchors(lines: List[str]) -> Optional[Tuple[int, int]]:
    """Where ``inputs = ...`` and ``fake_tensor_mode = None`` stand."""
    inputs = _index(lines, INPUTS_LINE)
    scan = None if inputs is None else _index(lines, SCAN_START, inputs)
    return None if inputs is None or scan is None else (inputs, scan)


def spliced_fix(unfixed: str) -> Optional[str]:
    """``unfixed`` (an unfixed ``call``'s text) with the fix's change made,
    or None when its lines are not where the change goes."""
    fixed = fixed_call_text().splitlines(keepends=True)
    old = unfixed.splitlines(keepends=True)
    fixed_at, old_at = _anchors(fixed), _anchors(old)
    if fixed_at is None or old_at is None:
        return None
    (fixed_inputs, fixed_scan), (old_inputs, old_scan) = fixed_at, old_at
    gap = old[old_inputs + 1 : old_scan]
    scan_line = old[old_scan + 1] if old_scan + 1 < len(old) else ""
    if any(line.strip() for line in gap) or scan_line.strip() != UNFIXED_SCAN:
        return None
    new = (
        old[: old_inputs + 1]
        + fixed[fixed_inputs + 1 : fixed_scan + 2]
        + old[old_scan + 2 :]
    )
    return "".join(new)


def unspliced_fix(fixed: str) -> Optional[str]:
    """The ``call`` that ``spliced_fix`` made ``fixed`` from (one blank line
    between ``inputs = ...`` and the scan, as in every known release), or
    None when ``fixed`` does not hold the fix's change."""
    ours = fixed_call_text().splitlines(keepends=True)
    lines = fixed.splitlines(keepends=True)
    ours_at, at = _anchors(ours), _index(lines, INPUTS_LINE)
    if ours_at is None or at is None:
        return None
    inputs, scan = ours_at
    change = ours[inputs + 1 : scan + 2]
    if lines[at + 1 : at + 1 + len(change)] != change:
        return None
    scan_line = change[-1].replace(change[-1].strip(), UNFIXED_SCAN)
    before = ["\n", change[-2], scan_line]
    return "".join(lines[: at + 1] + before + lines[at + 1 + len(change) :])
