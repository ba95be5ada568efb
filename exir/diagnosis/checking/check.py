"""``python -m exportpass_fix check``: is #22309 what blocks this export?

Three columns (see ``columns``), unpatched, with the backport, and unpatched
with the program's constants folded first, lower the model through the
partitioners at the same time. Without ``--model`` and ``--partitioner`` it
is the issue's own case: the issue's graph and reduced model through Vulkan.
``Checked.backport_ok`` is true when the backport column reached its last
step and none failed (a step that could not run here, with no runtime, is
"not run"): exit status 0 only for a program check lowered itself;
``BadInput`` is refused before any worker starts where it can be. The text
report is 100 columns wide unless ``--full``.
"""

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

from ..loading.model_spec import BadModel, refuse_early
from .columns import Column, run_columns
from .partitioners import unknown, unusable_here
from .text import (
    diagnosis_lines,
    FOLD_LINE,
    HOW_TO_USE,
    outputs_in_words,
    table,
    verdict,
    what_failed,
    WIDTH,
)

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
# --json's layout: 2 added the folded column, "schema", "exportpass_fix" and
# "ok" false for a step not run; 3 a route's "runs" only where its .pte ran
# and matched, "line" only where it unblocks, "unblocks", "is_22309" and each
# trigger's "partitioner".
SCHEMA = 3


def tool_version() -> Optional[str]:
    """This tool's version, as ``--version`` prints it; None if it runs
    from a tree without distribution metadata."""
    from importlib import metadata

    try:
        return metadata.version("executorch-exportpass-fix")
    except metadata.PackageNotFoundError:
        return None


class BadInput(ValueError):
    pass


def validate(model: str, partitioners: List[str]) -> None:
    """What the parent can refuse before torch or ExecuTorch is imported: the
    partitioner names and what can be told of them without a backend, the
    built-in model's name, and a .pt2 path; an empty --model."""
    unknown_partitioner = unknown(partitioners)
    if unknown_partitioner:
        raise BadInput(unknown_partitioner)
    for name in partitioners:
        reason = unusable_here(name)
        if reason is not None:
            raise BadInput(f"partitioner {name!r} cannot be used here: {reason}")
    try:
        refuse_early(model)
    except BadModel as bad:
        raise BadInput(str(bad)) from None


def first_failure(column: Column, run: int, lowering_only: bool = False) -> Dict:
    """The column's first failed step of ``run`` (and of the column's own
    steps, except the issue's repro when ``lowering_only``)."""
    for record in column.records:
        if lowering_only and record["step"] == "issue repro":
            continue
        if record.get("run") in (None, run) and record["status"] == "failed":
            return {"failed": record["step"], **record}
    if "run" not in column.steps(run):  # it ended before its last step
        tail = f": {column.stderr_tail}" if column.stderr_tail else ""
        return {"failed": "worker", "error": column.ended_early() + tail}
    return {"failed": None}


def route(column: Column, run: int = 0) -> Dict[str, object]:
    """What a column that may get past the bug measured: whether it lowered
    to a .pte and that .pte did not fail when run (``unblocks``), whether it
    ran here and matched eager (``runs``), its size; ``line`` only where it
    unblocks."""
    failed = first_failure(column, run, lowering_only=True)
    steps = column.steps(run)
    pte = steps.get("to_executorch", {})
    compared = steps.get("run", {})
    lowers = pte.get("status") == "ok"
    unblocks = lowers and compared.get("status") != "failed"
    line = HOW_TO_USE if column.name == "backport" else FOLD_LINE
    return {
        "lowers": lowers,
        "unblocks": unblocks,
        "runs": compared.get("status") == "ok",
        "error": None if failed["failed"] is None else what_failed(failed),
        "is_22309": bool(failed.get("is_22309")),
        "pte_bytes": pte.get("pte_bytes"),
        "outputs": outputs_in_words(compared),
        "line": line if unblocks else None,
    }


def diagnose(columns: Dict[str, Column], run: int = 0) -> Dict[str, object]:
    unpatched = first_failure(columns["unpatched"], run, lowering_only=True)
    routes = {c: route(columns[c], run) for c in ("backport", "folded") if c in columns}
    lowered = columns["backport"].steps(run).get("lower", {})
    failed_lowering = columns["unpatched"].steps(run).get("lower", {})
    return {
        "is_22309": bool(unpatched.get("is_22309")),
        "blamed_pass": unpatched.get("blamed_pass"),
        "unpatched_error": unpatched.get("error"),
        "trigger_submodules": lowered.get("triggers")
        or failed_lowering.get("triggers")
        or [],
        "routes": routes,
        "verdict": verdict(unpatched, routes["backport"], routes.get("folded", {})),
    }


@dataclass
class Checked:
    """One check, every column run: what it prints and its exit status."""

    columns: Dict[str, Column]
    model: str
    partitioners: List[str]
    issue_case: bool
    diagnosis: Dict[str, object] = field(init=False)
    backport_ok: bool = field(init=False)

    def __post_init__(self) -> None:
        self.diagnosis = diagnose(self.columns)
        self.backport_ok = first_failure(self.columns["backport"], 0)["failed"] is None

    def as_json(self) -> Dict[str, object]:
        """What ``--json`` prints: every record whole, each with its status."""
        imported = self.columns["backport"].steps(None).get("import", {})
        return {
            "schema": SCHEMA,
            "exportpass_fix": tool_version(),
            "executorch": imported.get("executorch"),
            "torch": imported.get("torch"),
            "model": self.model,
            "partitioners": self.partitioners,
            "columns": {c: column.records for c, column in self.columns.items()},
            "diagnosis": {k: v for k, v in self.diagnosis.items() if k != "verdict"},
            "verdict": self.diagnosis["verdict"],
            "backport_ok": self.backport_ok,
        }

    def as_text(self, width: Optional[int] = WIDTH) -> str:
        """The table and the diagnosis, in ``width`` columns (None: whole)."""
        rows = ISSUE_STEPS if self.issue_case else STEPS
        lines = diagnosis_lines(self.diagnosis, width, self.model)
        return table(self.columns, rows, width) + "\n\n" + "\n".join(lines)


def check(
    model: Optional[str],
    partitioners: List[str],
    tolerance: Dict[str, float],
    say: Callable[[str], None],
) -> Checked:
    """Every column of one check; ``BadInput`` for what cannot be checked,
    before any worker starts where it can be told."""
    issue_case = model is None and not partitioners
    model = DEFAULT_MODEL if model is None else model
    partitioners = partitioners or [DEFAULT_PARTITIONER]
    validate(model, partitioners)
    say(
        "running unpatched, with the backport and folded at once"
        " (one import of ExecuTorch, ~10 s)"
    )
    job = {
        "repro": issue_case,
        "runs": [{"model": model, "partitioners": partitioners}],
        "tolerance": tolerance,
    }
    columns = run_columns(job, say)
    bad = [c.bad_input for c in columns.values() if c.bad_input]
    if bad:
        raise BadInput(bad[0])
    return Checked(columns, model, partitioners, issue_case)
