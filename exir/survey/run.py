"""The survey's loop: each model not yet in the record, in processes of its
own (``lower_one.py``) under the record's time and memory limits, its entry
written to the record as soon as it is known; progress on stderr.

Each model: unpatched, Vulkan; where that fails, WebGPU and XNNPACK too and
then all three with the backport; where it lowers and the seeded draw picks
the model, Vulkan with the backport, its ``.pte`` compared with the
unpatched one by sha256.
"""

import hashlib
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from ..shared.installed import environ_without_hook
from . import outcomes, record as records

LOWER_ONE = str(Path(__file__).resolve().with_name("lower_one.py"))
# Runs lower_one.py as a file from a scratch directory: no folder of this
# project on sys.path, so the unpatched process imports none of it.
LAUNCH = "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"
PLAN = ["vulkan", "webgpu", "xnnpack"]
# Two cores shared under a load of 10 to 16 give a niced process 8 % of one:
# only a hang (no CPU used) should meet the wall limit.
WALL_FACTOR = 30


def drawn(seed: int, key: str, fraction: float) -> bool:
    """The seeded draw of the models whose Vulkan lowering is done again
    with the backport: the same on every machine and every resumed run."""
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:4], "big") < fraction * 2**32


def _used(pid: int) -> Tuple[int, float]:
    """The process's resident bytes and CPU seconds so far (0s once gone)."""
    try:
        with open(f"/proc/{pid}/statm") as statm, open(f"/proc/{pid}/stat") as stat:
            pages = int(statm.read().split()[1])
            ticks = stat.read().rsplit(")", 1)[1].split()[11:13]
    except (OSError, IndexError, ValueError):
        return 0, 0.0
    seconds = sum(map(int, ticks)) / os.sysconf("SC_CLK_TCK")
    return pages * os.sysconf("SC_PAGE_SIZE"), seconds


def _reaped(child: subprocess.Popen, deadline: float) -> Tuple[int, object]:
    """Its exit status and resource usage, once it exits (killed if it has
    not by ``deadline``)."""
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            child.returncode = os.waitstatus_to_exitcode(status)
            return child.returncode, usage
        if time.monotonic() > deadline:
            child.kill()
        time.sleep(0.1)


def process(
    job: Dict, limits: Dict, on_line: Callable[[Dict], None]
) -> Tuple[List[Dict], Optional[str], Dict[str, float]]:
    """Runs one ``lower_one.py``; its lines, how it ended (None: exit 0) and
    what it used (peak resident GiB, CPU seconds). Killed at either limit: resident
    memory, or CPU seconds (``limits["seconds"]``)."""
    argv = [sys.executable, "-c", LAUNCH, LOWER_ONE, json.dumps(job)]
    lines: List[Dict] = []
    peak, ended, pending = 0, None, b""
    # CPU seconds, as the machine's load does not change them; a process
    # that waits on nothing (a hang) is held to wall_factor times as long.
    deadline = time.monotonic() + limits["seconds"] * limits["wall_factor"]
    with tempfile.TemporaryFile() as stderr:
        child = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=stderr, cwd=job["scratch"],
            env=environ_without_hook(),
        )  # fmt: skip
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(child.stdout, selectors.EVENT_READ)
                while ended is None:
                    if selector.select(timeout=0.5):
                        chunk = os.read(child.stdout.fileno(), 1 << 16)
                        if not chunk:
                            break
                        *whole, pending = (pending + chunk).split(b"\n")
                        for text in whole:
                            lines.append(json.loads(text))
                            on_line(lines[-1])
                    rss, cpu = _used(child.pid)
                    peak = max(peak, rss)
                    if peak > limits["memory_gib"] * 2**30:
                        ended = outcomes.NO_MEMORY
                    elif cpu > limits["seconds"] or time.monotonic() > deadline:
                        ended = outcomes.TIMED_OUT
        except BaseException:  # interrupted: the child ends with the survey
            child.kill()
            raise
        finally:
            if ended is not None:
                child.kill()
            code, usage = _reaped(child, deadline)
        if ended is None and time.monotonic() > deadline:
            ended = outcomes.TIMED_OUT  # it hung after its last line
        elif ended is None and code != 0:
            stderr.seek(0)
            tail = stderr.read().decode("utf-8", "replace").strip().splitlines()
            ended = f"exit {code}: {tail[-1][:160] if tail else 'no stderr'}"
    cpu = usage.ru_utime + usage.ru_stime  # type: ignore[attr-defined]
    return lines, ended, {"peak_gib": round(peak / 2**30, 2), "cpu_s": round(cpu, 1)}


def survey_model(
    key: str, model: Dict, record: Dict, partitioners: Dict, say: Callable
) -> Dict:
    """One model's entry: its processes run, their outcomes merged."""
    limits, started = record["limits"], time.monotonic()
    with tempfile.TemporaryDirectory(prefix="survey-") as scratch:
        job = {**model, "zoo": key.split("/")[0], "partitioners": partitioners}
        job.update(scratch=scratch, program=f"{scratch}/model.pt2")
        job.update(eager=f"{scratch}/eager.pt", lowerings=PLAN, backport=False)
        heard = lambda how: lambda line: say(how, line)  # noqa: E731
        lines, ended, used = process(job, limits, heard("unpatched"))
        entry = outcomes.of_process(lines, ended, PLAN, backport=False)
        entry["used"] = {"unpatched": used}
        vulkan = entry["lowerings"].get("vulkan", {}).get("unpatched", {})
        again: List[str] = []
        if vulkan.get("outcome") in (outcomes.BITTEN, outcomes.OTHER):
            again = PLAN
        elif vulkan.get("outcome") == outcomes.LOWERS:
            entry["drawn"] = drawn(record["seed"], key, record["draw_fraction"])
            again = ["vulkan"] if entry["drawn"] else []
        if again:
            job.update(lowerings=again, backport=True)
            lines, ended, used = process(job, limits, heard("backport"))
            outcomes.merged(entry, outcomes.of_process(lines, ended, again, True))
            entry["used"]["backport"] = used
        if entry.get("drawn"):
            both = entry["lowerings"]["vulkan"]
            shas = [both[how].get("pte_sha256") for how in ("unpatched", "backport")]
            entry["same_pte"] = shas[0] == shas[1] if None not in shas else None
    entry["seconds"] = round(time.monotonic() - started, 1)
    return entry


def survey(
    record: Dict, path: Path, keys: List[str], partitioners: Dict, progress: Callable
) -> Dict:
    """Surveys each of ``keys`` not yet in the record, saving after each."""
    todo = [key for key in keys if key not in record["models"]]
    by_key = {
        f"{zoo}/{m['name']}": m
        for zoo, chosen in record["selection"].items()
        for m in chosen["models"]
    }
    spent: List[float] = []
    for n, key in enumerate(todo, 1):
        left = len(todo) - n + 1
        eta = f"{sum(spent) / len(spent) * left / 60:.0f} min" if spent else "unknown"
        head = f"[{n} of {len(todo)}, {eta} left] {key}"

        def say(how: str, line: Dict, head: str = head) -> None:
            if "doing" in line:
                what = f"{line['doing']} {line.get('p', '')}".strip()
                progress(f"{head}: {what} ({how})")

        entry = survey_model(key, by_key[key], record, partitioners, say)
        rows = "; ".join(f"{p} {h}: {o}" for p, h, o in outcomes.outcome_rows(entry))
        progress(f"{head}: {rows} ({entry['seconds']:.0f} s)")
        record["models"][key] = entry
        records.save(record, path)
        spent.append(entry["seconds"])
    return record
