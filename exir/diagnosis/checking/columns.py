"""The two columns, unpatched and with the backport, run at the same time.

Each column is a ``worker`` process; their JSON lines are read as they come
(a thread per column), each shown as a progress line, and collected.
``table`` shows them side by side, cut to a terminal's width.
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

from ...shared.installed import environ_without_hook
from ...shared.report import text_table

COLUMNS = ("unpatched", "backport")
WIDTH = 100  # a terminal's columns; check --full gives every cell whole
# The same hash seed in both columns, so equal programs serialize to equal bytes.
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


def _run(
    column: Column,
    job: Dict,
    say: Callable[[str], None],
    python: str,
    env_extra: Dict[str, str],
) -> None:
    # The start-up hook would fix the "unpatched" column behind our back.
    env = {**environ_without_hook(), **env_extra}
    env["PYTHONHASHSEED"] = HASH_SEED
    command = [python, "-m", "exportpass_fix.diagnosis.checking.worker", column.name]
    # stderr goes to a file: torch and the partitioners log plenty there, and
    # a full stderr pipe would stall the worker while we read its stdout.
    with tempfile.TemporaryFile("w+") as stderr_file:
        process = subprocess.Popen(
            command + [json.dumps(job)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=stderr_file,
            text=True,
            cwd=os.getcwd(),
        )
        assert process.stdout is not None
        for line in process.stdout:
            if not line.startswith("{"):
                continue
            record = json.loads(line)
            if "bad_input" in record:
                column.bad_input = record["bad_input"]
                continue
            column.records.append(record)
            say(_progress(column.name, record))
        column.returncode = process.wait()
        stderr_file.seek(0)
        lines = stderr_file.read().strip().splitlines()
        column.stderr_tail = lines[-1] if lines else "no output"


def run_columns(
    job: Dict,
    say: Callable[[str], None],
    python: str = sys.executable,
    env_extra: Optional[Dict[str, str]] = None,
) -> Dict[str, Column]:
    """Both columns of ``job`` at once; ``say`` gets a line per step.
    ``python`` (another environment's interpreter) and ``env_extra`` (its
    ``PYTHONPATH``) are for ``releases``."""
    columns = {name: Column(name) for name in COLUMNS}
    lock = threading.Lock()

    def say_whole_line(line: str) -> None:
        with lock:
            say(line)

    threads = [
        threading.Thread(
            target=_run,
            args=(columns[name], job, say_whole_line, python, env_extra or {}),
        )
        for name in COLUMNS
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
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
        body.append([title, *(_cell(columns[c].steps(run).get(step)) for c in COLUMNS)])
    header = ["step", "unpatched", "with backport"]
    if width is None:
        return text_table(header, body)
    step_width = max(len(row[0]) for row in [header, *body])
    natural = [max(len(row[i]) for row in body) for i in (1, 2)]
    return text_table(
        header, body, [step_width, *_fit(natural, width - step_width - 6)]
    )
