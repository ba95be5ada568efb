"""The survey's committed record is well-formed, says what today's code would
say of the lines it holds, and renders as ``survey --from-record`` prints;
the command refuses bad input before anything is imported or written; a
process that ends early gives its step the outcome that ended it."""

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from exportpass_fix.survey import outcomes, record as records
from exportpass_fix.survey.run import drawn

RECORD = Path(__file__).resolve().parent / "survey.json"
KINDS = {"classification", "detection", "segmentation", "video", "optical_flow"}


@pytest.fixture(scope="module")
def record() -> dict:
    found = records.load(RECORD)
    assert found is not None, f"{RECORD} is missing"
    return found


def _survey(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "survey", *args],
        capture_output=True,
        text=True,
    )


def test_the_record_is_made_from_todays_deciding_files(record: dict) -> None:
    today = records.made_from(record["made_from"]["versions"])
    assert records.differs(record, today) is None
    assert record["made_from"]["versions"]["timm"] == "1.0.31"
    assert record["made_from"]["versions"]["torchvision"] == "0.28.0"


def test_the_selection_is_the_smallest_of_each_timm_module_and_torchvision_whole(
    record: dict,
) -> None:
    timm = record["selection"]["timm"]["models"]
    modules = [model["module"] for model in timm]
    assert len(modules) == len(set(modules)) >= 90
    assert all(model["params"] > 0 and len(model["input"]) == 4 for model in timm)
    vision = record["selection"]["torchvision"]["models"]
    assert {model["kind"] for model in vision} == KINDS
    assert {"resnet18", "fasterrcnn_resnet50_fpn", "raft_small"} <= {
        model["name"] for model in vision
    }


def test_every_entry_is_a_selected_model_with_an_outcome_per_lowering(
    record: dict,
) -> None:
    assert set(record["models"]) <= set(records.selected(record))
    for key, entry in record["models"].items():
        rows = outcomes.outcome_rows(entry)
        assert rows, key
        assert all(outcome in outcomes.OUTCOMES for _, _, outcome in rows), key
        # The unpatched process imported nothing of this project; one killed
        # at its limits (timed out, out of memory) reported nothing.
        vulkan = entry.get("lowerings", {}).get("vulkan", {}).get("unpatched", {})
        killed = vulkan.get("outcome") in (outcomes.TIMED_OUT, outcomes.NO_MEMORY)
        if entry.get("export", {}).get("outcome") == "exports" and not killed:
            assert entry["project_modules"]["unpatched"] == [], key


def test_22309_is_recognised_by_the_assertion_text_it_holds(record: dict) -> None:
    for key, entry in record["models"].items():
        for hows in entry.get("lowerings", {}).values():
            for how, result in hows.items():
                said = outcomes.is_22309(result.get("messages", []))
                assert said == (result["outcome"] == outcomes.BITTEN), (key, how)


def test_the_draw_and_the_pte_comparison_are_what_the_seed_and_bytes_say(
    record: dict,
) -> None:
    for key, entry in record["models"].items():
        if "drawn" in entry:
            fraction = record["draw_fraction"]
            assert entry["drawn"] == drawn(record["seed"], key, fraction), key
        if entry.get("same_pte") is not None:
            vulkan = entry["lowerings"]["vulkan"]
            same = vulkan["unpatched"]["pte_sha256"] == vulkan["backport"]["pte_sha256"]
            assert entry["same_pte"] == same, key


def test_the_rendering_is_the_records_counts(record: dict, tmp_path: Path) -> None:
    # A copy: a survey running in this tree rewrites the record as it goes.
    (tmp_path / "survey.json").write_text(json.dumps(record))
    shown = _survey("--from-record", str(tmp_path / "survey.json"))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == records.render(record) + "\n"
    table = Counter()
    for key, entry in record["models"].items():
        for row in outcomes.outcome_rows(entry):
            table[(key.split("/")[0], *row)] += 1
    cells = [[c.strip() for c in line.split("|")] for line in shown.stdout.splitlines()]
    rows = {tuple(c[:4]): int(c[4]) for c in cells if len(c) == 5 and c[4].isdigit()}
    assert rows == dict(table)
    assert shown.stdout.startswith(
        f"{len(record['models'])} of {len(records.selected(record))} models surveyed"
    )


@pytest.mark.parametrize(
    "args, says",
    [
        ([], "give one of --record FILE"),
        (["--record", "no/such/dir/r.json"], "no/such/dir is no directory"),
        (["--record", "r.json", "--only", "resnet18"], "--only takes ZOO/NAME"),
        (["--record", "r.json", "--seconds", "0"], "must be a number > 0"),
        (["--from-record", "missing.json"], "no such record: missing.json"),
    ],
)
def test_bad_input_is_refused_in_one_line_writing_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list, says: str
) -> None:
    monkeypatch.chdir(tmp_path)
    done = _survey(*args)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_record_begun_with_other_limits_is_refused(tmp_path: Path) -> None:
    begun = json.loads(RECORD.read_text())
    path = tmp_path / "r.json"
    path.write_text(json.dumps(begun))
    done = _survey("--record", str(path), "--seconds", "1")
    assert done.returncode == 2
    assert "begun with other limits" in done.stderr, done.stderr
    assert json.loads(path.read_text()) == begun


def test_a_process_killed_mid_step_gives_that_step_its_outcome() -> None:
    lines = [
        {"doing": "build"},
        {"done": "build", "ok": True, "seconds": 1.0},
        {"doing": "export"},
        {"done": "export", "ok": True, "seconds": 2.0},
        {"doing": "lower", "p": "vulkan"},
    ]
    entry = outcomes.of_process(lines, outcomes.TIMED_OUT, ["vulkan"], False)
    assert outcomes.outcome_rows(entry) == [("vulkan", "unpatched", "timed out")]
    killed = outcomes.of_process(lines[:3], outcomes.NO_MEMORY, ["vulkan"], False)
    assert outcomes.outcome_rows(killed) == [("vulkan", "unpatched", "out of memory")]
    apply = [{"doing": "apply"}]
    backport = outcomes.of_process(apply, "exit -9: x", ["vulkan", "xnnpack"], True)
    assert {p: h["backport"]["outcome"] for p, h in backport["lowerings"].items()} == {
        "vulkan": outcomes.OTHER,
        "xnnpack": outcomes.OTHER,
    }


def test_a_model_that_fails_to_export_is_said_not_to_export() -> None:
    failed = {
        "done": "export",
        "ok": False,
        "messages": ["GuardOnDataDependentSymNode"],
    }
    entry = outcomes.of_process([{"doing": "export"}, failed], None, ["vulkan"], False)
    assert outcomes.outcome_rows(entry) == [("vulkan", "unpatched", "does not export")]
    assert entry["export"]["error"] == "export: GuardOnDataDependentSymNode"


def _lowered(unpatched: str, backport: str = "") -> dict:
    hows = {"unpatched": {"outcome": unpatched}}
    return {**hows, "backport": {"outcome": backport}} if backport else hows


def test_the_impact_counts_bites_fixes_through_every_bite_and_the_rest() -> None:
    bit, lowers, other = outcomes.BITTEN, outcomes.LOWERS, outcomes.OTHER
    lowerings = {
        "lowers": {"vulkan": _lowered(lowers)},
        # Fixed: the backport lowers through each partitioner #22309 bit.
        "fixed": {
            "vulkan": _lowered(bit, lowers),
            "webgpu": _lowered(bit, lowers),
            "xnnpack": _lowered(lowers, other),
        },
        "webgpu_only": {"vulkan": _lowered(other), "webgpu": _lowered(bit, lowers)},
        # Not fixed: through one of two; not measured.
        "half": {"vulkan": _lowered(bit, lowers), "webgpu": _lowered(bit, other)},
        "unmeasured": {"vulkan": _lowered(bit)},
        "fails": {"vulkan": _lowered(other), "xnnpack": _lowered(lowers)},
    }
    models = {
        f"timm/{name}": {"export": {"outcome": "exports"}, "lowerings": hows}
        for name, hows in lowerings.items()
    }
    for name, outcome in [("a", "does not export"), ("b", "does not export")]:
        models[f"timm/{name}"] = {"export": {"outcome": outcome}, "lowerings": {}}
    models["timm/slow"] = {"export": {"outcome": "timed out"}, "lowerings": {}}
    names = [key.split("/")[1] for key in models] + ["not_yet"]
    record = {
        "models": models,
        "selection": {
            "torchvision": {"models": [{"name": "alexnet"}]},
            "timm": {"models": [{"name": name} for name in names]},
        },
        "made_from": {"versions": {"executorch": "1.5.2"}},
    }
    # webgpu_only is bitten, but not through Vulkan: it fails otherwise there.
    assert records.impact(record) == (
        "a 1.5.2 survey of 9 of 11 timm and torchvision models through Vulkan:"
        " 1 lower, 3 fail with #22309 (1 of 3 lower with the fix), 2 do not export,"
        " 3 fail otherwise or at the survey's limits"
    )
    for name in ("fixed", "half", "unmeasured"):
        del models[f"timm/{name}"]
    assert records.impact(record) is None


def test_a_failure_is_22309_by_its_assertion_text_alone() -> None:
    text = "fake mode (FakeTensorMode) from tracing context 0 doesn't match mode"
    assert outcomes.of_failure(["RuntimeError: wrapped", text])["outcome"] == (
        outcomes.BITTEN
    )
    other = outcomes.of_failure(["AssertionError: Multiple fake tensor mode"])
    assert other == {
        "outcome": outcomes.OTHER,
        "error": "AssertionError: Multiple fake tensor mode",
    }


def test_a_message_keeps_no_path_of_the_machine_nor_a_short_issue_number() -> None:
    site = "/opt/venv/lib/python3.10/site-packages/torch/export/x.py"
    text = f"in {site}, loading /tmp/survey-1x/model.pt2: node #5 (#22309)"
    assert outcomes.clean(text) == (
        "in torch/export/x.py, loading PATH: node # 5 (#22309)"
    )
