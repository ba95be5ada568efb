"""``python -m exportpass_fix check``: is #22309 what blocks this export?

Two workers (see ``columns``), unpatched and with the backport, lower the
model through the partitioners at the same time. Without ``--model`` and
``--partitioner`` it is the issue's own case: the issue's graph and reduced
model through Vulkan. Exit status: 0 when every step of the backport column
is ok, 1 when one is not, 2 for bad input.
"""

import json
import sys
from pathlib import Path
from typing import Dict, List, Optional

from ..shared.report import text_table

from .columns import Column, COLUMNS, run_columns
from .findings import verdict
from .model_spec import BadModel, is_pt2, refuse_unreadable_pt2
from .partitioners import PARTITIONERS

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
    """What the parent can refuse without importing anything."""
    unknown = [name for name in partitioners if name not in PARTITIONERS]
    if unknown:
        raise BadInput(
            f"unknown partitioner {unknown[0]!r}; known: {', '.join(PARTITIONERS)}"
        )
    if is_pt2(model):
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


def _cell(record: Optional[Dict]) -> str:
    if record is None:
        return "FAIL: not reached"
    return f"{'ok' if record['ok'] else 'FAIL'}: {record['detail']}"


def table(columns: Dict[str, Column], rows: Dict[str, str]) -> str:
    body = []
    for step, title in rows.items():
        run = None if step in ("import", "issue repro") else 0
        body.append([title, *(_cell(columns[c].steps(run).get(step)) for c in COLUMNS)])
    return text_table(["step", "unpatched", "with backport"], body)


def _diagnosis_lines(diagnosis: Dict) -> List[str]:
    lines = [
        f"#22309 signature in the unpatched failure: {'yes' if diagnosis['is_22309'] else 'no'}"
    ]
    if diagnosis["blamed_pass"]:
        lines.append(
            f"the pass manager blames: {diagnosis['blamed_pass']} (misleading)"
        )
    for trigger in diagnosis["trigger_submodules"]:
        lines.append(f"trigger-shaped delegate {trigger['name']}:")
        lines.append(f"  constant placeholders: {', '.join(trigger['placeholders'])}")
        lines.append(f"  ops: {', '.join(trigger['ops'])}")
    lines.append(f"verdict: {diagnosis['verdict']}")
    return lines


def run_check(
    model: Optional[str],
    partitioners: List[str],
    as_json: bool = False,
    atol: float = 1e-5,
    rtol: float = 1e-5,
) -> int:
    issue_case = model is None and not partitioners
    model = model or DEFAULT_MODEL
    partitioners = partitioners or [DEFAULT_PARTITIONER]
    try:
        validate(model, partitioners)
    except BadInput as bad:
        print(f"exportpass_fix check: refused: {bad}", file=sys.stderr)
        return 2
    out = sys.stderr if as_json else sys.stdout
    say = lambda line: print(line, file=out, flush=True)  # noqa: E731
    say("running unpatched and with the backport at once (imports take ~10 s)")
    job = {
        "repro": issue_case,
        "runs": [{"model": model, "partitioners": partitioners}],
        "tolerance": {"rtol": rtol, "atol": atol},
    }
    columns = run_columns(job, say)
    bad = [c.bad_input for c in columns.values() if c.bad_input]
    if bad:
        print(f"exportpass_fix check: refused: {bad[0]}", file=sys.stderr)
        return 2
    diagnosis = diagnose(columns)
    backport_ok = first_failure(columns["backport"], 0)["failed"] is None
    if as_json:
        imported = columns["backport"].steps(None).get("import", {})
        print(
            json.dumps(
                {
                    "executorch": imported.get("executorch"),
                    "torch": imported.get("torch"),
                    "model": model,
                    "partitioners": partitioners,
                    "columns": {c: columns[c].records for c in COLUMNS},
                    "diagnosis": {k: v for k, v in diagnosis.items() if k != "verdict"},
                    "verdict": diagnosis["verdict"],
                    "backport_ok": backport_ok,
                }
            )
        )
    else:
        print()
        print(table(columns, ISSUE_STEPS if issue_case else STEPS))
        print()
        print("\n".join(_diagnosis_lines(diagnosis)))
    return 0 if backport_ok else 1
