"""`check` against the survey (check_survey.py): the committed record agrees
with the survey's record on every check it holds, planned as the seed and
the survey's outcomes say; check's columns read as the survey's outcomes;
"where" is sorted into the table's line, its call site in forward, or
neither; the rendering says how much of the survey it covers; bad input
is refused in one line. Marker ``survey``: one bitten model checked again."""

import json
import subprocess
import sys
from pathlib import Path

import check_render
import check_survey
import check_verdicts

import pytest
import record_sources
from exportpass_fix.survey import outcomes, record as records

HERE = Path(__file__).resolve().parent
SURVEY = HERE / "survey.json"
RECORD = HERE / "check_survey.json"


@pytest.fixture(scope="module")
def survey() -> dict:
    return records.load(SURVEY)


@pytest.fixture(scope="module")
def record() -> dict:
    return json.loads(RECORD.read_text())


def _step(step: str, status: str = "ok", **more: object) -> dict:
    return {"run": 0, "step": step, "status": status, **more}


def test_every_check_agrees_with_the_survey_as_it_stands(
    survey: dict, record: dict
) -> None:
    assert record["checks"]
    for key, check in record["checks"].items():
        model, partitioner = key.split()
        entry = survey["models"][model]
        assert check["survey"] == check_survey._survey_says(entry, partitioner), key
        assert check["agrees"] is True, (key, check["survey"], check["check"])


def test_the_record_holds_checks_of_the_plan_of_its_seed(
    survey: dict, record: dict
) -> None:
    # The survey is whole, so the record holds today's plan, all of it:
    # each biting partitioner of each bitten model, and the draw of its seed.
    planned = check_survey.planned(survey, record["seed"])
    held = {key: check["why"] for key, check in record["checks"].items()}

    assert held == {f"{model} {p}": why for model, p, why in planned}
    assert "bitten" in held.values() and "drawn" in held.values()


def test_the_plan_is_every_biting_partitioner_then_as_many_drawn() -> None:
    def entry(**hows: str) -> dict:
        lowerings = {p: {"unpatched": {"outcome": o}} for p, o in hows.items()}
        return {"export": {"outcome": "exports"}, "lowerings": lowerings}

    bitten = entry(vulkan=outcomes.BITTEN, webgpu=outcomes.BITTEN)
    models = {f"z/m{n}": entry(vulkan=outcomes.LOWERS) for n in range(6)}
    models.update({"z/b": bitten, "z/o": entry(vulkan=outcomes.OTHER)})
    survey = {"models": models}

    plan = check_survey.planned(survey, 1)

    assert plan[:2] == [("z/b", "vulkan", "bitten"), ("z/b", "webgpu", "bitten")]
    assert [why for _, _, why in plan[2:]] == ["drawn"]
    assert plan[2][0].startswith("z/m") and plan[2][1] == "vulkan"
    other_seeds = {check_survey.planned(survey, seed)[2][0] for seed in range(20)}
    assert len(other_seeds) > 1  # the seed decides the draw


def test_check_columns_read_as_the_surveys_outcomes() -> None:
    load, lower = _step("load"), _step("lower")
    columns = {
        "unpatched": [load, _step("lower", "failed", is_22309=True)],
        "backport": [load, lower, _step("to_executorch"), _step("run", "not run")],
        "folded": [load, _step("lower", "failed", is_22309=True)],
    }
    found = check_verdicts.of_check({"columns": columns})
    other = check_verdicts._column([load, lower, _step("to_executorch", "failed")])

    assert found == {
        "unpatched": outcomes.BITTEN,
        "backport": outcomes.LOWERS,
        "folded": outcomes.BITTEN,
    }
    assert other == outcomes.OTHER
    assert check_verdicts._column([load]) == "ended early"
    assert check_verdicts.agrees(
        {"unpatched": outcomes.BITTEN, "backport": None}, found
    )
    assert not check_verdicts.agrees(
        {"unpatched": outcomes.LOWERS, "backport": None}, found
    )


@pytest.mark.parametrize(
    "file, function, code, points_at",
    [
        ("timm/models/a.py", "forward", "t = torch.arange(n).float() * 2", "table"),
        ("timm/models/a.py", "forward", "x = x + self.pos_embed", "table"),
        ("timm/models/a.py", "forward", "xs = self.forward_features(x)", "call site"),
        ("timm/models/a.py", "forward", "r = build_rope(x.shape[1])", "call site"),
        ("timm/models/a.py", "forward", "attn = cal_rel_pos_type(", "call site"),
        ("torchvision/ops/b.py", "forward", "t = torch.arange(n)", "neither"),
        ("", None, "", "neither"),
    ],
)
def test_where_points_at_the_table_its_call_site_or_neither(
    file: str, function: str, code: str, points_at: str
) -> None:
    source = {"file": file, "function": function, "code": code}
    assert check_verdicts.points_at(source, "timm") == points_at


def test_the_rendering_says_how_much_of_the_survey_it_covers(
    survey: dict, record: dict
) -> None:
    shown = check_render.render(record, survey)
    bitten = records.bitten(survey)

    flat = " ".join(shown.split())
    assert f"of the {len(bitten)} bitten (each biting partitioner" in flat
    assert all(f"\n{key} (" in shown for key in bitten)
    drawn = [c for c in record["checks"].values() if c["why"] == "drawn"]
    folded = sum(c["check"].get("folded") == outcomes.LOWERS for c in drawn)
    assert f"lower, and {folded} of {len(drawn)} drawn ones." in flat
    unmet = {**record, "checks": {}}
    unmet_flat = " ".join(check_render.render(unmet, survey).split())
    assert f"and on 0 of the {len(bitten)} bitten" in unmet_flat
    assert "check not run yet" in check_render.render(unmet, survey)


def test_the_record_is_made_from_todays_check() -> None:
    record = json.loads(RECORD.read_text())
    path = "test/survey/check_survey.json"
    assert record_sources.stale(path, record) is None
    assert "exir/diagnosis/checking/check.py" in record["made_from"]["files"]
    assert not any(
        name.startswith("exir/survey/") for name in record["made_from"]["files"]
    )


def _script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(HERE / "check_survey.py"), *args],
        capture_output=True,
        text=True,
    )


def test_from_record_prints_the_rendering(survey: dict, record: dict) -> None:
    done = _script("--survey", str(SURVEY), "--from-record", str(RECORD))

    assert done.returncode == 0, done.stderr
    assert done.stdout == check_render.render(record, survey) + "\n"


@pytest.mark.parametrize(
    "args, says",
    [
        (["--survey", "missing.json", "--from-record", "r.json"], "no such survey"),
        (["--survey", str(SURVEY), "--from-record", "missing.json"], "no such record"),
        (["--survey", str(RECORD), "--from-record", "r.json"], "is no survey record"),
        (["--survey", str(SURVEY), "--record", "no/such/r.json"], "no/such is no"),
    ],
)
def test_bad_input_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list, says: str
) -> None:
    monkeypatch.chdir(tmp_path)
    done = _script(*args)

    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.survey
def test_a_bitten_model_checked_again_gives_the_records_outcomes(
    survey: dict, record: dict
) -> None:
    pytest.importorskip(
        "torchvision",
        reason="torchvision cannot be imported here: its wheels link the CUDA"
        " build of torch (the survey's environment is Python 3.10 with it)",
    )
    pytest.importorskip("timm", reason="timm is not installed (it needs torchvision)")
    key = next(k for k, c in record["checks"].items() if c["why"] == "bitten")
    model, partitioner = key.split()

    again = check_survey.run_one(survey, model, partitioner, lambda line: None)

    assert again["check"] == record["checks"][key]["check"]
    assert again["where"] == record["checks"][key]["where"]
