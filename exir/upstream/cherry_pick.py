"""``python -m exportpass_fix cherry-pick --onto release/1.x``: what the
release tracker asks for, once the fix has landed on main.

ExecuTorch's release process: land on main first, open (do not land) a PR
against the release branch, and comment on the release's tracker issue with
both links and the criteria category, in the format the cherry-pick bot
posts (``.github/scripts/cherry_pick.py``). A change to ``exir`` is a core
component change: it needs Special Dispensation, with the reason written
out. The risk statement is the patch's own list of behaviour changes.
"""

import re
from dataclasses import dataclass
from typing import Dict, List, Optional

from .pr_description import TEMPLATE


@dataclass(frozen=True)
class ReleaseBranch:
    tracker: int
    # Where the pass_infra Buck target lives on the branch.
    build_file: str


RELEASE_BRANCHES: Dict[str, ReleaseBranch] = {
    "release/1.4": ReleaseBranch(20552, "exir/tests/TARGETS"),
    "release/1.5": ReleaseBranch(22188, "exir/tests/targets.bzl"),
}
MAIN_BUILD_FILE = "exir/tests/targets.bzl"
TO_FILL = "<to be filled by the person who opens it>"
REASON = (
    "Special Dispensation (core component: exir). Without it, lowering"
    " aborts for any model whose partitioner delegates a subgraph whose only"
    " inputs are lifted constants (a sine position embedding, a RoPE cache,"
    " an interpolated position table): `to_edge_transform_and_lower` fails"
    ' with "fake mode ... doesn\'t match mode ..." wrapped as an error of'
    " FuseBatchNormPass. Measured with VulkanPartitioner and"
    " WebGPUPartitioner; XNNPACK and the other partitioners tried lower the"
    " same programs unchanged with the fix. Fixes #22309."
)


class CherryPickRefused(ValueError):
    """Not a release branch this fix goes to."""


def behaviour_changes() -> List[str]:
    """The bullets of the PR body's "Behaviour changes." paragraph."""
    body = TEMPLATE.read_text(encoding="utf-8")
    section = body.split("Behaviour changes.", 1)[1].split("\n\n", 1)[0]
    bullets = re.split(r"\n- ", section)[1:]
    return [" ".join(bullet.split()) for bullet in bullets]


def _link(value: Optional[str]) -> str:
    if value is None:
        return TO_FILL
    if value.isdigit():
        return f"https://github.com/pytorch/executorch/pull/{value}"
    return value


def request(onto: str, trunk_pr: Optional[str], release_pr: Optional[str]) -> str:
    branch = RELEASE_BRANCHES.get(onto)
    if branch is None:
        known = ", ".join(RELEASE_BRANCHES)
        raise CherryPickRefused(
            f"{onto!r} is not a release branch this fix goes to (known: {known})"
        )
    risk = "\n".join(f"  - {change}" for change in behaviour_changes())
    comment = "\n".join(
        [
            f"Comment on the release tracker #{branch.tracker}:",
            "",
            "Link to landed trunk PR (if applicable):",
            f"* {_link(trunk_pr)}",
            "",
            "Link to release branch PR:",
            f"* {_link(release_pr)}",
            "",
            "Criteria Category:",
            f"* {REASON}",
            "",
            "Risk: only graphs whose inputs() yield no FakeTensor while a"
            ' placeholder\'s meta["val"] is one behave differently:',
            risk,
        ]
    )
    if branch.build_file == MAIN_BUILD_FILE:
        how = "\n".join(
            [
                "The bot, in a comment on the landed trunk PR:",
                f"@pytorchbot cherry-pick --onto {onto} -c critical --fixes #22309",
            ]
        )
    else:
        how = "\n".join(
            [
                f"Do not ask the bot: its pick of the main commit conflicts on {onto},"
                f" which keeps the pass_infra Buck target in {branch.build_file}"
                f" (main: {MAIN_BUILD_FILE}).",
                f"Open the release-branch PR from the patch made for {onto}:",
                f"  python -m exportpass_fix patch --tree <checkout of {onto}>",
            ]
        )
    return comment + "\n\n" + how + "\n"
