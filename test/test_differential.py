"""ExecuTorch's own shipped exir/tests, unpatched vs patched, in one run.

Both trees are the installed package, linked; the patched one has the two
patched files swapped in. The patched run may fail only where the unpatched
run fails too. The baseline is measured here every run, never listed.
"""

import pytest
from exportpass_fix.differential import run_differential
from trees import linked_tree


@pytest.mark.differential
def test_patched_suite_fails_only_where_unpatched_fails(
    tmp_path_factory: pytest.TempPathFactory,
    patched: dict,
    capsys: pytest.CaptureFixture,
) -> None:
    unpatched_tree = linked_tree(tmp_path_factory.mktemp("diff-unpatched"), {})
    patched_tree = linked_tree(tmp_path_factory.mktemp("diff-patched"), patched)

    result = run_differential(unpatched_tree, patched_tree)

    with capsys.disabled():
        print(f"\ndifferential exir/tests: {result.summary()}")
        for test_id in sorted(result.unpatched.failed):
            print(f"  baseline failure: {test_id}")

    unpatched, patched_run = result.unpatched, result.patched
    assert len(unpatched.passed) > 200, unpatched.output[-3000:]
    assert not result.new_failures, (
        f"failing only with the patch: {sorted(result.new_failures)}\n"
        + patched_run.output[-5000:]
    )
    fixed_now = unpatched.failed - patched_run.failed
    assert patched_run.passed >= unpatched.passed - fixed_now
