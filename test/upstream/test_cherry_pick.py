"""``cherry-pick --onto``: the bot's command and one line of reason for
release/1.5, with the category the committed release table gives, and that
1.5.1 has shipped, and with --survey the survey's counts; for
release/1.4, that its tracker is closed, or, for a reopened one, the
branch's own PR, made with --pick-of, and the tracker comment."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from exportpass_fix.shared import release_table
from exportpass_fix.survey import record as survey_record
from exportpass_fix.upstream.cherry_pick import request, TO_FILL

pytestmark = pytest.mark.once

BOT = re.compile(
    r"@pytorchbot cherry-pick --onto release/1\.5 -c critical --fixes #22309"
)


def _cherry_pick(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "cherry-pick", *args],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_release_1_5_gets_the_bot_command_and_one_line_of_reason() -> None:
    lines = _cherry_pick("--onto", "release/1.5").splitlines()

    commands = [line for line in lines if BOT.fullmatch(line)]
    assert len(commands) == 1
    assert [line for line in lines if "@pytorchbot" in line] == commands
    reason = lines[lines.index(commands[0]) + 1]
    assert reason.startswith("Why (critical: in every release") and "Vulkan" in reason
    assert "only graphs whose tensor inputs" not in reason
    # 1.5.1 has shipped: when the command applies, and where users get the
    # fix until then.
    text = " ".join(lines)
    assert "1.5.1 has shipped (2026-09-18)" in text
    assert "once a 1.5.2 release tracker opens" in text
    # Not this project's backport: upstream reads "backport" as a pick.
    assert "main's next release" in text and "backport" not in text
    # Nothing the bot posts itself, and nothing said of what it does.
    assert "Criteria Category" not in text and "Link to" not in text
    assert "the bot" not in text
    # The backends named are measured on #22309's model; DINOv2 is #22891's word.
    assert "as Vulkan and WebGPU do" not in reason
    assert "Vulkan and WebGPU did, for #22309's sine table" in reason
    assert "#22891 reports DINOv2 on WebGPU" in reason
    assert all(len(line) <= 100 for line in lines if line != reason)


def test_a_surveys_counts_join_the_reason_within_its_parentheses() -> None:
    survey = Path(__file__).resolve().parents[1] / "survey" / "survey.json"
    lines = _cherry_pick("--onto", "release/1.5", "--survey", str(survey)).splitlines()

    (reason,) = [line for line in lines if line.startswith("Why (")]
    impact = survey_record.impact(json.loads(survey.read_text()))
    assert impact is not None and impact.startswith("a 1.5.1 survey of ")
    assert f"#22891 reports DINOv2 on WebGPU; {impact});" in reason


def test_the_category_follows_the_table() -> None:
    table = release_table.load()
    rows = [row for row in table["rows"] if row.get("outcome") == "ran"]
    since_1_5 = [r for r in rows if r["executorch"].startswith("1.5.")]
    lowering_1_4 = {
        **since_1_5[0],
        "executorch": "1.4.9",
        "unpatched": {
            name: {**step, "ok": True, "is_22309": None}
            for name, step in since_1_5[0]["unpatched"].items()
        },
    }

    assert "-c critical " in request("release/1.5", table=table)
    regressed = {"rows": [lowering_1_4, *since_1_5]}
    text = request("release/1.5", table=regressed)
    assert "-c regression " in text and "Why (a regression: " in text
    assert "DINOv2 on Vulkan" in text


def test_release_1_4_says_its_tracker_is_closed() -> None:
    text = " ".join(_cherry_pick("--onto", "release/1.4").split())

    assert "tracker #20552 is closed and 1.4.1 has shipped" in text
    assert "rerun with --tracker N --trunk-pr N" in text
    assert "@pytorchbot" not in text and "Criteria Category" not in text


def test_a_reopened_1_4_gets_its_own_pr_and_the_bots_comment() -> None:
    text = _cherry_pick(
        "--onto",
        "release/1.4",
        "--tracker",
        "24000",
        "--trunk-pr",
        "23001",
        "--release-pr",
        "https://github.com/pytorch/executorch/pull/23002",
    )

    flat = " ".join(text.split())
    assert "@pytorchbot" not in text
    assert "The patch made on main does not apply to release/1.4" in flat
    assert "exir/tests/TARGETS (main: exir/tests/targets.bzl)" in flat
    assert "patch --tree <checkout of release/1.4> --pick-of 23001" in flat
    assert "the tracker #24000" in flat
    category = release_table.cherry_pick_category(release_table.load(), "release/1.4")
    comment = text.split("\n\n", 1)[1].strip().splitlines()
    assert comment == [
        "Link to landed trunk PR (if applicable):",
        "* https://github.com/pytorch/executorch/pull/23001",
        "",
        "Link to release branch PR:",
        "* https://github.com/pytorch/executorch/pull/23002",
        "",
        "Criteria Category:",
        f"{category.capitalize()} - #22309",
    ]
    assert TO_FILL not in text
