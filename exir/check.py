"""``python -m exportpass_fix check``: the failure, then the fix, for real.

Two subprocesses, one unpatched and one with ``apply()``, each run the
issue's repro and lower the issue's reduced model through
``VulkanPartitioner`` to a ``.pte``. The parent prints a progress line per
step and a table; it exits 0 iff every step with the backport is ok.
"""

import json
import re
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional

from .autoapply import environ_without_hook

COLUMNS = ("unpatched", "with backport")
STEPS = ("import executorch", "issue repro", "Vulkan lowering", ".pte")


def innermost_error(error: BaseException) -> str:
    """The deepest cause's type and first line: the error under the wrappers."""
    while error.__cause__ is not None or error.__context__ is not None:
        error = error.__cause__ or error.__context__  # type: ignore[assignment]
    first_line = (str(error).splitlines() or [""])[0]
    # "<torch._subclasses.fake_tensor.FakeTensorMode object at 0x7f...>"
    first_line = re.sub(r"<(?:\w+\.)*(\w+) object at 0x[0-9a-f]+>", r"\1", first_line)
    if len(first_line) > 130:
        first_line = first_line[:127] + "..."
    return f"{type(error).__name__}: {first_line}"


def _report(step: str, ok: bool, detail: str) -> None:
    print(json.dumps({"step": step, "ok": ok, "detail": detail}), flush=True)


def worker(with_backport: bool) -> None:
    started = time.perf_counter()
    import torch
    from executorch.backends.vulkan.partitioner.vulkan_partitioner import (
        VulkanPartitioner,
    )
    from executorch.exir import to_edge_transform_and_lower

    from .backport import apply, installed_version

    status = apply() if with_backport else "not applied"
    _report(
        STEPS[0],
        True,
        f"{installed_version()}, backport {status}"
        f" ({time.perf_counter() - started:.0f} s)",
    )

    from .repro import modes_after_export_pass, SineFrequencies

    modes = modes_after_export_pass()
    _report(STEPS[1], modes == 1, f"{modes} fake mode{'s' if modes != 1 else ''}")

    try:
        exported = torch.export.export(SineFrequencies(), (torch.randn(4, 128),))
        edge = to_edge_transform_and_lower(exported, partitioner=[VulkanPartitioner()])
    except Exception as error:  # the lowering's failure is what we report
        _report(STEPS[2], False, innermost_error(error))
        _report(STEPS[3], False, "not reached")
        return
    _report(STEPS[2], True, "lowered")
    try:
        program = edge.to_executorch()
    except Exception as error:
        _report(STEPS[3], False, innermost_error(error))
        return
    _report(STEPS[3], len(program.buffer) > 0, f"{len(program.buffer)} bytes")


def _run_column(column: str) -> Dict[str, Dict[str, object]]:
    flag = "--with-backport" if column == COLUMNS[1] else "--unpatched"
    print(f"[{column}] starting (importing executorch takes ~10 s)", flush=True)
    # The start-up hook would fix the "unpatched" column behind our back.
    env = environ_without_hook()
    # stderr goes to a file: torch and the partitioners log plenty there, and
    # a full stderr pipe would stall the worker while we read its stdout.
    with tempfile.TemporaryFile("w+") as stderr_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "exportpass_fix.check", flag],
            env=env,
            stdout=subprocess.PIPE,
            stderr=stderr_file,
            text=True,
        )
        results: Dict[str, Dict[str, object]] = {}
        assert process.stdout is not None
        for line in process.stdout:
            if not line.startswith("{"):
                continue
            result = json.loads(line)
            results[result["step"]] = result
            mark = "ok" if result["ok"] else "FAILED"
            print(
                f"[{column}] {result['step']}: {mark}, {result['detail']}", flush=True
            )
        returncode = process.wait()
        stderr_file.seek(0)
        stderr = stderr_file.read()
    if returncode != 0 and len(results) < len(STEPS):
        tail = (stderr.strip().splitlines() or ["no output"])[-1]
        for step in STEPS:
            results.setdefault(step, {"ok": False, "detail": f"worker died: {tail}"})
    return results


def _cell(result: Optional[Dict[str, object]]) -> str:
    if result is None:
        return "-"
    return f"{'ok' if result['ok'] else 'FAIL'}: {result['detail']}"


def table(columns: Dict[str, Dict[str, Dict[str, object]]]) -> str:
    rows: List[List[str]] = [["step", *COLUMNS]]
    for step in STEPS:
        rows.append([step, *(_cell(columns[c].get(step)) for c in COLUMNS)])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [" | ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in rows]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def run_check() -> int:
    columns = {column: _run_column(column) for column in COLUMNS}
    print()
    print(table(columns))
    patched_ok = all(
        columns[COLUMNS[1]].get(step, {}).get("ok") is True for step in STEPS
    )
    print()
    print(
        "the backport fixes #22309 here"
        if patched_ok
        else "FAILED: with the backport, not every step is ok"
    )
    return 0 if patched_ok else 1


if __name__ == "__main__":
    if sys.argv[1:] not in (["--unpatched"], ["--with-backport"]):
        sys.exit("usage: python -m exportpass_fix.check --unpatched|--with-backport")
    worker(with_backport=sys.argv[1] == "--with-backport")
