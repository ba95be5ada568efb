"""The kill table, by the rule that a variant is wrong only with a witness:
a graph on which this project's fix shows ``one mode`` and the variant a
failure. Every wrong variant (the unfixed ``call`` too) is killed by
upstream's ``test_pass_infra.py`` (with this project's class appended);
every variant without a witness passes it; every new test fails on some
wrong variant; the adversaries' variants are judged too; the committed
record docs/tests.md renders is this run's table. One ``mutants --json``
run, several minutes: marker ``mutants``.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from exportpass_fix.shared.fix_source import what_each_test_pins
from exportpass_fix.upstream.judging.mutants import installed_texts, OK, run_variant
from exportpass_fix.upstream.judging.mutants_report import read_record
from exportpass_fix.upstream.judging.variants import Variant, VARIANTS
from exportpass_fix.upstream.judging.witness_run import all_witnesses, UNFIXED

RECORD = Path(__file__).resolve().parents[3] / "docs" / "records" / "mutants.json"
# The variants each adversary wrote that a witness shows wrong: all it
# called wrong but those wrong only on graphs no user meets (NOT_USERS_GRAPHS):
# adversary-1's meta_val_indexing and constants_only_fallback, adversary-4's
# only_lifted_constant_vals and trust_meta_args.
WRONG_OF_EACH_ADVERSARY = {
    "adversary-1": 20,
    "adversary-2": 18,
    "adversary-3": 12,
    "adversary-4": 20,
    "adversary-5": 17,
    "adversary-6": 15,
}
# Scans of placeholders chosen by position, each wrong where a non-tensor
# input sits elsewhere, and the fallback taken only when every input is real.
POSITIONAL = {
    "first placeholder only",
    "last placeholder only",
    "middle placeholder only",
    "all placeholders but the last",
    "all placeholders but the first",
    "fallback only when every input is a real tensor",
}


@pytest.fixture(scope="module")
def table() -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "mutants", "--json"],
        capture_output=True,
        text=True,
        timeout=3000,
    )
    assert done.returncode in (0, 1), done.stderr[-3000:]
    print("\n" + done.stderr)
    return json.loads(done.stdout)


@pytest.mark.mutants
def test_every_variant_is_judged_and_every_witness_holds_for_the_fix(
    table: dict,
) -> None:
    names = [row["name"] for row in table["variants"]]
    assert names == [v.name for v in VARIANTS] + [UNFIXED]
    assert table["witnesses_failing_the_fix"] == []
    names = {w.name for w in all_witnesses()}  # type: ignore[attr-defined]
    assert set(table["witnesses"]["this project's"]) == names


@pytest.mark.mutants
def test_every_wrong_variant_has_a_witness_and_is_killed(table: dict) -> None:
    wrong = [row for row in table["variants"] if row["wrong"]]
    known = {w.name for w in all_witnesses()}  # type: ignore[attr-defined]
    for row in wrong:
        witness = row["witness"]
        assert witness["name"] in known, row
        assert witness["fix"] == OK and witness["variant"] != OK, row
        assert (
            witness["unfixed"]
            == table["witnesses"]["unfixed upstream"][witness["name"]]
        )
        assert row["killed_by_upstream_class"], row
        assert row["verdict"] == "ok: killed", row
    # The variants reviews found missing: a non-tensor input beside constants;
    # and every one of the contract's and of an adversary but those it calls
    # right.
    assert POSITIONAL | {UNFIXED} <= {row["name"] for row in wrong}
    origins = {row["origin"] for row in table["variants"][:-1]}
    assert {"lead's contract, 38 helper"} | set(WRONG_OF_EACH_ADVERSARY) <= origins
    assert {
        adversary: sum(row["origin"] == adversary for row in wrong)
        for adversary in WRONG_OF_EACH_ADVERSARY
    } == WRONG_OF_EACH_ADVERSARY


@pytest.mark.mutants
def test_every_variant_without_a_witness_passes_test_pass_infra(table: dict) -> None:
    accepted = [row for row in table["variants"] if not row["wrong"]]
    assert {
        "this project's",
        "fallback scan of placeholders",
        "no consistency assertion",  # the contract's 3.: constants alone
        "the first placeholder FakeTensor's mode, unchecked",
    } <= {row["name"] for row in accepted}
    for row in accepted:
        seen = table["witnesses"][row["name"]]
        assert all(
            seen[w] == OK
            for w, fix in table["witnesses"]["this project's"].items()
            if fix == OK
        )
        assert row["killed_by_upstream_class"] == [], row
        assert row["verdict"] == "ok: accepted", row
    ours = table["variants"][0]
    assert ours["passed"] >= 14, ours  # upstream's own tests and the 7 new


@pytest.mark.mutants
def test_each_new_test_fails_on_a_wrong_variant(
    table: dict,
) -> None:
    kills = {
        test
        for row in table["variants"]
        if row["wrong"]
        for test in row["killed_by_upstream_class"]
    }
    new = {name for name, _ in what_each_test_pins()}
    assert len(new) >= 5
    assert new - kills == set(), new - kills


@pytest.mark.mutants
def test_the_committed_record_is_this_run(table: dict) -> None:
    record = read_record(RECORD)
    if record["executorch"] != table["executorch"]:
        pytest.skip(f"the record is of ExecuTorch {record['executorch']}")

    assert record["witnesses"] == table["witnesses"]
    fields = ("name", "wrong", "witness", "killed_by_upstream_class", "verdict")
    assert [{f: row[f] for f in fields} for row in record["variants"]] == [
        {f: row[f] for f in fields} for row in table["variants"]
    ]


@pytest.mark.mutants
def test_a_variant_name_of_any_characters_runs(tmp_path: Path) -> None:
    odd = Variant("a [bracketed] 'quoted' / name", "r", VARIANTS[0].text)

    row = run_variant(0, odd, tmp_path, installed_texts())

    assert row["killed_by_upstream_class"] == []
    assert row["passed"] >= 7
