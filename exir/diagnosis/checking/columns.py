"""The columns, unpatched, with the backport and folded, run at the same time.

One ``worker`` process imports ExecuTorch once and forks a child per column
(see ``worker``); its JSON lines, each naming its column, are read as they
come, each shown as a progress line, and collected (``text`` prints them).
"""

import contextlib
import errno
import json
import os
import select
import signal
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterator, List, Optional, Sequence

from ...shared.installed import environ_without_hook

COLUMNS = ("unpatched", "backport", "folded")
# The same hash seed in every column, so equal programs serialize to equal bytes.
HASH_SEED = "0"
PR_SET_PDEATHSIG = 1  # linux/prctl.h
# How often the run looks whether the reader of its output has gone.
CHECK_READER_SECONDS = 0.25


# The stages of loading a model that run the user's own code.
USERS_STAGES = ("import", "build")


@dataclass
class Column:
    name: str
    records: List[Dict] = field(default_factory=list)
    bad_input: Optional[str] = None
    returncode: int = 0
    # How its process ended ("exit status N", "killed by signal NAME", "timed
    # out after N s"), the last line of its stderr, and the stage of loading
    # the model it was in, if it ended there.
    ended: str = ""
    stderr_tail: str = ""
    stage: str = ""

    def steps(self, run: Optional[int]) -> Dict[str, Dict]:
        return {r["step"]: r for r in self.records if r.get("run") == run}

    def ended_early(self) -> str:
        """How the column ended before its last step: the model's module
        ended the process (where check ran the user's code), or it ended."""
        how = self.ended or f"exit status {self.returncode}"
        if self.stage in USERS_STAGES and not how.startswith("timed out"):
            return f"the model's module ended the process ({how})"
        return f"the column ended early ({how})"

    def why_not_run(self) -> str:
        """Why a step with no record did not run."""
        if self.records and self.records[-1]["status"] == "failed":
            return "an earlier step failed"
        return self.ended_early()


# How a record's status (the worker's: ok, failed, not run) reads in a
# progress line.
PROGRESS_MARK = {"ok": "ok", "failed": "FAILED", "not run": "not run"}


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
    elif "printed" in record:  # what the user's model printed as it loaded
        sys.stderr.write(record["printed"])
        sys.stderr.flush()
    elif "exit" in record:
        targets[0].returncode = record["exit"]
        targets[0].ended, targets[0].stderr_tail = record["why"], record["stderr_tail"]
    elif "stage" in record:
        targets[0].stage = record["stage"]
    else:
        targets[0].records.append(record)
        targets[0].stage = ""
        say(_progress(targets[0].name, record))


def end_with_parent() -> None:
    """Where Linux allows it, this process is killed when its parent ends,
    however that ends (a SIGKILL included): nothing check started outlives
    it."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the group kill still holds
        return
    if os.getppid() == 1:  # the parent ended before prctl took effect
        os._exit(1)


def _reader_gone() -> bool:
    """Whether stdout or stderr is a pipe whose reader has closed it."""
    poller = select.poll()
    for fd in (1, 2):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                poller.register(fd, 0)  # POLLERR is reported unasked
        except OSError:
            continue
    return any(event & select.POLLERR for _, event in poller.poll(0))


def _lines(process: subprocess.Popen) -> Iterator[str]:
    """The worker's stdout, a line at a time; ``BrokenPipeError`` as soon as
    whoever reads this process's output has gone."""
    assert process.stdout is not None
    fd, pending = process.stdout.fileno(), b""
    while True:
        ready, _, _ = select.select([fd], [], [], CHECK_READER_SECONDS)
        if _reader_gone():
            raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return
        *done, pending = (pending + chunk).split(b"\n")
        yield from (line.decode("utf-8", "replace") for line in done)


def run_columns(
    job: Dict,
    say: Callable[[str], None],
    python: str = sys.executable,
    env_extra: Optional[Dict[str, str]] = None,
    names: Sequence[str] = COLUMNS,
) -> Dict[str, Column]:
    """The columns ``names`` of ``job``, at once; ``say`` gets a line per
    step. ``python`` (another environment's interpreter) and ``env_extra``
    (its ``PYTHONPATH``) are for ``releases``. Interrupted (a signal, a
    closed pipe), it kills the worker's process group, the worker and every
    child of it, before the interruption goes on."""
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
            cwd=os.getcwd(),
            # Its own group (and session; Popen's process_group is 3.11's):
            # one kill ends it and its children.
            start_new_session=True,
        )
        try:
            for line in _lines(process):
                if line.startswith("{"):
                    _take(columns, line, say)
            returncode = process.wait()
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise
        finally:
            process.stdout.close()  # type: ignore[union-attr]
        stderr_file.seek(0)
        lines = stderr_file.read().strip().splitlines()
    for column in columns.values():  # the worker ended before this column
        if not column.ended and not column.bad_input and returncode != 0:
            column.returncode = returncode
            column.ended = (
                f"killed by signal {signal.Signals(-returncode).name}"
                if returncode < 0
                else f"exit status {returncode}"
            )
            column.stderr_tail = lines[-1] if lines else "no output"
    return columns
