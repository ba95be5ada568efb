"""The patch's commit message: subject, the PR body from ``pr_description.md``
and its trailers. The body stands alone upstream: it names upstream's
commands only, and its Test plan carries measured results only when a proof
of this very patch (``prove --json``) is given; otherwise the commands alone.
"""

import re
import textwrap
from pathlib import Path
from string import Template
from typing import Dict, List, Optional, Sequence

from .evidence import evidence_section

SUBJECT = "Reuse the graph's fake mode when every ExportPass input is a constant"
# As upstream's .github/release.yml spells it.
LABEL = "release notes: exir"
HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "pr_description.md"
TESTS = HERE / "tests_description.md"
TESTS_ONLY_TEMPLATE = HERE / "tests_only_description.md"
TESTS_ONLY_SUBJECT = "Add regression tests for #22309"
IDENTITY = re.compile(r"[^<>\n]+ <[^<>\s]+@[^<>\s]+>")
LINTED = "exir/pass_base.py exir/tests/test_pass_infra.py"

SINGLE_CLASS = (
    "python -m pytest exir/tests/test_pass_infra.py"
    " -k TestExportPassFakeModeOfConstantInputs"
)
COMMANDS = f"""\
```
{SINGLE_CLASS}
python -m pytest exir/tests/test_pass_infra.py
python -m pytest exir/tests
lintrunner {LINTED}
```
"""


def valid_identity(identity: str) -> bool:
    return IDENTITY.fullmatch(identity) is not None


def related(co_authors: Sequence[str]) -> str:
    text = (
        "Related: #22310 by @msluszniak (who reported #22309) and #22891 by"
        " @psiddh (who met it exporting DINOv2 through WebGPU) are open for the"
        " same bug. Their descriptions give the same root cause; #22310's says"
        " it recovers the graph's own fake mode before falling back to a new"
        " one, and #22891's title says it reuses the graph's fake mode for"
        " constant-only submodules. This PR can land in place of either, or its"
        " tests on top of either."
    )
    if co_authors:
        names = ", ".join(who.split(" <")[0] for who in co_authors)
        text += f" Co-authored-by trailers credit {names}."
    return _fill(text)


def _fill(text: str) -> str:
    """Wrapped at 76 columns; a bullet's continuation lines indented under it."""
    indent = "  " if text.startswith("- ") else ""
    return textwrap.fill(
        text, width=76, break_on_hyphens=False, subsequent_indent=indent
    )


def _names(tests: List[str]) -> str:
    return ", ".join(f"`{name}`" for name in tests)


def measured_test_plan(proof: Dict[str, object]) -> str:
    """The Test plan of a proof (one ref of ``prove --json``)."""
    env = proof["environment"]
    data = {step["name"]: step["data"] for step in proof["steps"]}  # type: ignore
    unfixed = data["test_pass_infra.py without the fix"]
    fixed = data["test_pass_infra.py with the fix"]
    static = data["static checks"]
    suite = data["exir/tests differential"]
    head = _fill(
        f"Run on {proof['ref']} at {str(proof['commit'])[:12]} with Python"
        f" {env['python']} and torch {env['torch']} (the commit's `exir/` over"
        f" the compiled parts of an ExecuTorch {env['executorch']} install):"
    )
    flaky = suite["flaky"]
    lines = [
        head,
        "",
        "```",
        "python -m pytest exir/tests/test_pass_infra.py",
        "```",
        _fill(
            f"- without the change to `exir/pass_base.py`: {unfixed['passed']}"
            f" passed, {len(unfixed['failed'])} failed ({_names(unfixed['failed'])});"
        ),
        _fill(f"- with it: {fixed['passed']} passed, {len(fixed['failed'])} failed."),
        "",
        "```",
        "python -m pytest exir/tests --continue-on-collection-errors",
        "```",
        _fill(
            f"- without the change: {suite['unpatched']['passed']} passed,"
            f" {suite['unpatched']['failed']} failed or errored;"
        ),
        _fill(
            f"- with it: {suite['patched']['passed']} passed,"
            f" {suite['patched']['failed']} failed or errored; no test fails"
            " with it that passes without it"
            + (f" ({len(flaky)} failed once and passed on rerun)." if flaky else ".")
        ),
        "",
        "```",
        f"lintrunner {LINTED}",
        "```",
        _fill(
            "What its UFMT and FLAKE8 linters run, at the versions"
            f" `requirements-lintrunner.txt` pins ({static['linters']}), with the"
            " repository's `.flake8` and `pyproject.toml`: no findings. mypy"
            f" {static['mypy']} with `.mypy.ini` on the same two files:"
            f" {static['mypy_errors_before']} errors without the change,"
            f" {static['mypy_errors_after']} with it, none new."
        ),
    ]
    return "\n".join(lines) + "\n"


def _where_tests(build_file: Optional[str]) -> str:
    text = (
        "The tests are in `exir/tests/test_pass_infra.py`, which open-source CI"
        " runs (`pytest.ini` ignores `exir/tests/test_passes.py`)."
    )
    if build_file:
        text += (
            f" The `pass_infra` target in `{build_file}` lists each module they"
            " import as a direct dep."
        )
    return _fill(text)


def _with_trailers(body: str, co_authors: Sequence[str]) -> str:
    trailers = "".join(f"Co-authored-by: {who}\n" for who in co_authors)
    return body.rstrip("\n") + "\n" + ("\n" + trailers if trailers else "")


def commit_message(
    co_authors: Sequence[str],
    proof: Optional[Dict[str, object]] = None,
    evidence: Optional[Dict[str, object]] = None,
    build_file: Optional[str] = None,
) -> str:
    """The body that follows the Subject: line, trailers included.
    ``build_file``: the Buck file the patch adds the tests' deps to."""
    body = Template(TEMPLATE.read_text(encoding="utf-8")).substitute(
        related=related(co_authors),
        where_tests=_where_tests(build_file),
        tests=TESTS.read_text(encoding="utf-8").rstrip("\n"),
        test_plan=measured_test_plan(proof) if proof else COMMANDS,
        evidence="\n" + evidence_section(evidence) if evidence else "",
    )
    return _with_trailers(body, co_authors)


def tests_only_message(
    co_authors: Sequence[str],
    measured: str,
    kills: str,
    build_file: Optional[str],
) -> str:
    """The follow-up's body: ``measured`` is its Test plan's result on the
    tree, ``kills`` the kill table in brief (or empty)."""
    body = Template(TESTS_ONLY_TEMPLATE.read_text(encoding="utf-8")).substitute(
        where_tests=_where_tests(build_file),
        tests=TESTS.read_text(encoding="utf-8").rstrip("\n"),
        kills="\n" + kills if kills else "",
        test_plan=f"```\n{SINGLE_CLASS}\nlintrunner {LINTED}\n```\n{measured}",
    )
    return _with_trailers(body, co_authors)
