"""``releases`` without its venvs: the job a release gets (only the
partitioners it ships) and how a column's worker records become the row
the release table reads."""

from pathlib import Path

from exportpass_fix.diagnosis.evidence.releases import _column, _job
from exportpass_fix.shared.release_table import bitten, cells, fixed, RUNS


def test_a_release_runs_only_the_partitioners_it_ships(tmp_path: Path) -> None:
    (tmp_path / "backends" / "xnnpack" / "partition").mkdir(parents=True)

    job = _job(tmp_path)

    assert job["repro"] and job["constant_subgraph"]
    assert [run["partitioners"] for run in job["runs"]] == [["xnnpack"]]
    (tmp_path / "backends" / "vulkan" / "partitioner").mkdir(parents=True)
    assert len(_job(tmp_path)["runs"]) == len(RUNS)


def _records(lowering_ok: bool) -> list:
    mismatch = {"ok": False, "detail": "AssertionError: fake mode", "is_22309": True}
    lowered = {"ok": True, "detail": "2 delegate(s)"}
    records = [
        {"run": None, "step": "import", "ok": True, "detail": "1.5.1"},
        {"run": None, "step": "issue repro", "ok": lowering_ok, "detail": "x"},
        {
            "run": None,
            "step": "constant subgraph",
            **(lowered if lowering_ok else mismatch),
        },
        {"run": 0, "step": "load", "ok": True, "detail": "exported"},
        {"run": 0, "step": "lower", **(lowered if lowering_ok else mismatch)},
        {"run": 1, "step": "load", "ok": False, "detail": "broken model"},
        {"run": 2, "step": "load", "ok": True, "detail": "exported"},
        {"run": 2, "step": "lower", **lowered},
    ]
    # Every step record carries its status, as the worker emits it.
    return [{**r, "status": "ok" if r["ok"] else "failed"} for r in records]


def test_a_columns_records_become_the_tables_row(tmp_path: Path) -> None:
    (tmp_path / "backends" / "vulkan" / "partitioner").mkdir(parents=True)
    (tmp_path / "backends" / "xnnpack" / "partition").mkdir(parents=True)
    runs = _job(tmp_path)["runs"]
    row = {
        "executorch": "1.5.1",
        "torch": "2.13.0",
        "outcome": "ran",
        "unpatched": _column(_records(False), runs),
        "backport": _column(_records(True), runs),
    }

    unpatched = row["unpatched"]
    assert unpatched["vulkan detr-sine"]["is_22309"]
    # A run that failed before lowering keeps its first failed step.
    assert unpatched["vulkan dinov2-interpolated"]["detail"] == "broken model"
    assert unpatched["xnnpack detr-sine"]["ok"]
    assert bitten(row) and not fixed(row)  # the broken model fails both ways
    assert cells(row)[2:5] == ["x", "fails (#22309)", "2 of 2 fail"]
