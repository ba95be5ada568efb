"""``cherry-pick --onto``: the release tracker's comment and how to get the
fix onto the branch, with the risk taken from the PR body's own list."""

import subprocess
import sys

import pytest

from exportpass_fix.upstream.cherry_pick import behaviour_changes, TO_FILL
from exportpass_fix.upstream.pr_description import commit_message


def _cherry_pick(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "cherry-pick", *args],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_release_1_5_gets_the_tracker_comment_and_the_bot_command() -> None:
    text = _cherry_pick("--onto", "release/1.5", "--trunk-pr", "23001")

    assert text.startswith("Comment on the release tracker #22188:\n")
    lines = text.splitlines()
    trunk = lines.index("Link to landed trunk PR (if applicable):")
    assert lines[trunk + 1] == "* https://github.com/pytorch/executorch/pull/23001"
    release = lines.index("Link to release branch PR:")
    assert lines[release + 1] == f"* {TO_FILL}"
    category = lines[lines.index("Criteria Category:") + 1]
    assert category.startswith("* Special Dispensation (core component: exir).")
    for needle in ("VulkanPartitioner", "WebGPUPartitioner", "Fixes #22309"):
        assert needle in category
    assert lines[-1] == (
        "@pytorchbot cherry-pick --onto release/1.5 -c critical --fixes #22309"
    )
    assert "conflict" not in text


def test_risk_is_the_behaviour_change_list_of_the_pr_body() -> None:
    changes = behaviour_changes()
    body = " ".join(commit_message([]).split())
    text = " ".join(_cherry_pick("--onto", "release/1.5").split())

    assert len(changes) == 5
    for change in changes:
        assert change in body and change in text
    assert any("Multiple fake tensor mode detected." in c for c in changes)


def test_release_1_4_points_to_its_own_patch_instead_of_the_bot() -> None:
    text = _cherry_pick(
        "--onto",
        "release/1.4",
        "--release-pr",
        "https://github.com/pytorch/executorch/pull/23002",
    )

    assert text.startswith("Comment on the release tracker #20552:\n")
    assert "* https://github.com/pytorch/executorch/pull/23002" in text
    assert f"* {TO_FILL}" in text  # the trunk PR, not given
    assert "@pytorchbot" not in text
    flat = " ".join(text.split())
    assert "conflicts on release/1.4" in flat
    assert "exir/tests/TARGETS (main: exir/tests/targets.bzl)" in flat
    assert "patch --tree <checkout of release/1.4>" in flat


@pytest.mark.parametrize("branch", ["release/1.4", "release/1.5"])
def test_the_comment_names_no_placeholder_but_the_links(branch: str) -> None:
    text = _cherry_pick("--onto", branch, "--trunk-pr", "1", "--release-pr", "2")
    comment = text.split("\n\nThe bot")[0].split("\n\nDo not ask")[0]
    assert "<" not in comment and TO_FILL not in comment
