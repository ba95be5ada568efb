"""``python -m exportpass_fix cherry-pick --onto release/1.x``: how the
landed fix reaches a release branch, the way ExecuTorch's bot does it.

The bot (``.github/scripts/cherry_pick.py``) takes ``@pytorchbot cherry-pick
--onto BRANCH -c CATEGORY --fixes #N`` on the landed trunk PR, opens the
release-branch PR itself and posts the tracker comment itself, on the open
tracker labelled "release tracker": nothing of that is written by hand. Its
category is read from the committed release table: ``regression`` if an
earlier release lowers what 1.4.x and 1.5.x abort on, else ``critical``.

release/1.4's tracker (#20552) is closed and 1.4.1 has shipped: a pick
lands there only if a 1.4.2 is opened (``--tracker``). The bot's pick would
conflict there (the Buck target lives in ``TARGETS``), so the release/1.4
PR comes from ``patch --tree``, with the comment the bot would have posted.
"""

from dataclasses import dataclass
from typing import Dict, Optional

from ..shared.release_table import bitten_range, cherry_pick_category, load

TO_FILL = "<to be filled by the person who opens it>"


@dataclass(frozen=True)
class ReleaseBranch:
    build_file: str
    closed: str = ""  # why nothing lands there unless a tracker is reopened


RELEASE_BRANCHES: Dict[str, ReleaseBranch] = {
    "release/1.4": ReleaseBranch(
        "exir/tests/TARGETS",
        "its tracker #20552 is closed and 1.4.1 has shipped: a pick lands only"
        " if a 1.4.2 is opened",
    ),
    "release/1.5": ReleaseBranch("exir/tests/targets.bzl"),
}
MAIN_BUILD_FILE = "exir/tests/targets.bzl"


class CherryPickRefused(ValueError):
    """Not a release branch this fix goes to, or options that do not fit."""


def _link(value: Optional[str]) -> str:
    if value is None:
        return TO_FILL
    if value.isdigit():
        return f"https://github.com/pytorch/executorch/pull/{value}"
    return value


def reason(table: Dict[str, object]) -> str:
    first, last = bitten_range(table)
    return (
        f"Why: on ExecuTorch {first} to {last}, lowering aborts (fake mode"
        " mismatch, blamed on FuseBatchNormPass) for any model whose"
        " Vulkan/WebGPU partition computes from no input (sine position"
        " embedding, RoPE cache); the fix changes only graphs whose tensor"
        " inputs are all lifted constants."
    )


def _tracker_comment(
    category: str, trunk_pr: Optional[str], release_pr: Optional[str]
) -> str:
    """What the bot posts on a tracker, in its own words."""
    return "\n".join(
        [
            "Link to landed trunk PR (if applicable):",
            f"* {_link(trunk_pr)}",
            "",
            "Link to release branch PR:",
            f"* {_link(release_pr)}",
            "",
            "Criteria Category:",
            f"{category.capitalize()} - #22309",
        ]
    )


def request(
    onto: str,
    tracker: Optional[int] = None,
    trunk_pr: Optional[str] = None,
    release_pr: Optional[str] = None,
    table: Optional[Dict[str, object]] = None,
) -> str:
    branch = RELEASE_BRANCHES.get(onto)
    if branch is None:
        known = ", ".join(RELEASE_BRANCHES)
        raise CherryPickRefused(
            f"{onto!r} is not a release branch this fix goes to (known: {known})"
        )
    if tracker is not None and not branch.closed:
        raise CherryPickRefused(
            f"--tracker is for a reopened branch; the bot finds {onto}'s open"
            " tracker itself"
        )
    table = table or load()
    category = cherry_pick_category(table)
    if branch.closed and tracker is None:
        return (
            f"Nothing to do on {onto}: {branch.closed}. If one is, rerun with"
            " --tracker N.\n"
        )
    if branch.build_file == MAIN_BUILD_FILE:
        return "\n".join(
            [
                "Comment on the landed trunk PR (the bot opens the"
                f" {onto} PR and posts on the tracker):",
                "",
                f"@pytorchbot cherry-pick --onto {onto} -c {category} --fixes #22309",
                reason(table),
                "",
            ]
        )
    return "\n".join(
        [
            f"The bot's pick of the main commit conflicts on {onto}, which keeps"
            f" the pass_infra Buck target in {branch.build_file} (main:"
            f" {MAIN_BUILD_FILE}). Open the {onto} PR from the patch made for"
            " it:",
            f"  exportpass-fix patch --tree <checkout of {onto}> --proof PROVE.json",
            f"then post on the tracker #{tracker} what the bot would have:",
            "",
            _tracker_comment(category, trunk_pr, release_pr),
            "",
        ]
    )
