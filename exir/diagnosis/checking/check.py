"""``python -m exportpass_fix check``: is #22309 what blocks this export?

Two workers (see ``columns``), unpatched and with the backport, lower the
model through the partitioners at the same time. Without ``--model`` and
``--partitioner`` it is the issue's own case: the issue's graph and reduced
model through Vulkan. Exit status: 0 when every step of the backport column
is ok or could not run here (no runtime: "not run"), 1 when one failed, 2
for bad input, refused before any worker starts where it can be. Progress
goes to stderr, the report to stdout, 100 columns wide unless ``--full``.
"""

import json
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

from ...shared.report import cut, refuse, unknown_name

from .columns import Column, COLUMNS, run_columns, table, WIDTH
from .findings import diagnosis_lines, verdict
from .model_spec import BadModel, BUILTIN_MODELS, is_pt2, refuse_unreadable_pt2
from .partitioners import unknown, unusable_here

DEFAULT_MODEL = "builtin:issue-reduced"
DEFAULT_PARTITIONER = "vulkan"
STEPS = {
    "import": "import executorch",
    "load": "load/export",
    "lower": "to_edge_transform_and_lower",
    "to_executorch": "to_executorch",
    "run": "run vs eager",
}
# Without --model/--partitioner: the rows the README shows.
ISSUE_STEPS = {
    "import": "import executorch",
    "issue repro": "issue repro",
    "lower": "Vulkan lowering",
    "to_executorch": ".pte",
}


class BadInput(ValueError):
    pass


def validate(model: str, partitioners: List[str]) -> None:
    """What the parent can refuse before torch or ExecuTorch is imported: the
    partitioner names and what can be told of them without a backend, the
    built-in model's name, and a .pt2 path."""
    unknown_partitioner = unknown(partitioners)
    if unknown_partitioner:
        raise BadInput(unknown_partitioner)
    for name in partitioners:
        reason = unusable_here(name)
        if reason is not None:
            raise BadInput(f"partitioner {name!r} cannot be used here: {reason}")
    if model.startswith("builtin:"):
        name = model.split(":", 1)[1]
        if name not in BUILTIN_MODELS:
            raise BadInput(unknown_name("built-in model", name, BUILTIN_MODELS))
    elif is_pt2(model):
        try:
            refuse_unreadable_pt2(Path(model))
        except BadModel as bad:
            raise BadInput(str(bad)) from None


def first_failure(column: Column, run: int, lowering_only: bool = False) -> Dict:
    """The column's first failed step of ``run`` (and of the column's own
    steps, except the issue's repro when ``lowering_only``)."""
    for record in column.records:
        if lowering_only and record["step"] == "issue repro":
            continue
        if record.get("run") in (None, run) and not record["ok"]:
            return {"failed": record["step"], **record}
    if column.returncode != 0 and "run" not in column.steps(run):
        return {"failed": "worker", "error": f"worker died: {column.stderr_tail}"}
    return {"failed": None}


def diagnose(columns: Dict[str, Column], run: int = 0) -> Dict[str, object]:
    unpatched = first_failure(columns["unpatched"], run, lowering_only=True)
    backport = first_failure(columns["backport"], run, lowering_only=True)
    lowered = columns["backport"].steps(run).get("lower", {})
    failed_lowering = columns["unpatched"].steps(run).get("lower", {})
    return {
        "is_22309": bool(unpatched.get("is_22309")),
        "blamed_pass": unpatched.get("blamed_pass"),
        "unpatched_error": unpatched.get("error"),
        "trigger_submodules": lowered.get("triggers")
        or failed_lowering.get("triggers")
        or [],
        "verdict": verdict(unpatched, backport),
    }


def run_check(
    model: Optional[str],
    partitioners: List[str],
    as_json: bool = False,
    atol: float = 1e-5,
    rtol: float = 1e-5,
    full: bool = False,
) -> int:
    started = time.perf_counter()
    issue_case = model is None and not partitioners
    model = model or DEFAULT_MODEL
    partitioners = partitioners or [DEFAULT_PARTITIONER]
    try:
        validate(model, partitioners)
    except BadInput as bad:
        return refuse("check", bad)

    def say(line: str) -> None:  # progress: stderr, with the time so far
        line = f"[{time.perf_counter() - started:5.1f} s] {line}"
        print(line if full else cut(line, WIDTH), file=sys.stderr, flush=True)

    say("running unpatched and with the backport at once (imports take ~10 s)")
    job = {
        "repro": issue_case,
        "runs": [{"model": model, "partitioners": partitioners}],
        "tolerance": {"rtol": rtol, "atol": atol},
    }
    columns = run_columns(job, say)
    bad = [c.bad_input for c in columns.values() if c.bad_input]
    if bad:
        return refuse("check", bad[0])
    diagnosis = diagnose(columns)
    backport_ok = first_failure(columns["backport"], 0)["failed"] is None
    say(f"done in {time.perf_counter() - started:.1f} s")
    if as_json:
        print(json.dumps(report(columns, model, partitioners, diagnosis, backport_ok)))
        return 0 if backport_ok else 1
    width = None if full else WIDTH
    print(table(columns, ISSUE_STEPS if issue_case else STEPS, width))
    print()
    print("\n".join(diagnosis_lines(diagnosis, width)))
    return 0 if backport_ok else 1


def report(
    columns: Dict[str, Column],
    model: str,
    partitioners: List[str],
    diagnosis: Dict,
    backport_ok: bool,
) -> Dict[str, object]:
    """What ``--json`` prints: every record whole, each with its status."""
    imported = columns["backport"].steps(None).get("import", {})
    return {
        "executorch": imported.get("executorch"),
        "torch": imported.get("torch"),
        "model": model,
        "partitioners": partitioners,
        "columns": {c: columns[c].records for c in COLUMNS},
        "diagnosis": {k: v for k, v in diagnosis.items() if k != "verdict"},
        "verdict": diagnosis["verdict"],
        "backport_ok": backport_ok,
    }
