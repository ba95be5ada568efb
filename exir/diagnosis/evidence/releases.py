"""``python -m exportpass_fix releases``: which ExecuTorch releases (and
torch releases) #22309 bites, and whether the backport fixes each.

For each (ExecuTorch, torch) pair, one at a time: a fresh virtual
environment with exactly those two (``pip install torch==T executorch==E``),
then the two ``check`` workers in it, unpatched and with the backport, with
this package on their ``PYTHONPATH``: the issue's graph through
``ExportPass``, the test partitioner's lowering of the issue's model, two
trigger-carrying models through Vulkan and one through XNNPACK as a control.
The environment is removed after its row (torch builds other than the CPU
one are several GB). A pair that does not install or import gets a row
saying why, and the run goes on. pip's own configuration applies (a
constraints file that caps torch makes that row say so).
"""

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from ...shared.fix_source import PACKAGE_DIR
from ...shared.release_table import RUNS
from ..checking.columns import run_columns

COLUMNS = ("unpatched", "backport")  # the release table's two

# Each release with a torch its wheel admits: torch 2.13.0, the CPU build
# this project tests on, wherever the wheel's requirement allows it; for
# 1.0.x (torch>=2.9.0,<2.10.0) the newest 2.9; for 1.5.1, which declares no
# torch requirement, also the newer torch releases.
PAIRS: List[Tuple[str, str]] = [
    ("1.0.0", "2.9.1"),
    ("1.0.1", "2.9.1"),
    ("1.1.0", "2.13.0"),
    ("1.2.0", "2.13.0"),
    ("1.3.1", "2.13.0"),
    ("1.4.0", "2.13.0"),
    ("1.4.1", "2.13.0"),
    ("1.5.0", "2.13.0"),
    ("1.5.1", "2.13.0"),
    ("1.5.1", "2.14.1"),
    ("1.5.1", "2.15.0"),
]
PROBE = (
    "import json, torch, executorch, executorch.exir, executorch.version;"
    "print(json.dumps({'torch': torch.__version__,"
    " 'executorch': executorch.version.__version__,"
    " 'package': list(executorch.__path__)[0]}))"
)


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no output"


def _install(venv: Path, executorch: str, torch: str) -> Optional[str]:
    """Why the pair did not install, or None."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    done = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--quiet"]
        + [
            "--disable-pip-version-check",
            f"torch=={torch}",
            f"executorch=={executorch}",
        ],
        capture_output=True,
        text=True,
    )
    return None if done.returncode == 0 else _last_line(done.stderr)


def _job(package: Path) -> Dict[str, object]:
    """The worker's job: the runs of ``RUNS`` whose partitioner ships."""
    shipped = {
        "vulkan": (package / "backends" / "vulkan" / "partitioner").is_dir(),
        "xnnpack": (package / "backends" / "xnnpack" / "partition").is_dir(),
    }
    return {
        "repro": True,
        "constant_subgraph": True,
        "runs": [
            {"model": f"builtin:{model}", "partitioners": [partitioner]}
            for _, model, partitioner in RUNS
            if shipped[partitioner]
        ],
    }


def _column(records: List[Dict], runs: List[Dict]) -> Dict[str, Dict]:
    """A column's steps by the names the table uses."""
    steps: Dict[str, Dict] = {}
    for record in records:
        if record.get("run") is None:
            steps[record["step"]] = record
        elif record["step"] == "lower" or record["status"] == "failed":
            run = runs[record["run"]]
            name = f"{run['partitioners'][0]} {run['model'].split(':', 1)[1]}"
            steps.setdefault(name, record)
    return {
        name: {k: r.get(k) for k in ("ok", "detail", "is_22309")}
        for name, r in steps.items()
    }


def _measure(
    venv: Path, work: Path, executorch: str, torch: str, say: Callable[[str], None]
) -> Dict[str, object]:
    """The row's outcome and, where it ran, its two columns."""
    why = _install(venv, executorch, torch)
    if why is not None:
        return {"outcome": "did not install", "why": why}
    probe = subprocess.run(
        [str(venv / "bin" / "python"), "-c", PROBE], capture_output=True, text=True
    )
    if probe.returncode != 0:
        return {"outcome": "did not import", "why": _last_line(probe.stderr)}
    found = json.loads(_last_line(probe.stdout))
    job = _job(Path(found["package"]))
    columns = run_columns(
        job,
        say,
        python=str(venv / "bin" / "python"),
        env_extra={"PYTHONPATH": str(work / "pythonpath")},
        names=COLUMNS,
    )
    fields: Dict[str, object] = {"torch_installed": found["torch"], "outcome": "ran"}
    for name in COLUMNS:
        column = columns[name]
        steps = _column(column.records, job["runs"])  # type: ignore[arg-type]
        if column.returncode != 0:
            detail = column.bad_input or f"{column.ended}: {column.stderr_tail}"
            steps["worker"] = {"ok": False, "detail": detail}
        fields[name] = steps
    return fields


def run_pair(
    executorch: str, torch: str, work: Path, say: Callable[[str], None]
) -> Dict[str, object]:
    started = time.perf_counter()
    venv = work / f"venv-{executorch}-{torch}"

    def say_pair(line: str) -> None:
        say(f"[{executorch} / torch {torch}] {line}")

    row: Dict[str, object] = {"executorch": executorch, "torch": torch}
    try:
        say_pair("installing ...")
        row.update(_measure(venv, work, executorch, torch, say_pair))
    finally:
        shutil.rmtree(venv, ignore_errors=True)
    row["seconds"] = round(time.perf_counter() - started, 1)
    say_pair(f"{row['outcome']} ({row['seconds']} s)")
    return row


def measure(
    pairs: List[Tuple[str, str]], say: Callable[[str], None]
) -> Dict[str, object]:
    """The release table of ``pairs``, as ``releases --json`` prints it."""
    with tempfile.TemporaryDirectory(prefix="exportpass-releases-") as work:
        # The workers import this package from here, not from an install.
        (Path(work) / "pythonpath").mkdir()
        (Path(work) / "pythonpath" / "exportpass_fix").symlink_to(PACKAGE_DIR)
        rows = [run_pair(e, t, Path(work), say) for e, t in pairs]
    return {
        "generated_by": "python -m exportpass_fix releases --json",
        "date": time.strftime("%Y-%m-%d"),
        "rows": rows,
    }
