"""What stands on ``_ExportPassBase`` as ``call``, for the backport.

The function found on the class is identified by its own source, never by
what a wrapper's ``__wrapped__`` names (``inspect`` follows it), and that
source counts only while it still compiles to the code in memory: a file
edited or upgraded under a running process says nothing of what runs.
Whatever is not a known text is judged by running it on the issue's graph,
and so is the fix once installed (``check_installed``).
"""

import inspect
import logging
import types
from typing import Optional, Tuple

from ..shared.fix_source import PATCHED_CLASS
from ..shared.known_calls import classify_call, KNOWN_RANGE, UNKNOWN
from ..shared.method_code import method_code
from ..shared.source_spans import Span

logger: logging.Logger = logging.getLogger("exportpass_fix")


def describe(call: object) -> str:
    """What was found on the class, for a refusal: name, place, and what it wraps."""
    code = getattr(call, "__code__", None)
    name = str(getattr(call, "__qualname__", type(call).__qualname__))
    if isinstance(code, types.CodeType):  # its own name: wraps() copies __qualname__
        name = getattr(code, "co_qualname", code.co_name)
        name += f" of {code.co_filename}:{code.co_firstlineno}"
    wrapped = getattr(call, "__wrapped__", None)
    if wrapped is not None:
        inner = getattr(wrapped, "__qualname__", type(wrapped).__qualname__)
        name += f", a wrapper of {inner}"
    return name


def identify(call: object) -> Tuple[str, str, Optional[Span]]:
    """``call``'s state by its own source, why it is unknown if it is, and
    the source's span."""
    code = getattr(call, "__code__", None)
    if not isinstance(code, types.CodeType):
        return UNKNOWN, "it has no code object to recognise", None
    try:
        lines, first = inspect.getsourcelines(code)
    except (OSError, TypeError) as error:
        return UNKNOWN, f"cannot read the source to recognise it ({error})", None
    span = Span(lines, 1, len(lines))
    state = classify_call(span.text)
    if state == UNKNOWN:
        reason = f"sha256 {span.sha256[:12]} is not a version the backport knows"
        return UNKNOWN, f"{reason} ({KNOWN_RANGE})", span
    compiled = method_code(
        PATCHED_CLASS, span.text, code.co_filename, first, code.co_name
    )
    if compiled != code:
        reason = "its source file no longer holds the code in memory (edited or"
        return UNKNOWN, f"{reason} upgraded since it was imported?)", span
    return state, "", span


def wraps(call: object, target: object) -> bool:
    """Whether ``call`` is ``target`` or wraps it (``functools.wraps``)."""
    seen = set()
    while call is not None and id(call) not in seen:
        if call is target:
            return True
        seen.add(id(call))
        call = getattr(call, "__wrapped__", None)
    return False


def behaves_fixed(call: object) -> bool:
    """Whether ``call`` itself, run on the issue's graph, keeps one mode."""
    from ..shared.repro import modes_after_call

    try:
        return modes_after_call(call) == 1  # type: ignore[arg-type]
    except Exception:  # a call too different to run the check: not fixed
        logger.debug("behavioural check failed", exc_info=True)
        return False


def check_installed(pass_base: types.ModuleType) -> Optional[str]:
    """None when the issue's graph keeps one FakeTensorMode through
    ``pass_base.ExportPass`` as the class stands now; else what the check saw."""
    from ..shared.repro import modes_after_export_pass

    try:
        modes = modes_after_export_pass(pass_base.ExportPass)
    except Exception as error:
        first_line = (str(error).strip().splitlines() or [""])[0][:200]
        return f"ExportPass raised {type(error).__name__}: {first_line}"
    if modes == 1:
        return None
    return f"ExportPass left {modes} FakeTensorModes in its graph, not 1"
