"""The backport: install the fixed ``_ExportPassBase.call`` on a running
ExecuTorch, 1.0.0 to 1.5.1.

Only a ``call`` whose source fingerprint is a known unfixed version is
replaced, by that very text with the fix's change made
(``fix_source.spliced_fix``): on 1.1.0 and later that is exactly the method
in this package's ``pass_base.py``, the lines the patch maker splices
upstream; on 1.0.x it is 1.0.x's own ``call`` with the same change, so
#16222 (1.1.0's change for graphs without any FakeTensor) is not pulled in.
The method is compiled in the namespace of the installed
``executorch.exir.pass_base``, so its names resolve exactly as they would in
the patched file. Importing this module imports neither torch nor
executorch.
"""

import contextlib
import inspect
import logging
import types
from typing import Callable, Iterator, Optional

from ..shared.fix_source import (
    FIX_FILE,
    fixed_call_span,
    PATCHED_CLASS,
    PATCHED_METHOD,
    spliced_fix,
)
from ..shared.installed import installed_version
from ..shared.known_calls import (
    EARLIER_FIX_SHA256,
    is_fix_of_a_known_call,
    KNOWN_RANGE,
    UNFIXED_CALL_SHA256,
)
from ..shared.method_code import compiled_method
from ..shared.source_spans import Span

logger: logging.Logger = logging.getLogger("exportpass_fix")

APPLIED = "applied"
ALREADY_APPLIED = "already applied"
FIXED_UPSTREAM = "fixed upstream"
EARLIER_FIX = "already fixed (earlier version of this fix)"


class BackportRefused(RuntimeError):
    """The installed ExecuTorch's ``call`` is not one the backport knows."""


class _State:
    original: Optional[Callable[..., object]] = None
    installed: Optional[Callable[..., object]] = None


def _live_call_span(pass_base: types.ModuleType) -> Span:
    call = pass_base._ExportPassBase.__dict__[PATCHED_METHOD]
    try:
        lines, _ = inspect.getsourcelines(call)
    except (OSError, TypeError) as error:
        raise BackportRefused(
            f"executorch {installed_version()}: cannot read the source of"
            f" {PATCHED_CLASS}.{PATCHED_METHOD} to recognise it ({error});"
            " nothing was changed"
        ) from None
    return Span(lines, 1, len(lines))


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


def _fixed_for(pass_base: types.ModuleType, unfixed: Span, fix: Span) -> Callable:
    """The installed, known unfixed ``call`` with the fix's change made."""
    text = spliced_fix(unfixed.text)
    assert text is not None, "a known unfixed call has the lines the fix changes"
    if text == fix.text:
        return fixed_call(pass_base, fix)
    where = f"<the #22309 fix in executorch {installed_version()}'s call>"
    return compiled_method(pass_base, PATCHED_CLASS, text, where)


def _behaves_fixed() -> bool:
    """``is_fixed()``, and False when the check cannot run on this ExecuTorch."""
    try:
        return is_fixed()
    except Exception:  # an ExecuTorch too different to check: not fixed
        logger.debug("behavioural check failed", exc_info=True)
        return False


def apply_to(pass_base: types.ModuleType) -> str:
    """Install the fix on ``pass_base`` (an imported executorch.exir.pass_base).

    Returns ``APPLIED``, ``ALREADY_APPLIED``, ``FIXED_UPSTREAM`` or
    ``EARLIER_FIX``; raises ``BackportRefused``, changing nothing, when
    ``call`` is unknown.
    """
    cls = pass_base._ExportPassBase
    current = cls.__dict__[PATCHED_METHOD]
    if _State.installed is not None and current is _State.installed:
        return ALREADY_APPLIED
    span = _live_call_span(pass_base)
    fix_span = fixed_call_span()
    if span.text == fix_span.text or is_fix_of_a_known_call(span.text):
        logger.info("executorch %s already has the fix", installed_version())
        return FIXED_UPSTREAM
    if span.sha256 in EARLIER_FIX_SHA256:
        logger.info(
            "executorch %s has an earlier version of this fix", installed_version()
        )
        return EARLIER_FIX
    if span.sha256 not in UNFIXED_CALL_SHA256:
        if _behaves_fixed():
            logger.info(
                "executorch %s fixes #22309 already; nothing to do",
                installed_version(),
            )
            return FIXED_UPSTREAM
        raise BackportRefused(
            f"executorch {installed_version()}: {PATCHED_CLASS}.{PATCHED_METHOD}"
            f" (sha256 {span.sha256[:12]}) is not a version the backport knows"
            f" ({KNOWN_RANGE}); nothing was changed"
        )
    fixed = _fixed_for(pass_base, span, fix_span)
    _State.original, _State.installed = current, fixed
    cls.call = fixed
    logger.info("exportpass_fix applied to executorch %s", installed_version())
    return APPLIED


def apply() -> str:
    """Install the fix on the installed ExecuTorch; see ``apply_to``."""
    from executorch.exir import pass_base

    return apply_to(pass_base)


def revert() -> bool:
    """Restore the original ``call``; False if the fix was not installed."""
    if _State.installed is None:
        return False
    from executorch.exir import pass_base

    cls = pass_base._ExportPassBase
    if cls.__dict__[PATCHED_METHOD] is _State.installed:
        cls.call = _State.original
    _State.original = _State.installed = None
    return True


@contextlib.contextmanager
def applied() -> Iterator[str]:
    """The fix installed for the ``with`` block, then reverted if installed here."""
    status = apply()
    try:
        yield status
    finally:
        if status == APPLIED:
            revert()


def is_fixed() -> bool:
    """Whether this process has the fix, by behaviour: the issue's graph keeps
    one FakeTensorMode through ``ExportPass``."""
    from ..shared.repro import modes_after_export_pass

    return modes_after_export_pass() == 1
