"""One column of ``check`` and ``matrix``: a process that lowers models.

``python -m exportpass_fix.diagnosis.checking.worker COLUMN JOB_JSON`` (COLUMN ``unpatched`` or
``backport``) imports ExecuTorch once, applies the backport in the backport
column, runs the issue's graph (``repro``) and the test partitioner's
lowering (``constant_subgraph``) if the job asks, then for each run of the
job: load or export the model, lower it
with ``to_edge_transform_and_lower``, ``to_executorch``, and, where the
pybindings run every delegate, execute the ``.pte`` and compare with eager
(elsewhere that step is "not run": ``ran`` false, status ``not run``).
Each step is one JSON line on stdout; bad input is one line
``{"bad_input": ...}`` and exit status 2.
"""

import hashlib
import json
import sys
import time
from typing import Callable, Dict, List, Optional, Tuple

import torch

from ...shared.report import EXIT_REFUSED
from .findings import failure, trigger_delegates, trigger_partitions
from .model_spec import BadModel, load_model, Model
from .steps import max_abs_error, uuid_blind_digest
from .partitioners import construct, PARTITIONERS, Unavailable


def emit(**record: object) -> None:
    print(json.dumps(record), flush=True)


def _runtime_note(partitioners: List[str]) -> Optional[str]:
    """None if the pybindings run every delegate, else why not."""
    missing = [name for name in partitioners if not PARTITIONERS[name].runs_here]
    if not missing:
        return None
    return f"no {', '.join(missing)} runtime in these pybindings"


Outcome = Tuple[object, bool, str, Dict[str, object]]


def _timed(
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
    status = "not run" if data.get("ran") is False else ("ok" if ok else "failed")
    emit(
        run=run, step=name, ok=ok, status=status, detail=detail, seconds=seconds, **data
    )
    return value if ok else None


def _lower(model: Model, names: List[str]) -> Outcome:
    from executorch.exir import to_edge, to_edge_transform_and_lower

    try:
        edge = to_edge_transform_and_lower(
            model.program, partitioner=[construct(n) for n in names]
        )
    except Exception as error:
        try:  # which partitions would have had the trigger shape
            program = to_edge(model.program).exported_program()
            triggers = trigger_partitions(program, [construct(n) for n in names])
        except Exception:  # the partitioner alone fails too: nothing to show
            triggers = []
        error.diagnosis = {"triggers": triggers}  # type: ignore[attr-defined]
        raise
    graph = edge.exported_program().graph
    count = sum(1 for n in graph.nodes if "executorch_call_delegate" in str(n.target))
    data = {"delegates": count, "triggers": trigger_delegates(edge.exported_program())}
    return edge, True, f"{count} delegate(s)", data


def _serialize(edge: object) -> Outcome:
    buffer = edge.to_executorch().buffer  # type: ignore[attr-defined]
    data = {
        "pte_bytes": len(buffer),
        "pte_sha256": hashlib.sha256(buffer).hexdigest(),
        "pte_uuid_blind_digest": uuid_blind_digest(buffer),
    }
    return buffer, True, f"{len(buffer)} bytes", data


def _run(buffer: bytes, model: Model, names: List[str]) -> Outcome:
    note = _runtime_note(names)
    if note is not None:
        return None, True, note, {"ran": False}
    error, close, rtol, atol = max_abs_error(buffer, model)
    detail = f"max abs error {error:.2e} (rtol={rtol:g}, atol={atol:g})"
    return None, close, detail, {"ran": True, "max_abs_error": error}


def _constant_subgraph() -> Outcome:
    from .constant_subgraph import lower_constant_subgraph

    count = lower_constant_subgraph()
    return None, count > 0, f"{count} delegate(s)", {"delegates": count}


def run_one(run: int, spec: str, names: List[str], tolerance: Dict) -> None:
    def load() -> Outcome:
        model = load_model(spec, **tolerance)
        return model, True, model.how, {}

    model = _timed(run, "load", load)
    if model is None:
        return
    edge = _timed(run, "lower", lambda: _lower(model, names))
    if edge is None:
        return
    buffer = _timed(run, "to_executorch", lambda: _serialize(edge))
    if buffer is not None:
        _timed(run, "run", lambda: _run(buffer, model, names))


def _refuse_bad_models(specs: List[str], tolerance: Dict) -> None:
    """Load each user-given model once before the long imports, so bad input
    is refused in seconds; a model whose export fails is reported later."""
    for spec in dict.fromkeys(s for s in specs if not s.startswith("builtin:")):
        try:
            load_model(spec, **tolerance)
        except BadModel as bad:
            emit(bad_input=str(bad))
            sys.exit(EXIT_REFUSED)
        except Exception:  # the model's own failure: its run reports it
            pass


def main(column: str, job: Dict) -> None:
    started = time.perf_counter()
    _refuse_bad_models([run["model"] for run in job["runs"]], job.get("tolerance", {}))
    import executorch.exir  # noqa: F401 (the import the user's script pays)

    from ...backport.replace_call import apply
    from ...shared.installed import installed_version

    status = apply() if column == "backport" else "not applied"
    for name in dict.fromkeys(n for run in job["runs"] for n in run["partitioners"]):
        try:
            construct(name)
        except Unavailable as reason:
            emit(bad_input=f"partitioner {name!r} cannot be used here: {reason}")
            sys.exit(EXIT_REFUSED)
    emit(
        run=None,
        step="import",
        ok=True,
        status="ok",
        seconds=round(time.perf_counter() - started, 2),
        detail=f"{installed_version()}, backport {status}"
        f" ({time.perf_counter() - started:.0f} s)",
        executorch=installed_version(),
        torch=torch.__version__,
    )
    if job.get("repro"):
        from ...shared.repro import modes_after_export_pass

        begun = time.perf_counter()
        modes = modes_after_export_pass()
        emit(
            run=None,
            step="issue repro",
            ok=modes == 1,
            status="ok" if modes == 1 else "failed",
            detail=f"{modes} fake mode{'s' if modes != 1 else ''}",
            seconds=round(time.perf_counter() - begun, 2),
        )
    if job.get("constant_subgraph"):
        _timed(None, "constant subgraph", _constant_subgraph)
    for index, run in enumerate(job["runs"]):
        run_one(index, run["model"], run["partitioners"], job.get("tolerance", {}))


if __name__ == "__main__":
    main(sys.argv[1], json.loads(sys.argv[2]))
