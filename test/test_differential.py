"""ExecuTorch's own shipped exir/tests, unpatched vs patched, in one run.

Both trees are the installed package, linked; the patched one has the two
patched files swapped in. The patched run may fail only where the unpatched
run fails too. The baseline is measured here every run, never listed.
"""

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from trees import linked_tree, PytestRun, run_pytest

SUITE = ["exir/tests"]
# Some shipped test modules need packages the wheel does not depend on
# (torchvision) or bindings it does not ship; collect the rest regardless.
SUITE_ARGS = ["--continue-on-collection-errors", "-p", "no:warnings"]


def _run_suite(tree: Path) -> PytestRun:
    return run_pytest(tree, SUITE, SUITE_ARGS, timeout=1500)


@pytest.mark.differential
def test_patched_suite_fails_only_where_unpatched_fails(
    tmp_path_factory: pytest.TempPathFactory,
    patched: dict,
    capsys: pytest.CaptureFixture,
) -> None:
    unpatched_tree = linked_tree(tmp_path_factory.mktemp("diff-unpatched"), {})
    patched_tree = linked_tree(tmp_path_factory.mktemp("diff-patched"), patched)
    with ThreadPoolExecutor(max_workers=2) as pool:
        unpatched, patched_run = pool.map(_run_suite, [unpatched_tree, patched_tree])

    new_failures = patched_run.failed - unpatched.failed
    flaky = set()
    if new_failures:
        # A test failing only in the patched run gets one rerun there, so a
        # flaky upstream test is told apart from a regression.
        ids = sorted(new_failures)
        rerun = run_pytest(
            patched_tree,
            [],
            SUITE_ARGS + [_node_id(patched_tree, test_id) for test_id in ids],
        )
        flaky = new_failures & rerun.passed
        new_failures -= flaky

    with capsys.disabled():
        print(
            f"\ndifferential exir/tests: unpatched {len(unpatched.passed)} passed,"
            f" {len(unpatched.failed)} failed/errored,"
            f" {len(unpatched.skipped)} skipped; patched"
            f" {len(patched_run.passed)} passed, {len(patched_run.failed)}"
            f" failed/errored, {len(patched_run.skipped)} skipped;"
            f" new failures {len(new_failures)}; flaky on rerun {len(flaky)}"
        )
        for test_id in sorted(unpatched.failed):
            print(f"  baseline failure: {test_id}")

    assert len(unpatched.passed) > 200, unpatched.output[-3000:]
    assert not new_failures, (
        f"failing only with the patch: {sorted(new_failures)}\n"
        + patched_run.output[-5000:]
    )
    fixed_now = unpatched.failed - patched_run.failed
    assert patched_run.passed >= unpatched.passed - fixed_now


def _node_id(tree: Path, test_id: str) -> str:
    """``executorch.exir.tests.mod.Cls::name`` -> a pytest node id in ``tree``."""
    dotted, _, name = test_id.partition("::")
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        module = tree.joinpath(*parts[:split]).with_suffix(".py")
        if module.exists():
            return "::".join([str(module), *parts[split:], *([name] if name else [])])
    return str(tree.joinpath(*parts))
