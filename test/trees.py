"""Trees for tests (see ``exportpass_fix.upstream.making.trees``), and the texts they swap in."""

from pathlib import Path
from typing import Dict

from exportpass_fix.shared.fix_source import PASS_BASE, TEST_PASS_INFRA
from exportpass_fix.shared.source_spans import method_span
from exportpass_fix.upstream.making.patch import planned_changes
from exportpass_fix.upstream.making.trees import (  # noqa: F401 (re-exported for the tests)
    executorch_dir,
    linked_tree,
    PytestRun,
    run_pytest,
)


def patched_texts() -> Dict[str, str]:
    """Relative path (``exir/...``) -> patched text, for the installed wheel."""
    return {change.path: change.new for change in planned_changes(executorch_dir())}


def wheel_texts() -> Dict[str, str]:
    """The installed wheel's texts of the two files the patch changes."""
    return {
        relative: (executorch_dir() / relative).read_text()
        for relative in (PASS_BASE, TEST_PASS_INFRA)
    }


EARLIER_CALL = Path(__file__).resolve().parent / "data" / "call_0.1.0.py.txt"


def with_earlier_fix(texts: Dict[str, str]) -> Dict[str, str]:
    """``texts`` with pass_base's ``call`` replaced by this project's 0.1.0 fix."""
    span = method_span(texts[PASS_BASE], "_ExportPassBase", "call")
    assert span is not None
    return {**texts, PASS_BASE: span.replaced_by(EARLIER_CALL.read_text())}
