"""The columns of ``check`` and ``matrix``: one process that imports
ExecuTorch once, then forks a child per column.

``python -m exportpass_fix.diagnosis.checking.worker JOB_JSON``. The job's
``columns`` (default ``COLUMNS``): ``unpatched``, ``backport`` (applies the
backport in its child only) and ``folded`` (unpatched, the program's
constants folded by ``constant_prop_pass`` before lowering). Each child runs
the issue's graph (``repro``) and the test partitioner's lowering
(``constant_subgraph``) if the job asks, then each of the job's runs
(``steps.run_one``). Each child writes its lines to a pipe of its own and
its stderr to a file of its own; this process relays each line with the
child's ``column`` added, then one ``{"column", "exit", "why"}`` line per
child. A child that crashes, hangs (killed after ``timeout`` seconds) or
changes a global (the backport) alters no other: a fork shares nothing
written after it. Bad input: one line ``{"bad_input": ...}``, exit status 2.

Before the import, the user-given models are loaded once in a child of
their own (``loading.preflight``): what cannot be checked is refused there.
Every child is killed when this process ends, and this process when
``check`` does (``columns.end_with_parent``).

Fork safety: this process runs no tensor operation before it forks:
a child of a process whose OpenMP pool has run would hang in its first
parallel region.
"""

import functools
import json
import os
import selectors
import signal
import sys
import tempfile
import time
from typing import Callable, Dict, List

import torch

from ...shared.report import EXIT_REFUSED
from ..loading import preflight
from .columns import end_with_parent
from .partitioners import construct, Unavailable
from .steps import emit, run_one, share_pattern_graphs, timed

COLUMNS = ("unpatched", "backport", "folded")
# A column's time limit: a hang in one column ends it, not the others.
TIMEOUT_SECONDS = 900  # plus as much per run of the job
STARTED = time.perf_counter()


def _in_child(body: Callable[[], None], stderr_fd: int) -> int:
    """Fork; the child runs ``body`` with stdout to a pipe and stderr to
    ``stderr_fd`` and never returns. The parent gets (pid, read end)."""
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write_end)
        return pid, read_end  # type: ignore[return-value]
    code = 1
    try:
        end_with_parent()
        os.close(read_end)
        os.dup2(write_end, 1)
        os.dup2(stderr_fd, 2)
        body()
        code = 0
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else 1
    except Exception:  # the column fails; its traceback is its stderr
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _column(name: str, job: Dict) -> None:
    """One column's records, in the child of its own."""
    from ...backport.replace_call import apply
    from ...shared.installed import installed_version

    share_pattern_graphs()
    status = apply() if name == "backport" else "not applied"
    emit(
        run=None,
        step="import",
        ok=True,
        status="ok",
        seconds=round(time.perf_counter() - STARTED, 2),
        detail=f"{installed_version()}, backport {status}"
        f" ({time.perf_counter() - STARTED:.0f} s)",
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
        from .constant_subgraph import lower_constant_subgraph

        def lowered() -> tuple:
            count = lower_constant_subgraph()
            return None, count > 0, f"{count} delegate(s)", {"delegates": count}

        timed(None, "constant subgraph", lowered)
    for index, run in enumerate(job["runs"]):
        tolerance = job.get("tolerance", {})
        fold = name == "folded"
        run_one(index, run["model"], run["partitioners"], tolerance, fold)


def _relay(children: Dict[str, tuple], timeout: float) -> None:
    """Each child's lines with its column, until every pipe ends or time is
    up; then each child's end (a child still running is killed)."""
    selector = selectors.DefaultSelector()
    for name, (_, read_end, _) in children.items():
        selector.register(read_end, selectors.EVENT_READ, [name, b""])
    deadline = time.monotonic() + timeout
    while selector.get_map() and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=max(0.0, deadline - time.monotonic())):
            chunk = os.read(key.fd, 1 << 16)
            if not chunk:
                selector.unregister(key.fd)
                os.close(key.fd)
            *lines, key.data[1] = (key.data[1] + chunk).split(b"\n")
            for line in lines:
                for record in preflight.records(line.decode("utf-8", "replace")):
                    print(json.dumps({"column": key.data[0], **record}), flush=True)
    timed_out = {key.data[0] for key in selector.get_map().values()}
    for name, (pid, _, stderr_file) in children.items():
        if name in timed_out:
            os.kill(pid, signal.SIGKILL)
        why = f"timed out after {timeout:.0f} s" if name in timed_out else ""
        status = os.waitpid(pid, 0)[1]
        stderr_file.seek(0)
        lines = stderr_file.read().decode("utf-8", "replace").strip().splitlines()
        emit(
            column=name,
            exit=os.waitstatus_to_exitcode(status),
            why=why or preflight.ended(status),
            stderr_tail=lines[-1] if lines else "no output",
        )


def _refuse_bad_models(specs: List[str], tolerance: Dict) -> None:
    """Load each user-given model once, in a child, before the long imports,
    so bad input is refused in seconds, whatever the user's code does."""
    with tempfile.TemporaryFile() as stderr_file:
        pid, read_end = _in_child(
            lambda: preflight.load_each(specs, tolerance), stderr_file.fileno()
        )
        with os.fdopen(read_end, errors="replace") as lines:
            output = lines.read()
        status = os.waitpid(pid, 0)[1]
        stderr_file.seek(0)
        stderr = stderr_file.read().decode("utf-8", "replace")
    emit(printed=preflight.printed(output))  # check writes it to its stderr
    refusal = preflight.refusal(specs, output, status, stderr)
    if refusal is not None:
        emit(bad_input=refusal)
        sys.exit(EXIT_REFUSED)


def main(job: Dict) -> None:
    end_with_parent()
    specs = [run["model"] for run in job["runs"]]
    specs = list(dict.fromkeys(s for s in specs if not s.startswith("builtin:")))
    if specs:
        _refuse_bad_models(specs, job.get("tolerance", {}))
    import executorch.exir  # noqa: F401 (the import the user's script pays)

    for name in dict.fromkeys(n for run in job["runs"] for n in run["partitioners"]):
        try:
            construct(name)
        except Unavailable as reason:
            emit(bad_input=f"partitioner {name!r} cannot be used here: {reason}")
            sys.exit(EXIT_REFUSED)
    children = {}
    for name in job.get("columns", COLUMNS):
        stderr_file = tempfile.TemporaryFile()
        body = functools.partial(_column, name, job)
        pid, read_end = _in_child(body, stderr_file.fileno())
        children[name] = (pid, read_end, stderr_file)
    timeout = job.get("timeout", TIMEOUT_SECONDS * (1 + len(job["runs"])))
    _relay(children, timeout)
    os._exit(0)  # all printed, all reaped: skip torch's teardown (~1.5 s)


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
