"""The columns, unpatched, with the backport and folded, run at the same time.

One ``worker`` process imports ExecuTorch once and forks a child per column
(see ``worker``); its JSON lines, each naming its column, are read as they
come, each shown as a progress line, and collected. ``table`` shows the
columns side by side, cut to a terminal's width; ``diagnosis_lines`` the
diagnosis under it, with ``where_lines`` naming the user's code.
"""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from ...shared.installed import environ_without_hook
from ...shared.report import text_table

COLUMNS = ("unpatched", "backport", "folded")
TITLES = {
    "unpatched": "unpatched",
    "backport": "with backport",
    "folded": "folded, unpatched",
}
WIDTH = 100  # a terminal's columns; check --full gives every cell whole
# The same hash seed in every column, so equal programs serialize to equal bytes.
HASH_SEED = "0"


@dataclass
class Column:
    name: str
    records: List[Dict] = field(default_factory=list)
    bad_input: Optional[str] = None
    returncode: int = 0
    stderr_tail: str = ""

    def steps(self, run: Optional[int]) -> Dict[str, Dict]:
        return {r["step"]: r for r in self.records if r.get("run") == run}


# How a record's status (the worker's: ok, failed, not run) reads in a
# progress line and in a table's cell.
PROGRESS_MARK = {"ok": "ok", "failed": "FAILED", "not run": "not run"}
CELL_MARK = {"ok": "ok", "failed": "FAIL", "not run": "not run"}


def _progress(column: str, record: Dict) -> str:
    where = "" if record.get("run") is None else f"run {record['run']} "
    mark = PROGRESS_MARK[record["status"]]
    return f"[{column}] {where}{record['step']}: {mark}, {record['detail']}"


def _take(columns: Dict[str, Column], line: str, say: Callable[[str], None]) -> None:
    record = json.loads(line)
    targets = [columns[record.pop("column")]] if "column" in record else []
    if "bad_input" in record:  # before any column started: every column's
        for column in targets or list(columns.values()):
            column.bad_input = record["bad_input"]
    elif "exit" in record:
        targets[0].returncode = record["exit"]
        why = record["why"]
        targets[0].stderr_tail = f"{why}: {record['stderr_tail']}"
    else:
        targets[0].records.append(record)
        say(_progress(targets[0].name, record))


def run_columns(
    job: Dict,
    say: Callable[[str], None],
    python: str = sys.executable,
    env_extra: Optional[Dict[str, str]] = None,
    names: Sequence[str] = COLUMNS,
) -> Dict[str, Column]:
    """The columns ``names`` of ``job``, at once; ``say`` gets a line per
    step. ``python`` (another environment's interpreter) and ``env_extra``
    (its ``PYTHONPATH``) are for ``releases``."""
    columns = {name: Column(name) for name in names}
    # The start-up hook would fix the "unpatched" column behind our back.
    env = {**environ_without_hook(), **(env_extra or {})}
    env["PYTHONHASHSEED"] = HASH_SEED
    command = [python, "-m", "exportpass_fix.diagnosis.checking.worker"]
    # stderr goes to a file: torch and the partitioners log plenty there, and
    # a full stderr pipe would stall the worker while we read its stdout.
    with tempfile.TemporaryFile("w+") as stderr_file:
        process = subprocess.Popen(
            command + [json.dumps({**job, "columns": list(names)})],
            env=env,
            stdout=subprocess.PIPE,
            stderr=stderr_file,
            text=True,
            cwd=os.getcwd(),
        )
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith("{"):
                _take(columns, line, say)
        returncode = process.wait()
        stderr_file.seek(0)
        lines = stderr_file.read().strip().splitlines()
    for column in columns.values():  # a column the worker never started
        if not column.records and not column.bad_input and returncode != 0:
            column.returncode = returncode
            column.stderr_tail = lines[-1] if lines else "no output"
    return columns


def _cell(record: Optional[Dict]) -> str:
    if record is None:
        return "not run: an earlier step failed"
    return f"{CELL_MARK[record['status']]}: {record['detail']}"


def _fit(natural: List[int], available: int) -> List[int]:
    """Column widths within ``available``: the widest is narrowed first."""
    widths = list(natural)
    while sum(widths) > available and max(widths) > 1:
        widths[widths.index(max(widths))] -= 1
    return widths


def table(
    columns: Dict[str, Column], rows: Dict[str, str], width: Optional[int] = WIDTH
) -> str:
    """The steps by column; long cells wrap to fit ``width`` (None: one line
    a row, every cell whole)."""
    body = []
    for step, title in rows.items():
        run = None if step in ("import", "issue repro") else 0
        cells = [_cell(columns[c].steps(run).get(step)) for c in columns]
        body.append([title, *cells])
    header = ["step", *(TITLES[c] for c in columns)]
    if width is None:
        return text_table(header, body)
    step_width = max(len(row[0]) for row in [header, *body])
    natural = [max(len(row[i]) for row in body) for i in range(1, len(header))]
    return text_table(
        header,
        body,
        [step_width, *_fit(natural, width - step_width - 3 * len(natural))],
    )


def where_lines(where: Optional[Dict]) -> List[str]:
    """The user's code behind a trigger: per source, its module and place
    (a path under the current directory shown relative), then its line."""
    if where is None:
        return []
    lines = [f"  where in your code: {where['note'] or ''}".rstrip()]
    for source in where["sources"]:
        module = source.get("module", "(no module)")
        lines.append(f"    {module} ({source.get('module_class', '?')})")
        if "file" in source:
            path = Path(source["file"])
            if path.is_relative_to(Path.cwd()):
                path = path.relative_to(Path.cwd())
            lines[-1] += f" {path}:{source['line']}:"
            lines.append(f"      {source['code']}")
    if where["unlocated"] and where["sources"]:
        lines.append(f"    no metadata: {', '.join(where['unlocated'])}")
    return lines


def diagnosis_lines(diagnosis: Dict, width: Optional[int]) -> List[str]:
    """The diagnosis in lines, wrapped to ``width`` (None: not wrapped)."""
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
        lines += where_lines(trigger.get("where"))
    lines += f"verdict: {diagnosis['verdict']}".splitlines()
    if width is None:
        return lines
    return [
        wrapped
        for line in lines
        for wrapped in textwrap.wrap(line, width, subsequent_indent="    ")
    ]
