"""Fingerprints of the unfixed ``_ExportPassBase.call`` this project patches.

Each key is the sha256 of the method's source lines exactly as upstream ships
them in ``exir/pass_base.py`` (indentation and trailing newline included); the
value names the releases where that text was checked. The patch maker and the
backport only replace a ``call`` whose fingerprint is listed here, so a tree or
wheel whose ``call`` changed upstream (perhaps by fixing #22309 another way)
is refused rather than patched blind.

``EARLIER_FIX_SHA256`` holds this project's own earlier versions of the fixed
``call``: a tree or process that has one is already fixed, not unknown.

``classify_call`` is the one place that tells these states apart; the patch
maker and the backport each map its answer to their own action or refusal.
"""

import hashlib
from typing import Dict

from .fix_source import fixed_call_text, unspliced_fix

UNFIXED_CALL_SHA256: Dict[str, str] = {
    "5a1cf508fac4ec4ff849058e84e017c30b715a8eae5716ceb042e40cee2bbeff": (
        "ExecuTorch v1.0.0, v1.0.1 (before #16222)"
    ),
    "689e39bb23b9834cd8d0862b213ef51001a668aea6bf53c7398d4ff45c70ab0c": (
        "ExecuTorch v1.1.0, v1.2.0, v1.3.1, v1.4.0, v1.4.1 (release/1.4),"
        " v1.5.0, v1.5.1 and main as of 2026-08-22"
    ),
}
# The releases whose ``call`` the table above was checked on, in words.
KNOWN_RANGE = "ExecuTorch 1.0.0 to 1.5.1"

EARLIER_FIX_SHA256: Dict[str, str] = {
    "457709f96ee3a6b99e58e52aab15ae2ce6ca29e4035de11592fbcab0f05255f2": (
        "executorch-exportpass-fix 0.1.0"
    ),
}


def is_fix_of_a_known_call(text: str) -> bool:
    """Whether ``text`` is the fix made to one of the known unfixed calls
    (on 1.0.x, that is not this package's own ``call``)."""
    unfixed = unspliced_fix(text)
    if unfixed is None:
        return False
    return hashlib.sha256(unfixed.encode("utf-8")).hexdigest() in UNFIXED_CALL_SHA256


FIXED = "fixed"  # this package's call, or the fix made to a known unfixed one
EARLIER_FIX = "earlier fix"  # one of this project's earlier fixed calls
UNFIXED = "unfixed"  # a known unfixed call: the fix can be made to it
UNKNOWN = "unknown"  # anything else: nobody can say from the text


def classify_call(text: str) -> str:
    """The state of a ``_ExportPassBase.call`` from its source text:
    ``FIXED``, ``EARLIER_FIX``, ``UNFIXED`` or ``UNKNOWN``."""
    sha256 = hashlib.sha256(text.encode("utf-8")).hexdigest()
    if text == fixed_call_text() or is_fix_of_a_known_call(text):
        return FIXED
    if sha256 in EARLIER_FIX_SHA256:
        return EARLIER_FIX
    if sha256 in UNFIXED_CALL_SHA256:
        return UNFIXED
    return UNKNOWN
