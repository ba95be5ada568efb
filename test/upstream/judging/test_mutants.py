"""The kill table, by the rule that a variant is wrong only with a witness:
a graph on which this project's fix shows ``one mode`` and the variant a
failure. Every wrong variant is killed by upstream's ``test_pass_infra.py``
(with this project's class appended); every variant without a witness
passes it. One ``mutants --json`` run, several minutes: marker ``mutants``.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from exportpass_fix.shared.fix_source import what_each_test_rules_out
from exportpass_fix.upstream.judging.mutants import installed_texts, OK, run_variant
from exportpass_fix.upstream.judging.variants import Variant, VARIANTS
from exportpass_fix.upstream.judging.witnesses import WITNESSES


@pytest.fixture(scope="module")
def table() -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "mutants", "--json"],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode in (0, 1), done.stderr[-3000:]
    print("\n" + done.stderr)
    return json.loads(done.stdout)


@pytest.mark.mutants
def test_every_variant_is_judged_and_every_witness_holds_for_the_fix(
    table: dict,
) -> None:
    assert [row["name"] for row in table["variants"]] == [v.name for v in VARIANTS]
    assert table["witnesses_failing_the_fix"] == []
    assert set(table["witnesses"]["this project's"]) == {w.name for w in WITNESSES}


@pytest.mark.mutants
def test_every_wrong_variant_has_a_witness_and_is_killed(table: dict) -> None:
    wrong = [row for row in table["variants"] if row["wrong"]]
    assert len(wrong) >= 5, [row["name"] for row in wrong]
    known = {w.name for w in WITNESSES}
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
    # The variant the review found missing: constants beside an int input.
    assert "fallback only when every input is a real tensor" in {
        row["name"] for row in wrong
    }


@pytest.mark.mutants
def test_every_variant_without_a_witness_passes_test_pass_infra(table: dict) -> None:
    accepted = [row for row in table["variants"] if not row["wrong"]]
    assert {"this project's", "fallback scan of placeholders"} <= {
        row["name"] for row in accepted
    }
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
def test_each_test_that_says_it_rules_out_a_wrong_fix_kills_one(table: dict) -> None:
    kills = {
        test.rsplit("::", 1)[-1]
        for row in table["variants"]
        if row["wrong"]
        for test in row["killed_by_upstream_class"]
    }
    for name, why in what_each_test_rules_out():
        assert (name in kills) == why.startswith("Rules out "), (name, why)


@pytest.mark.mutants
def test_a_variant_name_of_any_characters_runs(tmp_path: Path) -> None:
    odd = Variant("a [bracketed] 'quoted' / name", "r", VARIANTS[0].text)

    row = run_variant(0, odd, tmp_path, installed_texts())

    assert row["killed_by_upstream_class"] == []
    assert row["passed"] >= 7
