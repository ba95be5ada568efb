"""The patch's commit message, which is the PR body: at most 30 lines of at
most 72 columns (trailers included), in upstream's words only. It says what
breaks and for whom, the root cause, the change, ``Fixes #22309``, one
sentence on the other PRs and a Test plan: upstream's commands with what
they printed when a proof of this very patch (``prove --json``) is given,
the commands alone otherwise. What does not fit (the behaviour changes, the
trigger, the evidence) is in the project's docs/upstream.md.
"""

import textwrap
from pathlib import Path
from string import Template
from typing import Dict, Optional, Sequence

from ...shared.fix_source import (
    PASS_BASE,
    TEST_CLASS,
    TEST_PASS_INFRA,
    what_each_test_rules_out,
)
from ...shared.release_table import bitten_count

SUBJECT = "Reuse the graph's fake mode when every ExportPass input is a constant"
TESTS_ONLY_SUBJECT = "Add regression tests for #22309"
# As upstream's .github/release.yml spells it.
LABEL = "release notes: exir"
WIDTH = 72
MAX_LINES = 30
HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "pr_description.md"
TESTS_ONLY_TEMPLATE = HERE / "tests_only_description.md"
FILES = f"{PASS_BASE} {TEST_PASS_INFRA}"
SUITE = "exir/tests --continue-on-collection-errors"
LINTERS = [f"ufmt check {FILES}", f"flake8 {FILES}"]

BREAKS = (
    'lowering aborts with "fake mode ... doesn\'t match mode ..." (blamed on'
    " `FuseBatchNormPass`) when a partitioner delegates a subgraph whose only"
    " inputs are lifted constants, as Vulkan and WebGPU do for a sine"
    " position embedding or a RoPE cache computed in `forward`."
)
CAUSE = (
    "`_ExportPassBase.call` takes the fake mode from `self.inputs()`, which"
    " returns lifted constants as real tensors: with only constants it finds"
    " none and retraces under a new mode, so the graph ends with two. This"
    ' takes the mode from the placeholders\' `meta["val"]` when `inputs()`'
    " has no FakeTensor. #22310 (@msluszniak) and #22891 (@psiddh) address"
    " the same bug."
)


def fill(text: str, indent: str = "") -> str:
    return textwrap.fill(
        text, width=WIDTH, break_on_hyphens=False, subsequent_indent=indent
    )


def _counts(run: Dict[str, object]) -> str:
    """Tests counted by id, which pytest's subtest reporting does not change."""
    failed = run["failed"]
    count = len(failed) if isinstance(failed, list) else int(str(failed))
    return f"{count} of {int(str(run['passed'])) + count} fail"


def _suite_result(suite: Dict[str, object], env: Dict[str, str]) -> str:
    unpatched, patched = suite["unpatched"], suite["patched"]
    assert isinstance(unpatched, dict) and isinstance(patched, dict)
    text = f"{_counts(unpatched)} / {_counts(patched)}"
    if patched["failed"]:
        text += f" (the same {patched['failed']}, in this setup: a wheel's compiled" + (
            " parts, no torchvision)" if not env.get("torchvision") else " parts)"
        )
    return text


def _pytest_version(env: Dict[str, str]) -> str:
    return f" (pytest {env['pytest']})" if env.get("pytest") else ""


def measured_test_plan(proof: Dict[str, object]) -> str:
    """The Test plan of one ref of ``prove --json``: each upstream command,
    and what it printed without / with the change."""
    env = proof["environment"]
    assert isinstance(env, dict) and isinstance(proof["steps"], list)
    data = {step["name"]: step["data"] for step in proof["steps"]}
    unfixed = data["test_pass_infra.py without the fix"]
    fixed = data["test_pass_infra.py with the fix"]
    lint = (
        f"`ufmt check` and `flake8` on `{PASS_BASE}` and"
        f" `{TEST_PASS_INFRA}`: no findings ({data['static checks']['linters']})."
    )
    return "\n".join(
        [
            fill(
                f"On {proof['ref']} at {str(proof['commit'])[:12]} with Python"
                f" {env['python']}, torch {env['torch']} and ExecuTorch"
                f" {env['executorch']}'s compiled parts, tests counted by id"
                f"{_pytest_version(env)}, without / with the change:"
            ),
            fill(
                f"- `python -m pytest {TEST_PASS_INFRA}`: {_counts(unfixed)} / {_counts(fixed)}.",
                "  ",
            ),
            fill(
                f"- `python -m pytest {SUITE}`:"
                f" {_suite_result(data['exir/tests differential'], env)}.",
                "  ",
            ),
            fill(f"- {lint}", "  "),
        ]
    )


def commands_test_plan() -> str:
    """The Test plan without a proof: upstream's commands alone."""
    commands = [f"python -m pytest {TEST_PASS_INFRA}", f"python -m pytest {SUITE}"]
    return "\n".join(f"    {command}" for command in commands + LINTERS)


def with_trailers(body: str, co_authors: Sequence[str]) -> str:
    trailers = "".join(f"Co-authored-by: {who}\n" for who in co_authors)
    return body.rstrip("\n") + "\n" + ("\n" + trailers if trailers else "")


def commit_message(
    co_authors: Sequence[str],
    proof: Optional[Dict[str, object]] = None,
    releases: Optional[Dict[str, object]] = None,
) -> str:
    """The body that follows the Subject: line, trailers included;
    ``releases``: the release table (``release_table.load()``), whose
    measured range of releases the summary names."""
    measured = ""
    if releases:
        count, first, last = bitten_count(releases)
        measured = f"All {count} releases measured, {first} to {last}, have it."
    body = Template(TEMPLATE.read_text(encoding="utf-8")).substitute(
        summary=fill(f"Fixes #22309: {BREAKS} {measured}".strip()),
        cause=fill(CAUSE),
        test_plan=measured_test_plan(proof) if proof else commands_test_plan(),
    )
    return with_trailers(body, co_authors)


def tests_and_what_they_rule_out() -> str:
    """One bullet per new test: its name and the wrong fix it rules out."""
    return "\n".join(
        fill(f"- `{name}`: {why[0].lower()}{why[1:]}", "  ")
        for name, why in what_each_test_rules_out()
    )


def tests_only_message(co_authors: Sequence[str], context: str, measured: str) -> str:
    """The tests-only body: ``context`` says what fix they go with,
    ``measured`` what the tests printed on the tree."""
    body = Template(TESTS_ONLY_TEMPLATE.read_text(encoding="utf-8")).substitute(
        context=fill(f"{context} What each test rules out or keeps:"),
        tests=tests_and_what_they_rule_out(),
        test_plan=(
            f"    python -m pytest {TEST_PASS_INFRA} \\\n"
            f"        -k {TEST_CLASS}\n\n" + fill(measured)
        ),
    )
    return with_trailers(body, co_authors)
