"""The steps of one column, each a JSON line on stdout: load or export the
model, lower it (in the ``folded`` column after ExecuTorch's own
``constant_prop_pass``), ``to_executorch``, and, where the pybindings run
every delegate, execute the ``.pte`` and compare with eager (elsewhere that
step is "not run": ``ran`` false, ``ok`` false, status ``not run``). Also
what a lowered program is compared by: a digest of its ``.pte`` blind to
fresh UUIDs.
"""

import functools
import hashlib
import json
import re
import sys
import time
from typing import Callable, Dict, List, Optional, Tuple

import torch

from ...shared.report import EXIT_REFUSED
from ..loading.model_spec import BadModel, load_model, Model
from .findings import failure, named, recording_triggers, trigger_delegates
from .partitioners import construct, PARTITIONERS


def emit(**record: object) -> None:
    print(json.dumps(record), flush=True)


def _runtime_note(partitioners: List[str]) -> Optional[str]:
    """None if the pybindings run every delegate, else why not."""
    missing = [name for name in partitioners if not PARTITIONERS[name].runs_here]
    if not missing:
        return None
    return f"no {', '.join(missing)} runtime in these pybindings"


Outcome = Tuple[object, bool, str, Dict[str, object]]


def timed(
    run: Optional[int], name: str, action: Callable[[], Outcome]
) -> Optional[object]:
    """Run one step, emit its line; the step's value, or None if it failed."""
    started = time.perf_counter()
    try:
        value, ok, detail, data = action()
    except BadModel as bad:
        emit(bad_input=str(bad))
        sys.exit(EXIT_REFUSED)
    except Exception as error:  # the step's failure is what we report
        data = {**failure(error), **getattr(error, "diagnosis", {})}
        value, ok, detail = None, False, str(data["error"])
    seconds = round(time.perf_counter() - started, 2)
    ran = data.get("ran") is not False
    status = "not run" if not ran else ("ok" if ok else "failed")
    emit(
        run=run,
        step=name,
        ok=ok and ran,
        status=status,
        detail=detail,
        seconds=seconds,
        **data,
    )
    return value if ok else None


def share_pattern_graphs() -> int:
    """Vulkan's pattern graphs built once per process, not once per use.

    Vulkan's partitioner and each delegate's preprocess ask its pattern
    registry for every pattern's example graphs, and the registry holds the
    functions beneath their ``lru_cache`` (the decorator wraps the function,
    not what was registered), so each use exports them again: about 4.5 s
    CPU a use on 1.5.1, three uses when a lowering makes two delegates. The
    graphs are only matched against, never changed. Where Vulkan's registry
    is loaded, each function gets a cache; returns how many did.
    """
    registry = sys.modules.get("executorch.backends.vulkan.patterns.pattern_registry")
    cached = 0
    for entry in getattr(registry, "fusable_patterns", {}).values():
        build = getattr(entry, "get_graphs_fn", None)
        if build is not None and not hasattr(build, "cache_info"):
            entry.get_graphs_fn = functools.lru_cache(maxsize=1)(build)
            cached += 1
    return cached


def _fold(program: "torch.export.ExportedProgram") -> Tuple[object, str]:
    from executorch.exir.passes.constant_prop_pass import constant_prop_pass

    return constant_prop_pass(program), "folded, "


def _lower(model: Model, names: List[str], fold: bool) -> Outcome:
    from executorch.exir import to_edge_transform_and_lower

    from .constant_subgraph import nested_traces

    program, folded = model.program, ""
    if fold:
        program, folded = _fold(program)
    found: Dict[str, List] = {}
    backends: Dict[str, str] = {}
    origins = nested_traces(model.program)
    partitioners = [
        recording_triggers(n, construct(n), found, backends, origins) for n in names
    ]
    try:
        edge = to_edge_transform_and_lower(program, partitioner=partitioners)
    except Exception as error:
        triggers = [t for n in names for t in found.get(n, [])]
        error.diagnosis = {"triggers": triggers}  # type: ignore[attr-defined]
        raise
    graph = edge.exported_program().graph
    count = sum(1 for n in graph.nodes if "executorch_call_delegate" in str(n.target))
    triggers = trigger_delegates(edge.exported_program(), origins)
    data = {"delegates": count, "triggers": named(triggers, backends)}
    return edge, True, f"{folded}{count} delegate(s)", data


def _serialize(edge: object) -> Outcome:
    buffer = edge.to_executorch().buffer  # type: ignore[attr-defined]
    data = {
        "pte_bytes": len(buffer),
        "pte_sha256": hashlib.sha256(buffer).hexdigest(),
        "pte_uuid_blind_digest": uuid_blind_digest(buffer),
    }
    return buffer, True, f"{len(buffer)} bytes", data


def _compare(buffer: bytes, model: Model, names: List[str]) -> Outcome:
    note = _runtime_note(names)
    if note is not None:
        return None, False, note, {"ran": False}
    error, close = max_abs_error(buffer, model)
    detail = f"max abs error {error:.2e} (rtol={model.rtol:g}, atol={model.atol:g})"
    return None, close, detail, {"ran": True, "max_abs_error": error}


def run_one(run: int, spec: str, names: List[str], tolerance: Dict, fold: bool) -> None:
    """One model through ``names``: a line per step, until one fails."""

    def load() -> Outcome:  # each stage noted: which one a process ended in
        model = load_model(spec, stage=lambda s: emit(run=run, stage=s), **tolerance)
        return model, True, model.how, {}

    model = timed(run, "load", load)
    if model is None:
        return
    edge = timed(run, "lower", lambda: _lower(model, names, fold))
    if edge is None:
        return
    buffer = timed(run, "to_executorch", lambda: _serialize(edge))
    if buffer is not None:
        timed(run, "run", lambda: _compare(buffer, model, names))


def max_abs_error(buffer: bytes, model: Model) -> Tuple[float, bool]:
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
    return max(errors, default=0.0), close


UUID = re.compile(rb"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


def uuid_blind_digest(buffer: bytes) -> str:
    """A digest of the byte histogram with UUIDs masked: blind to fresh UUIDs
    and to the order of entries keyed by them, not to any other change."""
    masked = bytearray(UUID.sub(b"0" * 36, buffer))
    counts = torch.bincount(torch.frombuffer(masked, dtype=torch.uint8), minlength=256)
    return hashlib.sha256(counts.numpy().tobytes()).hexdigest()
