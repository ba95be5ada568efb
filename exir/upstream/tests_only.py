"""``patch --tests-only``: the regression tests alone (their imports and
Buck deps too), for a tree whose ``call`` already behaves fixed, by any
correct variant (#22310's, #22891's): a maintainer who lands another PR for
#22309 can take these tests on top of it.

Whether the tree's ``call`` behaves fixed is decided by running the new
tests against it (the tree's ``exir/pass_base.py`` laid over the installed
package), not by its fingerprint. Where any fails, the patch is refused.
"""

import tempfile
from pathlib import Path
from typing import Dict, Optional, Sequence

from ..shared.fix_source import PASS_BASE, TEST_CLASS, TEST_PASS_INFRA
from .evidence import kill_summary
from .patch import (
    build_file_of,
    check_writable,
    PatchRefused,
    planned_test_changes,
    read_tree_file,
    write_patch,
)
from .pr_description import tests_only_message, TESTS_ONLY_SUBJECT
from .prove import environment
from .trees import linked_tree, run_pytest


def new_tests_on(tree: Path, new_test: str) -> str:
    """The new tests run against the tree's ``call``; what they printed, in
    a sentence, or ``PatchRefused`` naming the tests that fail there."""
    pass_base = read_tree_file(tree, PASS_BASE)
    with tempfile.TemporaryDirectory(prefix="exportpass-tests-only-") as work:
        linked = linked_tree(
            Path(work), {PASS_BASE: pass_base, TEST_PASS_INFRA: new_test}
        )
        run = run_pytest(linked, [TEST_PASS_INFRA], ["-k", TEST_CLASS])
    failed = sorted(t.rsplit("::", 1)[-1] for t in run.failed)
    if failed or not run.passed:
        raise PatchRefused(
            f"{tree}: its {PASS_BASE} does not behave fixed: the new tests would"
            f" fail there ({', '.join(failed) or 'none ran'}); make the full"
            " patch instead (without --tests-only)"
        )
    env = environment()
    return (
        f"On this tree with Python {env['python']} and torch {env['torch']}"
        f" (its `exir/pass_base.py` over the compiled parts of an ExecuTorch"
        f" {env['executorch']} install), the first command: {len(run.passed)}"
        " passed, 0 failed.\n"
    )


def make_tests_patch(
    tree: Path,
    out_dir: Path,
    author: str,
    co_authors: Sequence[str] = (),
    mutants: Optional[Dict[str, object]] = None,
) -> Path:
    """Write the tests-only patch for ``tree`` and return its path; refuse
    (``PatchRefused``, nothing written) where the tests would fail."""
    if not tree.is_dir():
        raise PatchRefused(f"{tree}: no such directory")
    changes = planned_test_changes(tree)
    check_writable(out_dir)
    measured = new_tests_on(tree, changes[0].new)
    message = tests_only_message(
        co_authors,
        measured,
        kill_summary(mutants) if mutants else "",
        build_file_of(changes),
    )
    return write_patch(
        out_dir,
        sorted(changes, key=lambda c: c.path),
        author,
        TESTS_ONLY_SUBJECT,
        message,
    )
