"""``python -m exportpass_fix cherry-pick --onto release/1.x``: how the
landed fix reaches a release branch, the way ExecuTorch's bot does it.

The bot (``.github/scripts/cherry_pick.py``) takes ``@pytorchbot cherry-pick
--onto BRANCH -c CATEGORY --fixes #N`` on the landed trunk PR, opens the
release-branch PR itself and posts the tracker comment itself, on the open
tracker labelled "release tracker": nothing of that is written by hand. Its
category is read from the committed release table: ``regression`` if the
release line before the target (1.4.x for release/1.5) lowers what the
target's releases abort on, else ``critical`` (the trackers' first
criterion: critical fixes in core components, exir among them).

1.5.1 has shipped (2026-09-18, pytorch/test-infra #8837): the command for
release/1.5 applies once a 1.5.2 release tracker opens; until a patch
release opens, users get the fix from main's next release. It does not
name this project's backport: upstream reads "backport" as a pick.

release/1.4's tracker (#20552) is closed and 1.4.1 has shipped: a pick
lands there only if a 1.4.2 is opened (``--tracker``). The bot's pick would
conflict there (the Buck target lives in ``TARGETS``), so the release/1.4
PR comes from ``patch --tree``, with the comment the bot would have posted.
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Tuple

from ..shared.release_table import (
    bitten_range,
    cherry_pick_category,
    load,
    regressions_into,
)
from ..survey import record as survey_record

TO_FILL = "<to be filled by the person who opens it>"


@dataclass(frozen=True)
class ReleaseBranch:
    build_file: str
    closed: str = ""  # why nothing lands there unless a tracker is reopened
    shipped: str = ""  # the branch's last release, when it shipped


RELEASE_BRANCHES: Dict[str, ReleaseBranch] = {
    "release/1.4": ReleaseBranch(
        "exir/tests/TARGETS",
        "its tracker #20552 is closed and 1.4.1 has shipped: a pick lands only"
        " if a 1.4.2 is opened",
    ),
    "release/1.5": ReleaseBranch(
        "exir/tests/targets.bzl", shipped="1.5.1 has shipped (2026-09-18)"
    ),
}
UNTIL_THEN = "Until a patch release opens, users get the fix from main's next release."
MAIN_BUILD_FILE = "exir/tests/targets.bzl"


def _next_patch(onto: str) -> str:
    """The patch release a pick onto ``onto`` would land in."""
    shipped = RELEASE_BRANCHES[onto].shipped.split()[0]  # "1.5.1"
    major, minor, patch = shipped.split(".")
    return f"{major}.{minor}.{int(patch) + 1}"


class CherryPickRefused(ValueError):
    """Not a release branch this fix goes to, or options that do not fit."""


def _link(value: Optional[str]) -> str:
    if value is None:
        return TO_FILL
    if value.isdigit():
        return f"https://github.com/pytorch/executorch/pull/{value}"
    return value


def surveyed(path: str, onto: str) -> str:
    """The counts of the survey recorded at ``path``, if it is of a release
    of ``onto``'s line and #22309 bit in it."""
    try:
        record = survey_record.load(Path(path)) if path else None
        if record is None:
            raise FileNotFoundError("no such file")
        said = survey_record.impact(record)
        version = str(record["made_from"]["versions"]["executorch"])
    except (ValueError, OSError, LookupError, TypeError, AttributeError) as error:
        why = " ".join(f"{type(error).__name__}: {error}".split())  # one line
        raise CherryPickRefused(f"--survey {path!r}: {why}") from None
    if not re.fullmatch(re.escape(onto.split("/")[-1]) + r"\.\d+", version):
        raise CherryPickRefused(f"--survey {path!r} is of {version!r}, not {onto}")
    if said is None:
        raise CherryPickRefused(f"--survey {path!r}: no model failed with #22309")
    return said


def reason(table: Dict[str, object], onto: str, impact: Optional[str] = None) -> str:
    """The one line posted beside the bot command; ``impact``: a survey's."""
    first, last = bitten_range(table)
    regressed = regressions_into(table, _line(onto))
    why = (
        f"a regression: {', '.join(regressed)} lowered on the line before"
        if regressed
        else f"critical: in every release measured, {first} to {last}"
    )
    return (
        f"Why ({why}): lowering aborts with a fake mode mismatch when a"
        " partitioner delegates a subgraph whose only inputs are lifted"
        " constants (on 1.5.1, Vulkan and WebGPU did, for #22309's sine table;"
        f" #22891 reports DINOv2 on WebGPU{'; ' + impact if impact else ''});"
        " outside the tests, the change is to _ExportPassBase.call alone."
    )


def _line(onto: str) -> Tuple[int, ...]:
    return tuple(int(part) for part in onto.rsplit("/", 1)[-1].split("."))


def _tracker_comment(
    category: str, trunk_pr: Optional[str], release_pr: Optional[str]
) -> str:
    """A tracker comment, in the format of the bot's."""
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
    survey: Optional[str] = None,
) -> str:
    branch = RELEASE_BRANCHES.get(onto)
    if branch is None:
        known = ", ".join(RELEASE_BRANCHES)
        raise CherryPickRefused(
            f"{onto!r} is not a release branch this fix goes to (known: {known})"
        )
    if tracker is not None and not branch.closed:
        raise CherryPickRefused(
            f"--tracker is for a reopened branch, not {onto}, whose tracker is"
            " not closed"
        )
    if tracker is not None and trunk_pr is None:
        raise CherryPickRefused(
            "--tracker needs --trunk-pr: the landed change the release PR picks"
        )
    if survey is not None and branch.build_file != MAIN_BUILD_FILE:
        raise CherryPickRefused(f"--survey: what {onto} gets has no reason to cite it")
    impact = surveyed(survey, onto) if survey is not None else None
    table = table or load()
    category = cherry_pick_category(table, onto)
    if branch.closed and tracker is None:
        return (
            f"Nothing to do on {onto}: {branch.closed}. If one is, rerun with"
            f" --tracker N --trunk-pr N.\n{UNTIL_THEN}\n"
        )
    if branch.build_file == MAIN_BUILD_FILE:
        return "\n".join(
            [
                f"{branch.shipped}. The command below applies once a"
                f" {_next_patch(onto)} release tracker opens.",
                UNTIL_THEN,
                "",
                "On the landed trunk PR:",
                "",
                f"@pytorchbot cherry-pick --onto {onto} -c {category} --fixes #22309",
                reason(table, onto, impact),
                "",
            ]
        )
    return "\n".join(
        [
            f"The patch made on main does not apply to {onto}, which keeps the"
            f" pass_infra Buck target in {branch.build_file} (main:"
            f" {MAIN_BUILD_FILE}). Open the {onto} PR from the patch made for"
            " it:",
            f"  exportpass-fix patch --tree <checkout of {onto}> --pick-of"
            f" {trunk_pr} --proof PROVE.json",
            f"then post on the tracker #{tracker}:",
            "",
            _tracker_comment(category, trunk_pr, release_pr),
            "",
        ]
    )
