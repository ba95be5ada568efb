"""The patch's commit message, which is the PR body: at most 30 lines of at
most 72 columns, trailers included. It says what breaks and where, the
cause, the change, and a Test plan: what upstream's commands printed in a
proof of this patch (``prove --json``), else the commands alone. Main's
body credits the reporter and says why it exists (#22310 and #22891 closed
unmerged); a release branch's names the change it picks."""

import re
import textwrap
from pathlib import Path
from string import Template
from typing import Dict, Optional, Sequence, Tuple

from ...shared.fix_source import (
    PASS_BASE,
    TEST_CLASS,
    TEST_PASS_INFRA,
    what_each_test_pins,
)
from ...shared.release_table import bitten_count
from .evidence import new_test_names, PYTEST_PIN_FILE

# What the change does, for every graph it changes; at most WIDTH columns.
SUBJECT = "ExportPass: retrace graphs of lifted constants in their own fake mode"
TESTS_ONLY_SUBJECT = "Add regression tests for #22309"
LABEL = "release notes: exir"  # as upstream's .github/release.yml spells it
WIDTH = 72
MAX_LINES = 30
HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "pr_description.md"
TESTS_ONLY_TEMPLATE = HERE / "tests_only_description.md"
FILES = f"{PASS_BASE} {TEST_PASS_INFRA}"
SUITE = "exir/tests --continue-on-collection-errors"
# The Test plan without a proof: upstream's commands alone.
COMMANDS = [f"python -m pytest {TEST_PASS_INFRA}", f"python -m pytest {SUITE}"]
COMMANDS += [f"ufmt check {FILES}", f"flake8 {FILES}"]

BREAKS = (
    "when the only tensor inputs of a graph are lifted constants (ints and"
    " SymInts beside them included), `ExportPass` retraces it under a new fake"
    ' mode and lowering aborts with "fake mode ... doesn\'t match mode ...".'
)
# The pass the error is blamed on is the one running: FuseBatchNormPass
# through Vulkan and WebGPU (WebGPU's partitioner wraps Vulkan's) alone.
WHO = (
    "On 1.5.1 it reproduces through Vulkan and WebGPU, which delegate such"
    " subgraphs for some tables computed in `forward`; there the error names"
    " `FuseBatchNormPass`."
)
CAUSE = (
    "`_ExportPassBase.call` takes the mode from `self.inputs()`, which returns"
    " lifted constants as real tensors, so it finds none; this takes it from"
    ' the placeholders\' `meta["val"]` then. Only graphs whose `inputs()` show'
    " no FakeTensor change: they trace in their placeholders' mode, else in a"
    " new one; constants of two modes raise, as inputs do."
)
# The one case the standalone PR is for, as the user states it: the fixes
# proposed before it, #22310 and #22891, closed unmerged.
REPLACES = (22310, 22891)
CREDIT = (
    "The root cause is @msluszniak's (#22309, #22310); this PR exists because"
    " #22310 and #22891 (@psiddh's fix of the same cause, for DINOv2 on"
    " WebGPU) were closed unmerged."
)


def fill(text: str, indent: str = "") -> str:
    return textwrap.fill(text, WIDTH, break_on_hyphens=False, subsequent_indent=indent)


def pin_in_words(pin: str) -> str:
    """A tree's pytest pin as a body says it."""
    return f"{PYTEST_PIN_FILE} pins `pytest{pin}`" if pin else "no pin"


def _counts(run: Dict[str, object]) -> Tuple[int, int]:
    """Failed and all tests by id, which pytest's subtest reporting does not change."""
    failed = run["failed"]
    count = len(failed) if isinstance(failed, list) else int(str(failed))
    return count, int(str(run["passed"])) + count


def _suite_counts(suite: Dict[str, Dict]) -> str:
    """The suite's counts before and after. A module pytest cannot collect
    is one failed case (``::module``) in junit's counts: said apart from the
    tests where every failure fails in both runs, else counted with them."""
    failed, total = _counts(suite["unpatched"])
    failed_after, total_after = _counts(suite["patched"])
    both = suite.get("failed_both") or {}
    if len(both) != failed or failed != failed_after:
        return (
            f"{failed} of {total} fail or cannot be collected before,"
            f" {failed_after} of {total_after} after."
        )
    modules = sum(1 for case in both if case.startswith("::"))
    tests = failed - modules
    said = f"no new failure, the same {tests} fail of {total - modules} and"
    said += f" {total_after - modules}"
    if modules:  # a module pytest cannot collect, as the command's flag says
        said += f"; {modules} collection error{'s' * (modules > 1)} in both"
    return said + "."


def measured_test_plan(proof: Dict[str, object], elsewhere: Sequence[str] = ()) -> str:
    """The Test plan of one ref of ``prove --json``: each upstream command
    and what it printed, each saying what it is compared with; ``elsewhere``:
    how the proof's run differs from where this patch was made."""
    env = proof["environment"]
    assert isinstance(env, dict) and isinstance(proof["steps"], list)
    data = {step["name"]: step["data"] for step in proof["steps"]}
    name = "test_pass_infra.py %s the fix"
    without, with_fix = data[name % "without"], data[name % "with"]
    unfixed, fixed = ("%d of %d" % _counts(run) for run in (without, with_fix))
    failed = without["failed"] if isinstance(without["failed"], list) else []
    both = sorted(set(failed) & set(with_fix["failed"] or []))
    others = len(new_test_names() - set(failed))
    guard = f" (`{'`, `'.join(both)}` both ways)" * bool(both) + "."
    if others:  # pinning what upstream's call does and a fix keeps
        guard += f" The other {others} new tests pass either way."
    suite = _suite_counts(data["exir/tests differential"])
    said = [
        f"On {proof['ref']} at {str(proof['commit'])[:12]}, its `exir/` in place of"
        f" an installed ExecuTorch {env['executorch']}'s, which the tests import"
        f" (Python {env['python']}, torch {env['torch']},"
        f" pytest {env['pytest']}; {pin_in_words(env.get('pytest_pin', ''))}):",
        f"- `python -m pytest {TEST_PASS_INFRA}`: {unfixed} fail unfixed,"
        f" {fixed} with the fix{guard}",
        f"- `python -m pytest {SUITE}`: {suite}",
        f"- `ufmt check`, `flake8`: no findings ({data['static checks']['linters']}).",
    ]
    if elsewhere:
        said.append(f"Quoted from that run, not made here: {'; '.join(elsewhere)}.")
    # A list item wraps under its text.
    return "\n".join(fill(line, "  " if line[:2] == "- " else "") for line in said)


def with_trailers(body: str, co_authors: Sequence[str]) -> str:
    trailers = "".join(f"Co-authored-by: {who}\n" for who in co_authors)
    return body.rstrip("\n") + "\n" + ("\n" + trailers if trailers else "")


def picked(change: str) -> str:
    """``--pick-of``'s value as the body names it: ``#N`` for a PR, main's
    commit for a hash; '' when it is neither."""
    number = change.removeprefix("https://github.com/pytorch/executorch/pull/")
    if number.isdecimal():  # as the regular expression \d+ matches
        return f"#{number}"
    if re.fullmatch(r"[0-9a-f]{7,40}", change):
        return f"main's {change[:12]}"
    return ""


def body_misfit(closed_unmerged: Sequence[int], pick_of: Optional[str]) -> str:
    """Why these options cannot make a full patch's body, or ''."""
    if closed_unmerged and pick_of is not None:
        return "--closed-unmerged is for main's PR, --pick-of for a release branch's"
    if pick_of is not None and not picked(pick_of):
        return f"--pick-of {pick_of}: not a PR number, pull URL or commit"
    if pick_of is None and sorted(set(closed_unmerged)) != list(REPLACES):
        return (
            "the standalone PR is only for #22310 and #22891 closed unmerged:"
            " pass --closed-unmerged 22310 22891 once they are (for a release"
            " branch, --pick-of the landed change)"
        )
    return ""


def commit_message(
    co_authors: Sequence[str],
    proof: Optional[Dict[str, object]] = None,
    releases: Optional[Dict[str, object]] = None,
    pick_of: Optional[str] = None,
    elsewhere: Sequence[str] = (),
) -> str:
    """The body after the Subject: line, trailers included: main's standalone
    PR (``pick_of`` None: only once #22310 is closed unmerged, as the user
    states), or a release branch's pick of the landed ``pick_of``.
    ``releases``: the release table, whose measured releases it names;
    ``elsewhere``: how the proof's run differs from where the patch is made."""
    opening = "Fixes"
    if pick_of is not None:
        onto = proof["ref"] if proof else "this release branch"
        opening = f"Picks {picked(pick_of)} onto {onto}, for"
    measured = ""
    if releases:
        count, first, last = bitten_count(releases)
        measured = f" Each of the {count} releases measured, {first} to {last}, has it."
    commands = "\n".join(f"    {command}" for command in COMMANDS)
    body = Template(TEMPLATE.read_text(encoding="utf-8")).substitute(
        summary=fill(f"{opening} #22309: {BREAKS}{measured} {WHO}"),
        cause=fill(CAUSE) + f"\n\n{fill(CREDIT)}" * (pick_of is None),
        test_plan=measured_test_plan(proof, elsewhere) if proof else commands,
    )
    return with_trailers(body, co_authors)


def tests_only_message(co_authors: Sequence[str], context: str, measured: str) -> str:
    """The tests-only body: ``context`` (what fix they go with), what each new
    test pins, and ``measured``: what the file printed, fixed and unfixed."""
    pins = what_each_test_pins()
    listed = "\n".join(fill(f"- `{name}`: {pin}", "  ") for name, pin in pins)
    body = Template(TESTS_ONLY_TEMPLATE.read_text(encoding="utf-8")).substitute(
        context=fill(
            f"{context} {len(pins)} tests in a new class, `{TEST_CLASS}`, at"
            f" the end of `{TEST_PASS_INFRA}`:"
        )
        + f"\n{listed}",
        test_plan=fill(measured),  # its first sentence quotes the command
    )
    return with_trailers(body, co_authors)
