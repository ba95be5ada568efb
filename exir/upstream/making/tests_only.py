"""``patch --tests-only``: the regression tests alone (their imports and
Buck deps too), for a tree whose ``call`` already behaves fixed by any
correct variant, first of all #22310's branch: the contribution most likely
to merge is these tests offered to #22310 (``--for-pr 22310`` also writes
``comment.md`` for that PR), or as a follow-up once it has landed.

Whether the tree's ``call`` behaves fixed is decided by running the new
tests against it (the tree's ``exir/pass_base.py`` laid over the installed
package), not by its fingerprint. Where any fails, the patch is refused.
"""

import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Dict, Optional, Sequence, Tuple

from ...shared.fix_source import PASS_BASE, TEST_CLASS, TEST_PASS_INFRA

from .buck_deps import has_build_files
from .mail_patch import write_patch
from .patch import check_writable, PatchRefused, planned_test_changes, read_tree_file
from .pr_description import fill, tests_only_message, TESTS_ONLY_SUBJECT
from .trees import environment, linked_tree, run_pytest

COMMENT = "comment.md"
COMMENT_TEMPLATE = Path(__file__).resolve().parent / "tests_only_comment.md"


@dataclass(frozen=True)
class Measured:
    passed: int
    commit: Optional[str]
    environment: Dict[str, str]

    def sentence(self, place: str = "this tree") -> str:
        env = self.environment
        where = f"at {self.commit[:12]}" if self.commit else "(not a git checkout)"
        return (
            f"On {place} {where} with Python {env['python']}, torch"
            f" {env['torch']} and the compiled parts of ExecuTorch"
            f" {env['executorch']}: {self.passed} passed, 0 failed."
        )


def _git(tree: Path, *args: str) -> Optional[str]:
    done = subprocess.run(
        ["git", "-C", str(tree), *args], capture_output=True, text=True
    )
    if done.returncode != 0 or not done.stdout.strip():
        return None
    return done.stdout.strip()


def merged_as(tree: Path, pr: int) -> Optional[str]:
    """The commit of ``tree``'s history that landed PR ``pr`` (GitHub's
    squash subject ``(#N)`` or a ``pull/N`` link), if any."""
    return _git(
        tree, "log", "-1", "--format=%H", "-E", f"--grep=\\(#{pr}\\)|/pull/{pr}\\b"
    )


def new_tests_on(tree: Path, new_test: str) -> Measured:
    """The new tests run against the tree's ``call``; ``PatchRefused``
    naming the tests that fail there."""
    pass_base = read_tree_file(tree, PASS_BASE)
    with tempfile.TemporaryDirectory(prefix="exportpass-tests-only-") as work:
        linked = linked_tree(
            Path(work), {PASS_BASE: pass_base, TEST_PASS_INFRA: new_test}
        )
        run = run_pytest(linked, [TEST_PASS_INFRA], ["-k", TEST_CLASS])
    failed = sorted(t.rsplit("::", 1)[-1] for t in run.failed)
    if failed or not run.passed or run.skipped:
        raise PatchRefused(
            f"{tree}: its {PASS_BASE} does not behave fixed: the new tests would"
            f" fail there ({', '.join(failed) or 'none passed'}); make the full"
            " patch instead (without --tests-only)"
        )
    return Measured(len(run.passed), _git(tree, "rev-parse", "HEAD"), environment())


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
        measured=measured.sentence("your branch"),
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
    changes = planned_test_changes(tree)
    check_writable(out_dir)
    measured = new_tests_on(tree, changes[0].new)
    merged = merged_as(tree, for_pr) if for_pr is not None else None
    message = tests_only_message(
        co_authors, context(for_pr, merged), measured.sentence()
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
