"""The backport: install the fixed ``_ExportPassBase.call`` on a running
ExecuTorch, 1.0.0 to 1.5.1.

What stands on the class is identified as ``identify`` says. Only a known
unfixed version is replaced, by that very text with the fix's change made
(``fix_source.spliced_fix``): on 1.1.0 and later that is exactly the method
in this package's ``pass_base.py``, the lines the patch maker splices
upstream; on 1.0.x it is 1.0.x's own ``call`` with the same change, so
#16222 (1.1.0's change for graphs without any FakeTensor) is not pulled in.
Anything else is left alone: "fixed" if it keeps one fake mode on the issue's
graph, else refused. The method is compiled in the namespace of the installed
``executorch.exir.pass_base``, so its names resolve exactly as they would in
the patched file. What is installed is then checked, once per process: the
issue's graph through the installed ``ExportPass`` must keep one fake mode,
else the original is put back and the fix refused. Importing this module
imports neither torch nor executorch.
"""

import contextlib
import logging
import threading
import types
from typing import Callable, Iterator, Optional, Set, Tuple

from ..shared import known_calls

from ..shared.fix_source import (
    FIX_FILE,
    fixed_call_span,
    PATCHED_CLASS,
    PATCHED_METHOD,
    spliced_fix,
)
from ..shared.installed import installed_version
from ..shared.method_code import compiled_method
from ..shared.source_spans import Span

from .identify import behaves_fixed, check_installed, describe, identify, wraps

logger: logging.Logger = logging.getLogger("exportpass_fix")

APPLIED = "applied"
ALREADY_APPLIED = "already applied"
FIXED_UPSTREAM = "fixed upstream"
EARLIER_FIX = "already fixed (earlier version of this fix)"


class BackportRefused(RuntimeError):
    """The installed ExecuTorch's ``call`` is not one the backport knows."""


# apply(), revert() and the applied() blocks read and change the class and
# _State together, under this one lock.
_LOCK = threading.RLock()


class _State:
    cls: Optional[type] = None  # the class whose call the fix replaced
    original: Optional[Callable[..., object]] = None
    installed: Optional[Callable[..., object]] = None
    permanent = False  # an apply() keeps the fix until revert()
    scopes = 0  # open applied() blocks that keep it
    # (class, code) of each fix whose check passed: checked once per process
    checked: Set[Tuple[type, types.CodeType]] = set()


def fixed_call(
    pass_base: types.ModuleType, span: Optional[Span] = None
) -> Callable[..., object]:
    """The fix of this package's ``pass_base.py``, compiled at its own line
    numbers in ``pass_base``'s namespace (``span``: ``fixed_call_span()``,
    read again when not given)."""
    span = span or fixed_call_span()
    return compiled_method(
        pass_base, PATCHED_CLASS, span.text, str(FIX_FILE), span.start
    )


def _fixed_for(pass_base: types.ModuleType, unfixed: Span) -> Callable:
    """The installed, known unfixed ``call`` with the fix's change made."""
    fix = fixed_call_span()
    text = spliced_fix(unfixed.text)
    assert text is not None, "a known unfixed call has the lines the fix changes"
    if text == fix.text:
        return fixed_call(pass_base, fix)
    where = f"<the #22309 fix in executorch {installed_version()}'s call>"
    return compiled_method(pass_base, PATCHED_CLASS, text, where)


def _check(pass_base: types.ModuleType, original: Callable, fixed: Callable) -> None:
    """Run the issue's graph through the installed fix, once per process; on
    anything but one fake mode put ``original`` back and refuse."""
    cls = pass_base._ExportPassBase
    if (cls, fixed.__code__) in _State.checked:
        return
    saw: Optional[str] = "the check did not finish"
    try:
        saw = check_installed(pass_base)
    finally:  # KeyboardInterrupt included: nothing is left half-installed
        if saw is not None:
            setattr(cls, PATCHED_METHOD, original)
    if saw is not None:
        import torch  # imported already: executorch.exir.pass_base imports it

        raise BackportRefused(
            f"executorch {installed_version()}, torch {torch.__version__}: the"
            f" fix was installed and checked on #22309's graph: {saw}; the"
            f" original {PATCHED_CLASS}.{PATCHED_METHOD} is back"
        )
    _State.checked.add((cls, fixed.__code__))


def _install(pass_base: types.ModuleType) -> str:
    """``apply_to`` without the lock and the bookkeeping of who holds it."""
    cls = pass_base._ExportPassBase
    current = cls.__dict__[PATCHED_METHOD]  # read once: all below judges it
    if _State.installed is not None and wraps(current, _State.installed):
        return ALREADY_APPLIED
    state, reason, span = identify(current)
    if state == known_calls.UNFIXED and span is not None:
        fixed = _fixed_for(pass_base, span)
        setattr(cls, PATCHED_METHOD, fixed)
        _check(pass_base, current, fixed)
        _State.cls, _State.original, _State.installed = cls, current, fixed
        logger.info("exportpass_fix applied to executorch %s", installed_version())
        return APPLIED
    if behaves_fixed(current):
        logger.info("executorch %s has the fix already", installed_version())
        return EARLIER_FIX if state == known_calls.EARLIER_FIX else FIXED_UPSTREAM
    raise BackportRefused(
        f"executorch {installed_version()}: {PATCHED_CLASS}.{PATCHED_METHOD} is"
        f" {describe(current)}: {reason or 'its text is the fix'}, and it does"
        " not behave fixed on #22309's graph; nothing was changed"
    )


def apply_to(pass_base: types.ModuleType) -> str:
    """Install the fix on ``pass_base`` (an imported executorch.exir.pass_base)
    until ``revert()``.

    Returns ``APPLIED``, ``ALREADY_APPLIED``, ``FIXED_UPSTREAM`` or
    ``EARLIER_FIX``; raises ``BackportRefused``, changing nothing,
    when ``call`` is neither known nor behaves fixed, or when the installed
    fix fails its check (the original is back then).
    """
    with _LOCK:
        status = _install(pass_base)
        if status in (APPLIED, ALREADY_APPLIED):
            _State.permanent = True
        return status


def apply() -> str:
    """Install the fix on the installed ExecuTorch; see ``apply_to``."""
    from executorch.exir import pass_base

    return apply_to(pass_base)


def _release() -> bool:
    """Restore the original ``call`` once nothing keeps the fix; True only
    when the original was put back now."""
    if _State.cls is None or _State.permanent or _State.scopes:
        return False
    restored = _State.cls.__dict__.get(PATCHED_METHOD) is _State.installed
    if restored:  # else someone replaced it since: theirs is left alone
        setattr(_State.cls, PATCHED_METHOD, _State.original)
    _State.cls = _State.original = _State.installed = None
    return restored


def revert() -> bool:
    """Undo ``apply()``: the original ``call`` is back once no ``applied()``
    block is open. True only when it was restored by this call."""
    with _LOCK:
        _State.permanent = False
        return _release()


@contextlib.contextmanager
def applied() -> Iterator[str]:
    """The fix for the ``with`` block. Blocks nest and overlap across threads
    and tasks: the fix stays until the last open block exits, and for good
    if ``apply()`` was called meanwhile (until ``revert()``)."""
    from executorch.exir import pass_base

    with _LOCK:
        status = _install(pass_base)
        holds = status in (APPLIED, ALREADY_APPLIED)
        _State.scopes += holds
    try:
        yield status
    finally:
        if holds:
            with _LOCK:
                _State.scopes -= 1
                _release()


def is_fixed() -> bool:
    """Whether this process has the fix, by behaviour: the issue's graph keeps
    one FakeTensorMode through ``ExportPass``."""
    from ..shared.repro import modes_after_export_pass

    return modes_after_export_pass() == 1
