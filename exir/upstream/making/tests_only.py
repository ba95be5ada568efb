"""``patch --tests-only``: the regression tests alone (their imports and
Buck deps too), for a tree whose ``call`` already behaves fixed, first of
all #22310's branch (``--for-pr 22310`` also writes ``comment.md`` for it),
or as a follow-up once it has landed. Whether it behaves fixed is decided
by running the new tests on the tree's ``exir/pass_base.py`` laid over the
installed package, not by its fingerprint; where any fails, the patch is
refused. The file is run on the tree's ``call`` and on the installed unfixed
one, under a pytest satisfying the tree's pin (``evidence.fitting_pytest``).
"""

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Dict, Optional, Sequence, Tuple

from ...shared.fix_source import (
    PASS_BASE,
    PATCHED_METHOD,
    TEST_CLASS,
    TEST_PASS_INFRA,
    what_each_test_pins,
)
from ...shared.report import progress

from .buck_deps import has_build_files
from .evidence import (
    fails_as_unfixed,
    file_run,
    FileRun,
    fitting_pytest,
    new_test_names,
    pytest_pin,
    PYTEST_PIN_FILE,
    PytestUnfit,
    unfixed_pass_base,
)
from .mail_patch import write_patch
from .patch import check_writable, PatchRefused, planned_test_changes, read_tree_file
from .pr_description import fill, pin_in_words, tests_only_message, TESTS_ONLY_SUBJECT
from .trees import environment, git_output, merged_as

COMMENT = "comment.md"
COMMENT_TEMPLATE = Path(__file__).resolve().parent / "tests_only_comment.md"


@dataclass(frozen=True)
class Measured:
    """The file with the new tests, on the tree's ``call`` (fixed) and on
    the installed ExecuTorch's unfixed ``call`` in its place (unfixed)."""

    fixed: FileRun
    unfixed: FileRun
    new_tests: int
    commit: Optional[str]
    environment: Dict[str, str]

    def sentences(self, others_too: bool = True) -> str:
        """The run and its counts, each sentence short; ``others_too``: and
        the new tests that pass either way (the comment, at most 15 lines,
        leaves them to the commit's message)."""
        env, unfixed = self.environment, len(self.unfixed.failed)
        whose = "that commit's" if self.commit else "this tree's"
        where = f"At {self.commit[:12]}" if self.commit else "On this tree"
        both = sorted(set(self.fixed.failed) & set(self.unfixed.failed))
        others = self.new_tests - (unfixed - len(both))
        same = f" (`{'`, `'.join(both)}`, both ways)" * bool(both)
        new = "all new tests" if unfixed > 1 else "a new test"
        if both:
            new = f"{unfixed - len(both)} of them new tests"
        said = [
            f"{where}, with these tests, `python -m pytest {TEST_PASS_INFRA}`"
            f" runs {self.fixed.total} tests.",
            f"{whose.capitalize()} `{PASS_BASE}` and `{TEST_PASS_INFRA}` replaced"
            f" those of an installed ExecuTorch {env['executorch']}.",
            f"The run used Python {env['python']}, torch {env['torch']} and"
            f" pytest {env['pytest']} ({pin_in_words(env.get('pytest_pin', ''))}).",
            f"With {whose} `_ExportPassBase.call`, {_fail(len(self.fixed.failed))}{same}.",
            f"With {env['executorch']}'s unfixed one in its place,"
            f" {_fail(unfixed)}, {new}.",
        ]
        failing = {name.rsplit("::", 1)[-1] for name in self.unfixed.failed}
        order = [name for name, _ in what_each_test_pins()]  # as the body lists
        either = [_ORDINAL[order.index(n)] for n in order if n not in failing]
        listed = ", ".join(either[:-1]) + f" and {either[-1]}" if others > 1 else ""
        if others > 1 and others_too:  # what upstream's call does, a fix keeps
            said.append(f"The other {others}, listed {listed} above, pass either way.")
        elif others and others_too:
            said.append(f"The other, listed {either[0]} above, passes either way.")
        return " ".join(said)


_ORDINAL = ("1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th")


def _fail(count: int) -> str:
    return f"{count} {'fails' if count == 1 else 'fail'}"


def new_tests_on(tree: Path, new_test: str) -> Measured:
    """The file with the new tests, run whole on the tree's ``call`` and on
    the installed unfixed one; ``PatchRefused`` naming the new tests that
    fail on the tree's ``call``, or when the unfixed run is not as it must."""
    pin_file = tree / PYTEST_PIN_FILE
    pin = pytest_pin(pin_file.read_text(encoding="utf-8") if pin_file.is_file() else "")
    pass_base = read_tree_file(tree, PASS_BASE)
    with tempfile.TemporaryDirectory(prefix="exportpass-tests-only-") as work:
        try:
            pytest = fitting_pytest(pin, str(tree), Path(work), progress)
        except PytestUnfit as unfit:
            raise PatchRefused(str(unfit)) from None
        fixed = file_run(tree, pass_base, new_test, Path(work) / "fixed", pytest.path)
        failing = sorted(set(fixed.failed) & new_test_names())
        if failing:
            raise PatchRefused(
                f"{tree}: its {PASS_BASE} does not behave fixed: the new tests"
                f" would fail there ({', '.join(failing)}); make the full patch"
                " instead (without --tests-only)"
            )
        unfixed_base = unfixed_pass_base(tree, pass_base)
        unfixed = file_run(
            tree, unfixed_base, new_test, Path(work) / "unfixed", pytest.path
        )
    if not fails_as_unfixed(set(unfixed.failed) - set(fixed.failed)):
        raise PatchRefused(
            f"{tree}: with the unfixed {PATCHED_METHOD} the failures are not only"
            f" new tests ({', '.join(unfixed.failed) or 'none fail'})"
        )
    env = environment(pytest.version) | {"pytest_pin": pin}
    commit = git_output(tree, "rev-parse", "HEAD")
    return Measured(fixed, unfixed, len(new_test_names()), commit, env)


def context(for_pr: Optional[int], merged: Optional[str]) -> str:
    """The body's first sentence: which fix the tests go with."""
    if for_pr is None:
        return (
            "Regression tests for #22309, for a tree whose"
            " `_ExportPassBase.call` already keeps the graph's fake mode."
        )
    if merged is None:
        return f"Tests for #{for_pr}, the fix for #22309."
    return (
        f"Follow-up to #{for_pr}, which fixed #22309 (merged as"
        f" {merged[:12]}): regression tests for it."
    )


def comment(author: str, patch: Path, measured: Measured, deps: bool) -> str:
    """What to post on the PR: at most 15 lines."""
    text = Template(COMMENT_TEMPLATE.read_text(encoding="utf-8")).substitute(
        measured=measured.sentences(others_too=False),
        new_tests=measured.new_tests,
        test_class=TEST_CLASS,
        patch=patch.name,
        deps=", with the Buck deps of its imports" if deps else "",
        author=author,
    )
    return "\n\n".join(fill(part) for part in text.strip().split("\n\n")) + "\n"


def make_tests_patch(
    tree: Path,
    out_dir: Path,
    author: str,
    co_authors: Sequence[str] = (),
    for_pr: Optional[int] = None,
) -> Tuple[Path, Optional[Path]]:
    """Write the tests-only patch for ``tree`` (and, for a PR, its comment);
    refuse (``PatchRefused``, nothing written) where the tests would fail."""
    if not tree.is_dir():
        raise PatchRefused(f"{tree}: no such directory")
    if changed := git_output(tree, "status", "--porcelain", "--untracked-files=no"):
        raise PatchRefused(
            f"{tree}: uncommitted changes ({changed.splitlines()[0].strip()}):"
            " the message names the commit the tests ran on; commit or stash them"
        )
    changes = planned_test_changes(tree)
    check_writable(out_dir)
    measured = new_tests_on(tree, changes[0].new)
    merged = merged_as(tree, for_pr) if for_pr is not None else None
    message = tests_only_message(
        co_authors,
        context(for_pr, merged),
        measured.sentences(),
    )
    patch = write_patch(
        out_dir,
        sorted(changes, key=lambda c: c.path),
        author,
        TESTS_ONLY_SUBJECT,
        message,
    )
    if for_pr is None or merged is not None:
        return patch, None  # a follow-up is a PR of its own, not a comment
    target = out_dir.resolve() / COMMENT
    with tempfile.NamedTemporaryFile(
        "w", dir=out_dir, prefix=".comment-", delete=False, encoding="utf-8"
    ) as handle:
        handle.write(comment(author, patch, measured, has_build_files(tree)))
    os.replace(handle.name, target)
    return patch, target
