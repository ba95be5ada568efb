"""The kill table: every wrong variant of ``call`` fails at least one test
of upstream's ``test_pass_infra.py`` (with this project's class appended),
and every right one passes that file and this project's edge-case and
property suites. One ``mutants --json`` run, several minutes: marker
``mutants``."""

import json
import subprocess
import sys

import pytest

from exportpass_fix.upstream.variants import VARIANTS

# The variants issue #13 asks for, by the names the table gives them.
REQUIRED_WRONG = {
    "detect_fake_mode of the inputs",
    "detect_fake_mode of the placeholder vals",
    "placeholders' mode without the python dispatcher",
    "placeholders' mode, allow_non_fake_inputs untouched",
    "first placeholder only",
    "every node's val",
    "inputs() not unwrapping constants",
    "fresh mode, constants re-faked",
    "no consistency assertion",
}
REQUIRED_RIGHT = {
    "this project's",
    "fallback scan of placeholders",
    "fallback scan with find_nodes",
}


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
def test_every_listed_variant_is_in_the_table(table: dict) -> None:
    rows = {row["name"]: row for row in table["variants"]}
    assert {v.name for v in VARIANTS} == set(rows)
    assert {n for n, r in rows.items() if not r["correct"]} >= REQUIRED_WRONG
    assert {n for n, r in rows.items() if r["correct"]} == REQUIRED_RIGHT
    assert table["project_suites"], "the project's suites did not run"


@pytest.mark.mutants
def test_every_wrong_variant_is_killed_by_test_pass_infra(table: dict) -> None:
    survivors = [
        row["name"]
        for row in table["variants"]
        if not row["correct"] and not row["killed_by_upstream_class"]
    ]
    assert survivors == []


@pytest.mark.mutants
def test_every_right_variant_passes_every_test(table: dict) -> None:
    for row in table["variants"]:
        if row["correct"]:
            assert row["killed_by_upstream_class"] == [], row
            assert row["killed_by_project"] == [], row
            assert row["passed"] > 30, row
