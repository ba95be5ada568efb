"""Interrupted mid-lowering, ``check`` leaves nothing behind: every process
it started (the worker, its column children) is gone once it has exited
after a SIGINT, a SIGTERM or the reader of its output closing the pipe
(how long that takes is the machine's load, not the test's), and no
temporary file is left. SIGINT is one line and exit status 130, SIGTERM
143, neither a traceback.
"""

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


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


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
    )
    assert check.stderr is not None
    for line in check.stderr:  # lowering starts after the load step
        if "run 0 load: ok" in line:
            break
    time.sleep(0.5)
    started = _descendants(check.pid)

    if how == "closed pipe":
        check.stderr.close()
    else:
        check.send_signal(getattr(signal, how))
    status = check.wait(timeout=60)
    # A process SIGKILLed as check exits may take a moment to be reaped.
    deadline = time.monotonic() + 1
    while any(map(_alive, started)) and time.monotonic() < deadline:
        time.sleep(0.1)

    assert len(started) >= 4, started  # the worker and its three columns
    assert [pid for pid in started if _alive(pid)] == []
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
