"""The committed release table: every release from 1.0.0 has a row, a row
that did not run says why, and the PR body's range of releases and the
cherry-pick category follow from it. (That the docs carry its rendering,
``releases --markdown`` and ``--summary``, is test_docs.py's marker check.)"""

import re

import pytest
from exportpass_fix.diagnosis.evidence.releases import PAIRS
from exportpass_fix.shared import release_table
from exportpass_fix.upstream.cherry_pick import request
from exportpass_fix.upstream.making.pr_description import commit_message

pytestmark = pytest.mark.once


def test_every_release_from_1_0_0_has_a_row_and_says_why_it_did_not_run() -> None:
    table = release_table.load()
    rows = table["rows"]

    assert [(r["executorch"], r["torch"]) for r in rows] == PAIRS
    for row in rows:
        assert row["outcome"] in ("ran", "did not install", "did not import")
        if row["outcome"] != "ran":
            assert row["why"], row
    ran = {r["executorch"] for r in rows if r["outcome"] == "ran"}
    assert {"1.0.0", "1.4.1", "1.5.1"} <= ran


def test_every_bitten_release_is_fixed_by_the_backport() -> None:
    rows = [r for r in release_table.load()["rows"] if r["outcome"] == "ran"]

    for row in rows:
        if release_table.bitten(row):
            assert release_table.fixed(row), row["executorch"]


def test_the_body_and_the_cherry_pick_say_what_the_table_says() -> None:
    table = release_table.load()
    count, first, last = release_table.bitten_count(table)

    body = " ".join(commit_message([], releases=table).split())
    assert f"Each of the {count} releases measured, {first} to {last}, has it." in body
    assert "regression" not in body
    for onto in ("release/1.5", "release/1.4"):
        category = release_table.cherry_pick_category(table, onto)
        assert category == "critical", onto  # every 1.3.x and 1.4.x row aborts
    bot_command = request("release/1.5", table=table)
    assert re.search(r" -c critical --fixes #22309$", bot_command, re.M)


def _row(release: str, lowers: bool) -> dict:
    step = {"ok": lowers, "is_22309": not lowers}
    return {
        "executorch": release,
        "outcome": "ran",
        "unpatched": {"vulkan dinov2-interpolated": step},
    }


def test_regression_only_where_the_line_before_the_target_lowers() -> None:
    table = {
        "rows": [
            _row("1.0.1", True),
            _row("1.1.0", False),
            _row("1.4.1", True),
            _row("1.5.0", False),
            _row("1.5.1", False),
        ]
    }

    assert release_table.cherry_pick_category(table, "release/1.5") == "regression"
    assert release_table.regressions_into(table, (1, 5)) == ["DINOv2 on Vulkan"]
    # 1.1.x regressed on 1.0.x; for release/1.4 the line before, 1.1.x, aborts too.
    assert release_table.cherry_pick_category(table, "release/1.1") == "regression"
    lowering_1_4 = {"rows": [r for r in table["rows"] if r["executorch"] != "1.4.1"]}
    assert release_table.cherry_pick_category(lowering_1_4, "release/1.5") == (
        "critical"
    )
    # A target release that lowers it is no regression of the target line.
    mixed = {"rows": [*table["rows"], _row("1.5.2", True)]}
    assert release_table.cherry_pick_category(mixed, "release/1.5") == "critical"
