"""The kill table: ``judge_run.py`` judges every variant of ``call`` in
``judge_variants.json`` by the witnesses (programs a user meets through
ExecuTorch) and runs this project's tests under it; every wrong variant
(the unfixed ``call`` too) must fail them, every acceptable one pass them.
A fresh run (marker ``mutants``, minutes) must judge as the committed record
does; the record is what docs/tests.md shows; the data is well formed."""

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from judge_report import read_record, render

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
RECORD = REPO / "docs" / "records" / "mutants.json"
VARIANTS = json.loads((HERE / "judge_variants.json").read_text())
AUDIT = json.loads((HERE / "witness_audit.json").read_text())
SOURCE = "python test/upstream/judging/judge_report.py docs/records/mutants.json"


def _judged(table: dict) -> dict:
    # What a run decides of each variant; the record holds no time or value.
    return {
        r["name"]: (r["judged"], r["witness"], r["failing_tests"], r["verdict"])
        for r in table["variants"]
    }


@pytest.mark.mutants
def test_a_fresh_run_judges_as_the_committed_record() -> None:
    done = subprocess.run(
        [sys.executable, str(HERE / "judge_run.py")],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    print(done.stderr[-3000:])
    assert done.returncode == 0, done.stderr[-3000:]
    assert _judged(json.loads(done.stdout)) == _judged(read_record(RECORD))


@pytest.mark.once
def test_the_record_judged_every_variant_right() -> None:
    table = read_record(RECORD)
    record = json.loads(RECORD.read_text())
    assert record["command"] == "python test/upstream/judging/judge_run.py"
    assert record["exit_status"] == 0 and not table["witnesses_failing_the_fix"]
    assert {r["verdict"] for r in table["variants"]} <= {"ok: killed", "ok: accepted"}
    names = [r["name"] for r in table["variants"]]
    assert names == [v["name"] for v in VARIANTS] + ["unfixed upstream"]


@pytest.mark.once
def test_tests_md_shows_the_rendered_record() -> None:
    page = (REPO / "docs" / "tests.md").read_text(encoding="utf-8")
    block = page.split(f"<!-- output of: {SOURCE} -->\n", 1)[1]
    block = block.split("<!-- end of output -->", 1)[0]
    assert block.strip("\n") == render(read_record(RECORD))


@pytest.mark.once
def test_each_variant_is_data_with_its_origin_class_and_reason() -> None:
    names = [v["name"] for v in VARIANTS]
    assert len(names) == len(set(names))
    for variant in VARIANTS:
        assert set(variant) == {"name", "origin", "class", "reason", "text"}
        assert variant["class"] in ("wrong", "acceptable"), variant["name"]
        assert variant["origin"] and variant["reason"], variant["name"]
        fix = variant["name"] == "this project's"  # its text: exir/pass_base.py
        assert (variant["text"] is None) == fix, variant["name"]


@pytest.mark.once
def test_every_older_witness_is_kept_as_a_witness_or_dropped_with_its_reason() -> None:
    flows = read_record(RECORD)["flows"]
    witnesses = {name for names in flows.values() for name in names}
    for old, fate in AUDIT["witnesses"].items():
        assert set(fate) in ({"kept_as"}, {"dropped"}), old
        assert fate.get("kept_as", next(iter(witnesses))) in witnesses, old
        assert fate.get("dropped", "active") in AUDIT["reasons"], old


@pytest.mark.once
def test_a_file_that_is_not_a_record_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    done = subprocess.run(
        [sys.executable, str(HERE / "judge_report.py"), str(bad)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("judge_report.py: ") and "not a record" in done.stderr


@pytest.mark.once
def test_the_judge_orders_every_new_test_and_only_those() -> None:
    # judge_run.py's TEST_ORDER, read without importing it (it imports torch).
    run = ast.parse((HERE / "judge_run.py").read_text())
    (order,) = [
        ast.literal_eval(node.value)
        for node in run.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "TEST_ORDER"
    ]
    tests = (REPO / "exir" / "tests" / "test_pass_infra.py").read_text()
    assert sorted(order) == sorted(re.findall(r"\n    def (test_\w+)\(", tests))


@pytest.mark.once
def test_every_new_test_fails_with_some_wrong_fix() -> None:
    # The tests-only message says so of those that pass on the unfixed call.
    tests = (REPO / "exir" / "tests" / "test_pass_infra.py").read_text()
    failing = [r["failing_tests"] for r in read_record(RECORD)["variants"]]
    for test in re.findall(r"\n    def (test_\w+)\(", tests):
        assert any(test in names for names in failing), test
