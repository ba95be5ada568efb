"""The evidence: every model x five partitioners, in three columns.

One ``matrix --json`` run (one worker, a child per column) over the
project's models and ``CI_PARTITIONERS``, those of the eight usable with the
1.5.1 wheel alone that differ in what they delegate: vulkan, webgpu,
xnnpack, native and coreml (xnnpack-fp, xnnpack-quantized and
xnnpack-dynamic are run by no test; docs/records/matrix.json records all
eight). The fix
must unblock every pair that fails with #22309's signature and change
nothing else: the same delegates and the same ``.pte`` bytes where lowering
already worked. The folded column runs on every pair.
"""

import json
import subprocess
import sys

import pytest
from exportpass_fix.diagnosis.checking.partitioners import PARTITIONERS, why_not
from exportpass_fix.diagnosis.evidence.matrix import FOLDING
from exportpass_fix.diagnosis.models.catalog import MODELS
from exportpass_fix.shared import release_table
from exportpass_fix.shared.installed import installed_version

pytestmark = pytest.mark.matrix

# What the 1.5.1 wheel builds alone (webgpu and native are 1.5.x only).
CI_PARTITIONERS = ["vulkan", "webgpu", "xnnpack", "native", "coreml"]
TRIGGER_MODELS = [name for name, (_, trigger) in MODELS.items() if trigger]
CONTROLS = [name for name, (_, trigger) in MODELS.items() if not trigger]


@pytest.fixture(scope="module")
def matrix() -> dict:
    usable = [name for name in CI_PARTITIONERS if why_not(name) is None]
    args = [arg for name in usable for arg in ("--partitioner", name)]
    done = subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "matrix", "--json", *args],
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert done.returncode in (0, 1), done.stderr[-3000:]
    return json.loads(done.stdout)


def _pairs(matrix: dict, **where: object) -> list:
    return [p for p in matrix["pairs"] if all(p[k] == v for k, v in where.items())]


def test_report_what_fails_either_way(matrix: dict, capsys) -> None:
    with capsys.disabled():
        print(f"\nmatrix on executorch {matrix['executorch']}: {matrix['summary']}")
        for pair in _pairs(matrix, outcome="fails both"):
            print(
                f"  fails either way, not #22309: {pair['model']} x"
                f" {pair['partitioner']}: {pair['unpatched']['error']}"
            )
    assert matrix["summary"]["pairs"] == len(matrix["pairs"]) > 0


def test_every_22309_failure_lowers_with_the_backport(matrix: dict) -> None:
    blocked = [p for p in matrix["pairs"] if p["unpatched"]["is_22309"]]
    assert blocked, "no pair showed #22309: the matrix would prove nothing"
    for pair in blocked:
        assert pair["backport"]["lowered"], pair
        assert pair["backport"]["trigger_delegates"] >= 1, pair
        assert pair["outcome"] == "unblocked"


def _lowering_here_unpatched() -> set:
    """The models the release table shows lowering through Vulkan unpatched
    on this ExecuTorch (DINOv2's on 1.0.x: its trigger is not delegated)."""
    rows = release_table.load()["rows"]
    return {
        step.split(" ", 1)[1]
        for row in rows
        if row["executorch"] == installed_version() and row.get("outcome") == "ran"
        for step, result in row["unpatched"].items()
        if step.startswith("vulkan ") and result["ok"]
    }


def test_vulkan_is_blocked_on_every_trigger_model_and_unblocked(matrix: dict) -> None:
    lowering = _lowering_here_unpatched()
    for model in TRIGGER_MODELS:
        (pair,) = _pairs(matrix, model=model, partitioner="vulkan")
        expected = "unchanged" if model in lowering else "unblocked"
        assert pair["outcome"] == expected, pair
    for model in CONTROLS:
        (pair,) = _pairs(matrix, model=model, partitioner="vulkan")
        assert pair["outcome"] == "unchanged", pair


def test_what_lowered_unpatched_is_byte_identical_with_the_backport(
    matrix: dict,
) -> None:
    lowered = [p for p in matrix["pairs"] if p["unpatched"]["lowered"]]
    assert lowered
    for pair in lowered:
        unpatched, backport = pair["unpatched"], pair["backport"]
        assert backport["lowered"], pair
        assert backport["delegates"] == unpatched["delegates"], pair
        digest = pair["compared"]
        assert backport[digest] == unpatched[digest], pair
        # Raw bytes unless the backend has a written reason (fresh UUIDs).
        reason = PARTITIONERS[pair["partitioner"]].uuids
        assert digest == ("pte_sha256" if reason is None else "pte_uuid_blind_digest")


def test_where_a_runtime_exists_outputs_match_eager(matrix: dict) -> None:
    ran = _pairs(matrix, partitioner="xnnpack")
    assert len(ran) == len(MODELS)
    for pair in ran:
        for column in ("unpatched", "backport"):
            assert pair[column]["lowered"], pair
            assert pair[column]["max_abs_error"] is not None, pair
            assert pair[column]["max_abs_error"] <= 1e-4, pair


def test_no_pair_fails_only_with_the_backport(matrix: dict) -> None:
    assert matrix["summary"]["changed"] == 0, _pairs(matrix, outcome="changed")


def test_the_folded_column_runs_on_every_pair(matrix: dict) -> None:
    for pair in matrix["pairs"]:
        assert pair["folding"] in FOLDING, pair
        assert pair["folded"]["seconds"] > 0, pair
    counted = matrix["summary"]["folding"]
    assert sum(counted.values()) == len(matrix["pairs"])


def test_folding_lowers_every_trigger_model_through_vulkan(matrix: dict) -> None:
    for model in TRIGGER_MODELS:
        (pair,) = _pairs(matrix, model=model, partitioner="vulkan")
        assert pair["folded"]["lowered"], pair
        expected = "unblocks" if pair["unpatched"]["is_22309"] else "lowers"
        assert pair["folding"] == expected, pair
