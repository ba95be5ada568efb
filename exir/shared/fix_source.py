"""Where the fix's source lives in this package, and how to read its spans.

``pass_base.py`` and ``tests/test_pass_infra.py`` sit at the paths they patch
upstream. The patch maker splices them into an ExecuTorch tree and the
backport compiles the same method; both read them through this module.
"""

from pathlib import Path

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
