"""Interrupted mid-lowering, ``check`` leaves nothing behind: every process
it started (the worker, its column children) is gone or sent SIGKILL by
the time it exits after a SIGINT, a SIGTERM or the reader of its output
closing the pipe, which it does within 10 s on a loaded machine; no
temporary file is left. SIGINT is one line and exit status 130, SIGTERM
143, neither a traceback.
"""

import contextlib
import getpass
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

import pytest

SCRIPT = Path(sys.executable).with_name("exportpass-fix")


def _descendants(root: int) -> List[int]:
    """Every process under ``root``, read from /proc."""
    children: Dict[int, List[int]] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:  # ended meanwhile
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found += [child]
            todo += [child]
    return found


PF_EXITING = 0x4  # linux/sched.h: the process is on its way out
SIGKILL_BIT = 1 << (signal.SIGKILL - 1)


def _left(pid: int) -> bool:
    """Whether ``pid`` runs on, neither ending nor sent SIGKILL. (Killed,
    a process busy reading from disk may linger for seconds on a loaded
    machine; a SIGKILL pending is what tells it from one left running.)"""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        status = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return False
    pending = [
        int(line.split()[1], 16)
        for line in status
        if line.startswith(("SigPnd:", "ShdPnd:"))
    ]
    return (
        fields[0] not in ("Z", "X")
        and not int(fields[6]) & PF_EXITING
        and not any(mask & SIGKILL_BIT for mask in pending)
    )


@pytest.mark.once
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads processes in /proc")
@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM", "closed pipe"])
def test_an_interrupted_check_leaves_no_process_and_no_file(
    how: str, tmp_path: Path
) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    check = subprocess.Popen(
        [str(SCRIPT), "check", "--model", "builtin:detr-sine"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(temporary)},
        # As from a terminal: a shell's background job (a CI's, say) starts
        # with SIGINT ignored, and check then ignores it too, as it should.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert check.stderr is not None
    started: List[int] = []
    try:
        for line in check.stderr:  # lowering starts after the load step
            if "run 0 load: ok" in line:
                break
        time.sleep(0.5)
        started = _descendants(check.pid)

        interrupted = time.monotonic()
        if how == "closed pipe":
            check.stderr.close()
        else:
            check.send_signal(getattr(signal, how))
        status = check.wait(timeout=60)
        took = time.monotonic() - interrupted

        assert len(started) >= 4, started  # the worker and its three columns
        assert [pid for pid in started if _left(pid)] == []
        # Killed, not waited for: the columns' lowering would run on longer.
        assert took < 10, took
    except BaseException:  # nothing left running on a shared machine
        for pid in [check.pid, *filter(_left, started)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        raise
    said = "" if check.stderr.closed else check.stderr.read()
    assert check.stdout is not None and check.stdout.read() == ""
    if how != "closed pipe":
        assert status == {"SIGINT": 130, "SIGTERM": 143}[how]
        assert said.splitlines()[-1] == f"exportpass-fix check: interrupted ({how})"
        assert "Traceback" not in said
    # Importing executorch.exir makes torch's own cache directory; nothing else.
    assert [p.name for p in temporary.iterdir()] in (
        [],
        [f"torchinductor_{getpass.getuser()}"],
    )
