"""The upstream patch, proven on the installed ExecuTorch's real files."""

import ast
import difflib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git, REPO

from exportpass_fix.fix_source import PASS_BASE, TEST_CLASS, TEST_PASS_INFRA
from exportpass_fix.import_merge import import_block
from exportpass_fix.pr_description import commit_message, LABEL, SUBJECT
from exportpass_fix.upstream_patch import make_patch
from trees import executorch_dir, run_pytest

REGRESSION_TEST = f"{TEST_CLASS}::test_constant_only_inputs_keep_the_graph_fake_mode"
NEW_TESTS = {
    f"{TEST_CLASS}::{name}"
    for name in (
        "test_constant_only_inputs_keep_the_graph_fake_mode",
        "test_fake_input_decides_the_fake_mode",
        "test_inputs_without_fake_tensors_use_a_new_fake_mode",
        "test_constant_inputs_of_two_fake_modes_are_rejected",
        "test_backend_pass_on_a_partitioned_constant_subgraph",
    )
}


def _said_to_fail_unpatched() -> set:
    """The tests the PR body lists as failing without the fix."""
    message = commit_message(None, [])
    listed = message.split("three of them fail:", 1)[1].split("\n\n", 1)[0]
    return {f"{TEST_CLASS}::{name}" for name in re.findall(r"- `(test_\w+)`", listed)}


def _short_ids(ids: set) -> set:
    """``executorch.exir.tests.test_pass_infra.Cls::name`` -> ``Cls::name``."""
    return {test_id.rsplit(".", 1)[-1] for test_id in ids}


def test_patch_applies_with_git_am_on_the_wheel_files(
    wheel_exir_repo: Path, tmp_path: Path, patched: dict
) -> None:
    patch = make_patch(executorch_dir(), tmp_path, co_authors=["B C <b@c.d>"])

    check = git(wheel_exir_repo, "apply", "--check", str(patch))
    assert check.returncode == 0, check.stderr
    applied = git(wheel_exir_repo, "am", str(patch))
    assert applied.returncode == 0, applied.stdout + applied.stderr

    for relative in (PASS_BASE, TEST_PASS_INFRA):
        assert (wheel_exir_repo / relative).read_text() == patched[relative]
    subject = git(wheel_exir_repo, "log", "-1", "--format=%s").stdout.strip()
    assert subject == SUBJECT
    trailers = git(wheel_exir_repo, "log", "-1", "--format=%(trailers)").stdout
    assert trailers.strip() == "Co-authored-by: B C <b@c.d>"
    changed = git(wheel_exir_repo, "diff", "--stat", "HEAD~1", "HEAD").stdout
    assert "2 files changed" in changed


def test_patch_touches_only_call_and_appends_the_test(patched: dict) -> None:
    old = (executorch_dir() / PASS_BASE).read_text().splitlines()
    new = patched[PASS_BASE].splitlines()
    changed = [
        line
        for line in difflib.unified_diff(old, new, lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert 0 < len(changed) <= 25
    # The test file: its imports grow, everything after them is kept as it
    # is and the test code follows.
    old_imports, old_rest = import_block(
        (executorch_dir() / TEST_PASS_INFRA).read_text()
    )
    new_imports, new_rest = import_block(patched[TEST_PASS_INFRA])
    assert new_rest.startswith(old_rest.rstrip("\n"))
    assert f"class {TEST_CLASS}(unittest.TestCase):" in new_rest[len(old_rest) :]
    assert {ast.dump(a) for n in old_imports for a in n.names} < {
        ast.dump(a) for n in new_imports for a in n.names
    }


def test_patch_body_is_a_reviewable_pr_description(tmp_path: Path) -> None:
    text = make_patch(
        executorch_dir(),
        tmp_path,
        author="A <a@b.c>",
        co_authors=["B C <b@c.d>", "D <d@e.f>"],
    ).read_text()
    header, _, rest = text.partition("\n\n")
    assert header.splitlines()[1:] == [
        "From: A <a@b.c>",
        header.splitlines()[2],
        f"Subject: [PATCH] {SUBJECT}",
    ]
    assert header.splitlines()[2].startswith("Date: ")
    message = rest.split("\n---\n", 1)[0]
    assert message.startswith("### Summary\n\nFixes #22309.")
    for needle in ("### Test plan", "#22310 by @msluszniak", "#22891 by @psiddh"):
        assert needle in message
    assert "Behaviour changes" in message and "New error:" in message
    assert LABEL not in message
    # Trailers close the message, where git interpret-trailers finds them.
    assert message.endswith(
        "\n\nCo-authored-by: B C <b@c.d>\nCo-authored-by: D <d@e.f>"
    )
    assert "matrix --json" in message


def test_evidence_puts_the_measured_table_in_the_test_plan() -> None:
    pairs = [
        {"model": "sine", "partitioner": "vulkan", "outcome": "unblocked"},
        {"model": "sine", "partitioner": "xnnpack", "outcome": "unchanged"},
        {"model": "conv", "partitioner": "xnnpack", "outcome": "unchanged"},
    ]
    matrix = {
        "executorch": "9.9.9",
        "torch": "8.8.8",
        "pairs": pairs,
        "summary": {
            "blocked": 1,
            "unblocked": 1,
            "unchanged": 2,
            "unchanged_uuid_blind": 0,
            "changed": 0,
        },
    }

    message = commit_message(matrix, [])

    assert "Measured on ExecuTorch 9.9.9 (torch 8.8.8)" in message
    assert "| vulkan | sine | - | - | - |" in message
    assert "| xnnpack | - | sine, conv | - | - |" in message
    assert "1 pairs failed with #22309, of which 1 lower with the fix" in message
    flat = " ".join(message.split())
    assert "2 lower either way with the same `.pte` (2 byte for byte; 0," in flat
    assert "matrix --json > matrix.json" not in message


def test_cli_writes_the_patch_and_prints_its_path(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "patch", "-o", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip())
    assert path.parent == tmp_path and path.read_text().startswith("From ")


def test_regression_and_upstream_tests_pass_on_the_patched_tree(
    patched_tree: Path,
) -> None:
    run = run_pytest(patched_tree, [TEST_PASS_INFRA])

    assert run.returncode == 0, run.output
    assert not run.failed
    assert NEW_TESTS <= _short_ids(run.passed)
    # Upstream's own tests in the file ran too, not just ours.
    assert len(run.passed - {t for t in run.passed if TEST_CLASS in t}) >= 15


def test_regression_test_fails_on_a_tree_without_the_fix(unfixed_tree: Path) -> None:
    run = run_pytest(unfixed_tree, [TEST_PASS_INFRA], ["-k", TEST_CLASS])

    assert run.returncode == 1, run.output
    assert REGRESSION_TEST in _short_ids(run.failed)
    # Exactly the tests the PR body says fail; the others pin kept behaviour.
    assert _short_ids(run.failed) == _said_to_fail_unpatched()
    assert _short_ids(run.passed) == NEW_TESTS - _said_to_fail_unpatched()
    assert "ExportPass opened a second FakeTensorMode" in run.output
    # The end-to-end test fails the way users see it: the pass manager's
    # message over the fake-mode assertion.
    assert (
        "An error occurred when running the 'ExportPass' pass after the"
        " following passes: []" in run.output
    )
    assert "doesn't match mode" in run.output
    assert "ImportError" not in run.output and "ModuleNotFound" not in run.output


def _lint(paths: list, cwd: Path) -> None:
    for command in (
        ["black", "--check", "--diff", *paths],
        ["usort", "check", *paths],
        ["flake8", "--config", str(REPO / ".flake8"), *paths],
    ):
        done = subprocess.run(
            [sys.executable, "-m", *command], cwd=cwd, capture_output=True, text=True
        )
        assert done.returncode == 0, f"{command[0]}:\n{done.stdout}{done.stderr}"


def test_patched_files_pass_upstream_linters(tmp_path: Path, patched: dict) -> None:
    # usort reads upstream's setting from the tree's pyproject.toml.
    (tmp_path / "pyproject.toml").write_text(
        "[tool.usort]\nfirst_party_detection = false\n"
    )
    for relative, text in patched.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    _lint(list(patched), tmp_path)


def test_this_project_passes_the_same_linters() -> None:
    _lint(["exir", "test", "setup.py"], REPO)


@pytest.mark.skipif(
    not os.environ.get("EXPORTPASS_FIX_ET_CHECKOUT"),
    reason="set EXPORTPASS_FIX_ET_CHECKOUT to an ExecuTorch git checkout or bare"
    " mirror (and EXPORTPASS_FIX_ET_REFS to the refs to prove, default"
    " main release/1.4)",
)
def test_prove_on_checkout_refs() -> None:
    refs = os.environ.get("EXPORTPASS_FIX_ET_REFS", "main release/1.4").split()
    command = [sys.executable, "-m", "exportpass_fix", "prove", "--json"]
    command += ["--checkout", os.environ["EXPORTPASS_FIX_ET_CHECKOUT"]]
    command += [arg for ref in refs for arg in ("--ref", ref)]

    done = subprocess.run(command, capture_output=True, text=True, timeout=3600)

    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    proofs = json.loads(done.stdout)
    assert [proof["ref"] for proof in proofs] == refs
    for proof in proofs:
        assert [step["name"] for step in proof["steps"]] == [
            "git am",
            "new tests without the fix",
            "test_pass_infra.py with the fix",
            "exir/tests differential",
        ]
        assert all(step["ok"] for step in proof["steps"]), proof
