"""The patch's commit message, which is the PR body: at most 30 lines of at
most 72 columns (trailers included), in upstream's words only. It says what
breaks and for whom, the root cause, the change, ``Fixes #22309``, one
sentence on the other PRs and a Test plan: upstream's commands with what
they printed when a proof of this very patch (``prove --json``) is given,
the commands alone otherwise. What does not fit (the behaviour changes, the
trigger, the evidence) is in the project's docs/upstream.md.
"""

import re
import textwrap
from pathlib import Path
from string import Template
from typing import Dict, List, Optional, Sequence

from ..shared.release_table import regression_sentence

SUBJECT = "Reuse the graph's fake mode when every ExportPass input is a constant"
TESTS_ONLY_SUBJECT = "Add regression tests for #22309"
# As upstream's .github/release.yml spells it.
LABEL = "release notes: exir"
WIDTH = 72
MAX_LINES = 30
HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "pr_description.md"
TESTS = HERE / "tests_description.md"
TESTS_ONLY_TEMPLATE = HERE / "tests_only_description.md"
IDENTITY = re.compile(r"[^<>\n]+ <[^<>\s]+@[^<>\s]+>")
FILES = "exir/pass_base.py exir/tests/test_pass_infra.py"
TEST_FILE = "exir/tests/test_pass_infra.py"
SUITE = "exir/tests --continue-on-collection-errors"
LINTERS = [f"black --check {FILES}", f"usort check {FILES}", f"flake8 {FILES}"]

BREAKS = (
    "Lowering aborts for models whose partitioner delegates a subgraph"
    " computed from no input, such as a sine position embedding, a RoPE"
    " cache or an interpolated position table: with VulkanPartitioner or"
    ' WebGPUPartitioner, `to_edge_transform_and_lower` fails with "fake'
    " mode ... doesn't match mode ...\", reported as an error of"
    " `FuseBatchNormPass`."
)
CAUSE = (
    "`_ExportPassBase.call` takes the fake mode from `self.inputs()`, which"
    " gives a lifted constant's real `.constant` tensor instead of its"
    " FakeTensor. When every input is such a constant no mode is found, and"
    " the graph is retraced under a new one while its placeholders keep"
    " theirs. This change takes the mode from the placeholders'"
    ' `meta["val"]` when `inputs()` yields no FakeTensor.'
)
RELATED = (
    "#22310 (@msluszniak) and #22891 (@psiddh) address the same bug; this"
    " PR is for the case that neither lands."
)


def valid_identity(identity: str) -> bool:
    return IDENTITY.fullmatch(identity) is not None


def fill(text: str, indent: str = "") -> str:
    return textwrap.fill(
        text, width=WIDTH, break_on_hyphens=False, subsequent_indent=indent
    )


def _counts(run: Dict[str, object]) -> str:
    failed = run["failed"]
    count = len(failed) if isinstance(failed, list) else failed
    return f"{run['passed']} passed, {count} failed"


def _suite_result(suite: Dict[str, object]) -> str:
    unpatched, patched = suite["unpatched"], suite["patched"]
    assert isinstance(unpatched, dict) and isinstance(patched, dict)
    text = (
        f"without the change {_counts(unpatched)}, with it {_counts(patched)};"
        " none fails only with it."
    )
    reasons = suite.get("failure_reasons")
    if isinstance(reasons, str) and reasons:
        text += f" {reasons}"
    return text


def measured_test_plan(proof: Dict[str, object]) -> str:
    """The Test plan of one ref of ``prove --json``."""
    env = proof["environment"]
    assert isinstance(env, dict) and isinstance(proof["steps"], list)
    data = {step["name"]: step["data"] for step in proof["steps"]}
    unfixed = data["test_pass_infra.py without the fix"]
    fixed = data["test_pass_infra.py with the fix"]
    lines = [
        fill(
            f"On {proof['ref']} at {str(proof['commit'])[:12]} with Python"
            f" {env['python']}, torch {env['torch']} and the compiled parts of"
            f" ExecuTorch {env['executorch']}:"
        ),
        "",
        f"    python -m pytest {TEST_FILE}",
        "",
        fill(f"without the change {_counts(unfixed)}; with it {_counts(fixed)}."),
        "",
        f"    python -m pytest {SUITE}",
        "",
        fill(_suite_result(data["exir/tests differential"])),
        "",
        *[f"    {command}" for command in LINTERS],
        "",
        fill(f"no findings ({data['static checks']['linters']})."),
    ]
    return "\n".join(lines)


def commands_test_plan() -> str:
    """The Test plan without a proof: upstream's commands alone."""
    commands = [f"python -m pytest {TEST_FILE}", f"python -m pytest {SUITE}"]
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
    ``releases``: the release table (``release_table.load()``)."""
    regression = regression_sentence(releases) if releases else ""
    body = Template(TEMPLATE.read_text(encoding="utf-8")).substitute(
        summary=fill(f"Fixes #22309. {BREAKS} {regression}".strip()),
        cause=fill(CAUSE),
        related=fill(RELATED),
        test_plan=measured_test_plan(proof) if proof else commands_test_plan(),
    )
    return with_trailers(body, co_authors)


def tests_only_message(co_authors: Sequence[str], context: str, measured: str) -> str:
    """The tests-only body: ``context`` says what fix they go with,
    ``measured`` what the tests printed on the tree."""
    body = Template(TESTS_ONLY_TEMPLATE.read_text(encoding="utf-8")).substitute(
        context=fill(f"{context} The tests check what users see:"),
        tests=TESTS.read_text(encoding="utf-8").rstrip("\n"),
        test_plan=(
            f"    python -m pytest {TEST_FILE} \\\n"
            "        -k TestExportPassFakeModeOfConstantInputs\n\n" + fill(measured)
        ),
    )
    return with_trailers(body, co_authors)


def body_lines(message: str) -> List[str]:
    return message.rstrip("\n").splitlines()
