"""``check``'s three columns: the folded one, their independence, --json.

Real lowering: a model with a sine table in a submodule, saved to ``.pt2``
as a user saves theirs, through Vulkan (``check`` forks one child per column
from one import of ExecuTorch).
"""

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
import torch
from exportpass_fix.diagnosis.checking import text
from exportpass_fix.diagnosis.checking.check import Checked, first_failure
from exportpass_fix.diagnosis.checking.columns import run_columns
from exportpass_fix.diagnosis.checking.text import outputs_in_words, verdict

SINE_IN_A_SUBMODULE = """\
import torch


class Sine(torch.nn.Module):
    def forward(self, x):
        t = torch.arange(128, dtype=torch.float32)
        t = 10000.0 ** (2 * torch.div(t, 2, rounding_mode="floor") / 128)
        return x + torch.sin(t)


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = Sine()

    def forward(self, x):
        return self.pos(x)
"""
# A model that kills its process (SIGABRT) where the backport is applied.
CRASHES_WITH_THE_BACKPORT = """\
import os
import sys

from exportpass_fix.diagnosis.models.catalog import build


def detr():
    return build("detr-sine")


def detr_crashing_with_the_backport():
    replace_call = sys.modules.get("exportpass_fix.backport.replace_call")
    if "executorch.exir" in sys.modules and replace_call.is_fixed():
        os.abort()
    return build("detr-sine")
"""

# Models whose code ends the process only in the columns: check loads each
# model once before it imports ExecuTorch, then again in each column.
ENDS_IN_THE_COLUMNS = """\
import os
import signal
import sys
import time

from exportpass_fix.diagnosis.models.catalog import build

if "executorch.exir" in sys.modules and os.environ.get("END_AT_IMPORT"):
    print("leaving at import", file=sys.stderr)
    os._exit(0)


def model():
    return build("issue-reduced")


def killed():
    if "executorch.exir" in sys.modules:
        os.kill(os.getpid(), signal.SIGKILL)
    return build("issue-reduced")


def hangs():
    if "executorch.exir" in sys.modules:
        time.sleep(600)
    return build("issue-reduced")
"""


def _check(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "check", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=cwd,
        env={**os.environ, **env},
    )


@pytest.fixture(scope="module")
def sine_report(tmp_path_factory: pytest.TempPathFactory) -> dict:
    where = tmp_path_factory.mktemp("sine")
    (where / "model.py").write_text(SINE_IN_A_SUBMODULE)
    sys.path.insert(0, str(where))
    try:
        from model import M  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    path = where / "model.pt2"
    torch.export.save(torch.export.export(M(), (torch.randn(4, 128),)), str(path))
    done = _check("--model", str(path), "--partitioner", "vulkan", cwd=where)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_folding_the_constants_lowers_a_sine_table_unpatched(sine_report) -> None:
    folded = {r["step"]: r for r in sine_report["columns"]["folded"]}
    assert folded["import"]["detail"].startswith(sine_report["executorch"])
    assert "backport not applied" in folded["import"]["detail"]
    assert folded["lower"]["status"] == "ok" and folded["lower"]["delegates"] >= 1
    assert folded["to_executorch"]["pte_bytes"] > 0
    routes = sine_report["diagnosis"]["routes"]
    assert routes["folded"]["lowers"] and routes["backport"]["lowers"]
    assert routes["folded"]["pte_bytes"] == folded["to_executorch"]["pte_bytes"]
    assert sine_report["diagnosis"]["is_22309"]
    assert "folding its constants unblocks it" in sine_report["verdict"]
    assert "constant_prop_pass(ep)" in sine_report["verdict"]


def test_json_ok_means_ran_and_passed_and_names_its_schema(sine_report) -> None:
    assert sine_report["schema"] == 3
    try:  # None where this tree runs without being installed
        installed = metadata.version("executorch-exportpass-fix")
    except metadata.PackageNotFoundError:
        installed = None
    assert sine_report["exportpass_fix"] == installed
    records = [r for c in sine_report["columns"].values() for r in c]
    assert {r["status"] for r in records} == {"ok", "failed", "not run"}
    for record in records:
        assert record["ok"] is (record["status"] == "ok"), record
    not_run = [r for r in records if r["status"] == "not run"]
    assert not_run and not any(r["ok"] for r in not_run)


def _comparable(records: list) -> list:
    """A column's results, without times and how the model was named."""
    keep = ("step", "status", "delegates", "pte_sha256", "is_22309", "error")
    return [
        {k: r.get(k) for k in keep}
        for r in records
        if r["step"] not in ("import", "load")
    ]


@pytest.mark.once
def test_a_crash_in_one_column_leaves_the_others_as_they_are_alone(
    tmp_path: Path,
) -> None:
    (tmp_path / "user_models.py").write_text(CRASHES_WITH_THE_BACKPORT)

    alone = _check(
        "--model", "user_models:detr", "--partitioner", "vulkan", cwd=tmp_path
    )
    crashed = _check(
        "--model",
        "user_models:detr_crashing_with_the_backport",
        "--partitioner",
        "vulkan",
        cwd=tmp_path,
    )

    assert alone.returncode == 0, alone.stderr[-3000:]
    assert crashed.returncode == 1, crashed.stderr[-3000:]
    alone_report, crashed_report = json.loads(alone.stdout), json.loads(crashed.stdout)
    for column in ("unpatched", "folded"):
        expected = _comparable(alone_report["columns"][column])
        assert _comparable(crashed_report["columns"][column]) == expected, column
    assert "lower" in {r["step"] for r in alone_report["columns"]["folded"]}
    backport = crashed_report["diagnosis"]["routes"]["backport"]
    assert not backport["lowers"] and "SIGABRT" in backport["error"]
    assert "the backport does not make it lower" in crashed_report["verdict"]
    assert "folding its constants unblocks it" in crashed_report["verdict"]


@pytest.mark.once
@pytest.mark.parametrize(
    "spec, env, how",
    [
        ("ends:model", {"END_AT_IMPORT": "1"}, "exit status 0"),
        ("ends:killed", {}, "killed by signal SIGKILL"),
    ],
)
def test_a_model_that_ends_the_columns_is_said_to_not_a_failed_step(
    spec: str, env: dict, how: str, tmp_path: Path
) -> None:
    (tmp_path / "ends.py").write_text(ENDS_IN_THE_COLUMNS)

    done = _check("--model", spec, cwd=tmp_path, **env)
    report = json.loads(done.stdout)

    assert done.returncode == 1, done.stderr[-3000:]
    ended = f"the model's module ended the process ({how})"
    assert report["verdict"].startswith(
        f"fails for another reason, not #22309: {ended}"
    )
    assert report["diagnosis"]["routes"]["backport"]["error"].startswith(ended)
    for column in report["columns"].values():
        assert [r["step"] for r in column] == ["import"]
    text = subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "check", "--model", spec, "--full"],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,
        env={**os.environ, **env},
    )
    rows = text.stdout.splitlines()[3:7]  # load/export to run vs eager
    cells = [[cell.strip() for cell in row.split("|")[1:]] for row in rows]
    assert cells == [[f"not run: {ended}"] * 3] * 4, text.stdout
    assert "an earlier step failed" not in text.stdout


@pytest.mark.once
def test_a_column_that_times_out_is_said_to_have_timed_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ends.py").write_text(ENDS_IN_THE_COLUMNS)
    monkeypatch.chdir(tmp_path)
    job = {"runs": [{"model": "ends:hangs", "partitioners": ["vulkan"]}]}

    columns = run_columns({**job, "timeout": 3}, lambda line: None)

    for column in columns.values():
        assert column.why_not_run() == "the column ended early (timed out after 3 s)"
    error = first_failure(columns["backport"], 0)["error"]
    assert error.startswith("the column ended early (timed out after 3 s): ")


@pytest.mark.once
def test_a_worker_killed_by_a_signal_is_said_to_be(tmp_path: Path) -> None:
    killed = tmp_path / "python"
    killed.write_text("#!/bin/sh\nkill -KILL $$\n")
    killed.chmod(0o755)
    job = {"runs": [{"model": "builtin:issue-reduced", "partitioners": ["vulkan"]}]}

    columns = run_columns(job, lambda line: None, python=str(killed))

    checked = Checked(columns, "builtin:issue-reduced", ["vulkan"], False)
    said = checked.diagnosis["routes"]["backport"]["error"]
    assert said == "the column ended early (killed by signal SIGKILL): no output"
    assert "not run: the column ended early (killed by signal SIGKILL)" in (
        checked.as_text(None)
    )


def test_a_comparison_that_only_misses_the_tolerance_says_so() -> None:
    missed = {
        "failed": "run",
        "status": "failed",
        "error": None,
        "max_abs_error": 2.2e-06,
        "detail": "max abs error 2.20e-06 (rtol=0, atol=0)",
    }

    said = verdict(missed, {"lowers": True}, {"lowers": True})

    assert "another reason" not in said and "None" not in said
    assert said.startswith("not affected by #22309")
    assert "miss the tolerance: max abs error 2.20e-06 (rtol=0, atol=0)" in said


def test_a_pte_that_fails_when_run_is_said_so_not_offered_as_a_way_past() -> None:
    # As the worker records a run step that raised: no comparison was made.
    raised = {"status": "failed", "detail": "RuntimeError: 0x10", "ran": None}
    blocked = {"failed": "lower", "error": "AssertionError: x", "is_22309": True}
    lowers = {"lowers": True, "unblocks": True, "pte_bytes": 10, "outputs": None}
    broken = {
        "lowers": True,
        "unblocks": False,
        "pte_bytes": 12,
        "outputs": outputs_in_words(raised),
    }

    said = verdict(blocked, lowers, broken)

    assert (
        "- folding its constants lets it lower, but .pte 12 bytes, its .pte fails"
        in said
    )
    assert "unblocks it, patching nothing" not in said
    unpatched = verdict({"failed": "run", **raised}, lowers, lowers)
    assert unpatched.startswith("not affected by #22309 (lowers unpatched), but its")
    assert "fails when run: RuntimeError: 0x10" in unpatched
    assert "tolerance" not in unpatched


def test_a_verdict_never_reads_none() -> None:
    no_error = {"failed": "load", "error": None, "is_22309": False}
    blocked = {"failed": "lower", "error": "AssertionError: x", "is_22309": True}
    failed = {"lowers": False, "error": "RuntimeError: y"}

    for said in (
        verdict(no_error, failed, failed),
        verdict(blocked, failed, failed),
        verdict(blocked, failed, {}),
    ):
        assert "None" not in said, said
    assert "folding its constants does not unblock it: RuntimeError: y" in verdict(
        blocked, failed, failed
    )


@pytest.mark.parametrize("release", ["1.0.0", "1.0.1", "1.5.1"])
def test_an_unrun_folded_pte_on_1_0_x_is_not_offered_without_a_warning(
    release: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On 1.0.0 a folded .pte has failed when run (test_check_cli's XNNPACK test).
    monkeypatch.setattr(text, "installed_version", lambda: release)
    blocked = {"failed": "lower", "error": "AssertionError: x", "is_22309": True}
    unrun = {"lowers": True, "unblocks": True, "pte_bytes": 10, "line": "fold"}
    unrun["outputs"] = "outputs not compared: no vulkan runtime in these pybindings"
    compared = {**unrun, "outputs": "outputs match eager: max abs error 0"}

    warned = "a folded .pte has failed when run" in verdict(blocked, unrun, unrun)

    assert warned is release.startswith("1.0.")
    assert "failed when run" not in verdict(blocked, compared, compared)
