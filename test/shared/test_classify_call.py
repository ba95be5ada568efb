"""``known_calls.classify_call``: the one place that tells a ``call``'s text
apart; the backport and the patch maker each map its answer to an action."""

from exportpass_fix.shared import known_calls
from exportpass_fix.shared.fix_source import (
    fixed_call_text,
    PASS_BASE,
    PATCHED_CLASS,
    PATCHED_METHOD,
    spliced_fix,
)
from exportpass_fix.shared.source_spans import method_span
from trees import EARLIER_CALL, wheel_texts


def _installed_call() -> str:
    span = method_span(wheel_texts()[PASS_BASE], PATCHED_CLASS, PATCHED_METHOD)
    assert span is not None
    return span.text


def test_each_state_is_told_apart() -> None:
    installed = _installed_call()

    assert known_calls.classify_call(installed) == known_calls.UNFIXED
    assert known_calls.classify_call(fixed_call_text()) == known_calls.FIXED
    spliced = spliced_fix(installed)
    assert spliced is not None
    assert known_calls.classify_call(spliced) == known_calls.FIXED
    assert known_calls.classify_call(EARLIER_CALL.read_text()) == (
        known_calls.EARLIER_FIX
    )
    edited = installed.replace("inputs = self.inputs(graph_module)", "inputs = []")
    assert known_calls.classify_call(edited) == known_calls.UNKNOWN
