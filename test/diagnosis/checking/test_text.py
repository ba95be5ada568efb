"""What ``check`` says agrees with what its columns measured: exit status 0
only for a program the backport column lowered itself, a route's ``runs``
and ``line`` only where they hold, #22309 named where a route fails with
it, no trigger block under a verdict #22309 is not part of, and table cells
that wrap between words.

The columns are built from records as the worker writes them; no lowering.
"""

from typing import Dict

import pytest
from exportpass_fix.diagnosis.checking.check import Checked, route
from exportpass_fix.diagnosis.checking.columns import Column
from exportpass_fix.diagnosis.checking.partitioners import why_not
from exportpass_fix.diagnosis.checking.text import diagnosis_lines, table, WIDTH

IMPORTED = {"run": None, "step": "import", "status": "ok", "detail": "1.5.1"}
FAKE_MODE = (
    "AssertionError: fake mode (FakeTensorMode) from fake tensor input 0"
    " doesn't match mode (FakeTensorMode) from fake tensor input 1"
)


def _step(step: str, status: str = "ok", **data: object) -> Dict[str, object]:
    return {"run": 0, "step": step, "status": status, "detail": "d", **data}


def _lowered(name: str) -> Column:
    return Column(
        name,
        [
            IMPORTED,
            _step("load", detail="loaded model.pt2"),
            _step("lower", delegates=1, triggers=[]),
            _step("to_executorch", pte_bytes=100),
            _step("run", "not run", ran=False, detail="no vulkan runtime"),
        ],
    )


def _failed_with_22309(name: str) -> Column:
    lower = _step("lower", "failed", error=FAKE_MODE, is_22309=True, triggers=[])
    return Column(name, [IMPORTED, _step("load"), lower])


def test_a_column_that_ended_before_its_steps_is_never_exit_0() -> None:
    # A model module that ends its process where the backport column loads it.
    ended = Column("backport", [IMPORTED], returncode=0, ended="exit status 0")
    columns = {
        "unpatched": _lowered("unpatched"),
        "backport": ended,
        "folded": _lowered("folded"),
    }

    checked = Checked(columns, "m:model", ["vulkan"], issue_case=False)

    assert checked.backport_ok is False
    assert checked.as_json()["backport_ok"] is False


def test_a_route_that_never_lowered_neither_runs_nor_has_a_line() -> None:
    never = route(_failed_with_22309("folded"))
    lowered = route(_lowered("backport"))

    assert (never["lowers"], never["unblocks"], never["runs"]) == (False,) * 3
    assert never["line"] is None and never["is_22309"] is True
    # Lowered, its .pte not run here: it unblocks, it did not run.
    assert (lowered["unblocks"], lowered["runs"]) == (True, False)
    assert lowered["line"].startswith("call exportpass_fix.apply()")


def test_a_route_failing_with_22309_says_so() -> None:
    columns = {
        "unpatched": _failed_with_22309("unpatched"),
        "backport": _lowered("backport"),
        "folded": _failed_with_22309("folded"),
    }

    verdict = Checked(columns, "m:model", ["vulkan"], False).diagnosis["verdict"]

    assert (
        "- folding its constants does not unblock it: it still fails with"
        f" #22309's fake-mode assertion: {FAKE_MODE}" in str(verdict)
    )


def test_no_trigger_block_under_a_verdict_it_is_no_part_of() -> None:
    trigger = {"name": "lowered_module_0", "placeholders": ["c"], "ops": ["sin"]}
    diagnosis = {
        "is_22309": False,
        "blamed_pass": None,
        "trigger_submodules": [trigger],
        "verdict": "not affected by #22309 (lowers unpatched)",
    }

    lines = diagnosis_lines(diagnosis, WIDTH)

    assert not [line for line in lines if "trigger-shaped" in line], lines
    shown = diagnosis_lines({**diagnosis, "is_22309": True}, WIDTH)
    assert "trigger-shaped delegate lowered_module_0:" in shown


def test_table_cells_wrap_between_words_and_a_long_name_at_its_joints() -> None:
    fits, too_long = "detr_sine.pt2", "encoder-with-relative-position-bias_v2.pt2"
    columns = {c: _lowered(c) for c in ("unpatched", "backport", "folded")}
    columns["unpatched"].records[1]["detail"] = f"loaded {fits} (exported here)"
    for name in ("backport", "folded"):
        columns[name].records[1]["detail"] = f"loaded {too_long}"

    text = table(columns, {"load": "load/export", "lower": "lower"}, WIDTH)

    assert all(len(line) <= WIDTH for line in text.splitlines()), text
    cells = [line.split(" | ") for line in text.splitlines()[2:5]]
    unpatched = [c[1].strip() for c in cells]
    assert fits in unpatched[0] or fits in unpatched[1], text
    backport = [c[2].strip() for c in cells]
    assert backport == [
        "ok: loaded",
        "encoder-with-relative-",
        "position-bias_v2.pt2",
    ], text


@pytest.mark.skipif(why_not("webgpu") is not None, reason="no WebGPU here")
def test_a_trigger_names_the_partitioner_as_given_beside_its_backend() -> None:
    import torch
    from executorch.exir import to_edge
    from exportpass_fix.diagnosis.checking.findings import named, recording_triggers
    from exportpass_fix.diagnosis.checking.partitioners import construct
    from exportpass_fix.diagnosis.models.catalog import build

    model, args = build("detr-sine")
    edge = to_edge(torch.export.export(model, args)).exported_program()
    found, backends = {}, {}
    webgpu = recording_triggers("webgpu", construct("webgpu"), found, backends, {})

    webgpu.partition(edge)  # type: ignore[attr-defined]

    assert backends == {"VulkanBackend": "webgpu"}  # WebGPU delegates to Vulkan
    assert named([{"name": "m", "backend": "VulkanBackend"}], backends) == [
        {"name": "m", "backend": "VulkanBackend", "partitioner": "webgpu"}
    ]
    assert {t["partitioner"] for t in found["webgpu"]} == {"webgpu"}
    # Read from the tags, as for a failed lowering: each names its backend too.
    assert {t["backend"] for t in found["webgpu"]} == {"VulkanBackend"}
