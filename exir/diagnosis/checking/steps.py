"""What a lowered program is compared by: its outputs against eager where the
pybindings run it, and a digest of its ``.pte`` blind to fresh UUIDs."""

import hashlib
import re
from typing import Tuple

import torch

from .model_spec import Model


def max_abs_error(buffer: bytes, model: Model) -> Tuple[float, bool, float, float]:
    from executorch.extension.pybindings.portable_lib import (
        _load_for_executorch_from_buffer,
    )

    args, kwargs = model.inputs
    outputs = _load_for_executorch_from_buffer(buffer).forward(
        tuple(torch.utils._pytree.tree_leaves((args, kwargs)))
    )
    expected = torch.utils._pytree.tree_leaves(model.eager(*args, **kwargs))
    errors = [float((o - e).abs().max()) for o, e in zip(outputs, expected)]
    close = len(outputs) == len(expected) and all(
        torch.allclose(o, e, rtol=model.rtol, atol=model.atol)
        for o, e in zip(outputs, expected)
    )
    return max(errors, default=0.0), close, model.rtol, model.atol


UUID = re.compile(rb"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


def uuid_blind_digest(buffer: bytes) -> str:
    """A digest of the byte histogram with UUIDs masked: blind to fresh UUIDs
    and to the order of entries keyed by them, not to any other change."""
    masked = bytearray(UUID.sub(b"0" * 36, buffer))
    counts = torch.bincount(torch.frombuffer(masked, dtype=torch.uint8), minlength=256)
    return hashlib.sha256(counts.numpy().tobytes()).hexdigest()
