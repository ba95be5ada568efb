"""The upstream patch, proven on the installed ExecuTorch's real files."""

import ast
import difflib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest
from conftest import git, REPO

from exportpass_fix.shared import release_table
from exportpass_fix.shared.fix_source import (
    PASS_BASE,
    TEST_CLASS,
    TEST_PASS_INFRA,
    what_each_test_pins,
)
from exportpass_fix.shared.installed import installed_version
from exportpass_fix.upstream.making.evidence import fails_as_unfixed, new_test_names
from exportpass_fix.upstream.making.import_merge import import_block
from exportpass_fix.upstream.making.patch import make_patch
from exportpass_fix.upstream.making.pr_description import (
    commit_message,
    CREDIT,
    LABEL,
    MAX_LINES,
    SUBJECT,
    WIDTH,
)
from exportpass_fix.upstream.proving.static_checks import lint, new_mypy_errors
from patch_facts import AUTHOR, NEW_TESTS, NOT_UPSTREAM
from trees import executorch_dir, linked_tree, run_pytest

REGRESSION_TEST = f"{TEST_CLASS}::test_delegate_of_lifted_constants_lowers"
# On ExecuTorch 1.0.x (torch 2.9), which predates upstream's #16222, a graph
# without placeholders leaves a real tensor among the vals with the fix too
# (measured on 1.0.0), so that test fails there either way.
FAILS_EITHER_WAY = (
    {f"{TEST_CLASS}::test_graph_without_inputs_retraces_fake"}
    if installed_version().startswith("1.0.")
    else set()
)


def _short_ids(ids: set) -> set:
    """``exir.tests.test_pass_infra.Cls::name`` -> ``Cls::name``."""
    return {test_id.rsplit(".", 1)[-1] for test_id in ids}


def test_patch_applies_with_git_am_on_the_wheel_files(
    wheel_exir_repo: Path, tmp_path: Path, patched: dict
) -> None:
    patch = make_patch(
        executorch_dir(), tmp_path, author=AUTHOR, co_authors=["B C <b@c.d>"]
    )

    check = git(wheel_exir_repo, "apply", "--check", str(patch))
    assert check.returncode == 0, check.stderr
    applied = git(wheel_exir_repo, "am", str(patch))
    assert applied.returncode == 0, applied.stdout + applied.stderr

    for relative in (PASS_BASE, TEST_PASS_INFRA):
        assert (wheel_exir_repo / relative).read_text() == patched[relative]
    subject = git(wheel_exir_repo, "log", "-1", "--format=%s").stdout.strip()
    assert subject == SUBJECT and len(SUBJECT) <= WIDTH
    trailers = git(wheel_exir_repo, "log", "-1", "--format=%(trailers)").stdout
    assert trailers.strip() == "Co-authored-by: B C <b@c.d>"
    changed = git(wheel_exir_repo, "diff", "--stat", "HEAD~1", "HEAD").stdout
    assert "2 files changed" in changed


def _diff_lines(patched: dict, path: str, signs: str) -> List[str]:
    """The lines the patch adds (``+``) or removes (``-``) in ``path``."""
    old = (executorch_dir() / path).read_text().splitlines()
    new = patched[path].splitlines()
    return [
        line
        for line in difflib.unified_diff(old, new, lineterm="", n=0)
        if line[:1] in signs and not line.startswith(("+++", "---"))
    ]


def test_patch_touches_only_call_and_appends_the_test(patched: dict) -> None:
    changed = _diff_lines(patched, PASS_BASE, "+-")
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


def _message(patch_text: str) -> str:
    return patch_text.partition("\n\n")[2].split("\n---\n", 1)[0]


def test_patch_body_is_a_reviewable_pr_description(tmp_path: Path) -> None:
    text = make_patch(
        executorch_dir(),
        tmp_path,
        author="A <a@b.c>",
        co_authors=["B C <b@c.d>", "D <d@e.f>"],
        releases=release_table.load(),
    ).read_text()
    header = text.partition("\n\n")[0]
    assert header.splitlines()[1:] == [
        "From: A <a@b.c>",
        header.splitlines()[2],
        f"Subject: [PATCH] {SUBJECT}",
    ]
    assert header.splitlines()[2].startswith("Date: ")
    message = _message(text)
    assert message.startswith("### Summary\nFixes #22309: ")
    assert "### Test plan" in message
    flat = " ".join(message.split())
    # What breaks and for whom, the cause, the change, the other PRs.
    count, first, last = release_table.bitten_count(release_table.load())
    for needle in (
        "Fixes #22309: when the only tensor inputs of a graph are lifted",
        "constants (ints and SymInts beside them included),",
        # All that changes, for which graphs.
        "Only graphs whose `inputs()` show no FakeTensor change:",
        "lowering aborts with",
        # The blamed pass, said only of the backends that run it.
        "On 1.5.1 it reproduces through Vulkan and WebGPU, which delegate such",
        "there the error names `FuseBatchNormPass`.",
        "`_ExportPassBase.call` takes the mode from `self.inputs()`",
        'this takes it from the placeholders\' `meta["val"]` then.',
        # Why this PR exists, and whose analysis it builds on.
        "this PR exists because #22310 and #22891 (@psiddh's fix of the same",
        "cause, for DINOv2 on WebGPU) were closed unmerged.",
        "The root cause is @msluszniak's (#22309, #22310);",
        f"Each of the {count} releases measured, {first} to {last}, has it. On 1.5.1",
    ):
        assert needle in flat, needle
    # Sentences a maintainer stopped at: backends read as every model, the
    # releases right after backends some of them lack, a third PR, a blamed
    # pass said of every backend.
    for untrue in (
        "as Vulkan and WebGPU do",
        "address the same bug",
        "(blamed on `FuseBatchNormPass`)",
    ):
        assert untrue not in flat, untrue
    assert LABEL == "release notes: exir" and LABEL not in message
    # Short enough to read in one sitting: trailers count, the Subject not.
    lines = message.splitlines()
    assert len(lines) <= MAX_LINES, len(lines)
    assert max(len(line) for line in lines) <= WIDTH
    # Trailers close the message, where git interpret-trailers finds them.
    assert message.endswith(
        "\n\nCo-authored-by: B C <b@c.d>\nCo-authored-by: D <d@e.f>"
    )
    # No tool of this project, no placeholder: upstream's commands only.
    assert NOT_UPSTREAM.search(message) is None, NOT_UPSTREAM.search(message)
    assert "    python -m pytest exir/tests/test_pass_infra.py" in message
    assert "lintrunner" not in message and "mypy" not in message
    # Nothing of this project after the diffs either (no signature).
    assert NOT_UPSTREAM.search(text) is None


def test_a_body_with_its_proof_is_as_short() -> None:
    # The committed body quotes its proof's run (test_docs holds it to
    # today's code): that too within the lines and columns a body may take.
    record = json.loads((REPO / "docs/records/upstream-body-main.json").read_text())
    message = record["stdout"].split("<==\n", 1)[1].rstrip()
    lines = message.splitlines()
    assert lines[0] == "### Summary" and "### Test plan" in lines
    assert len(lines) <= MAX_LINES and max(map(len, lines)) <= WIDTH, len(lines)


def test_a_release_branch_body_names_the_change_it_picks() -> None:
    main = _summary(commit_message([]))
    release = _summary(commit_message([], pick_of="23001"))

    assert release.startswith("Picks #23001 onto this release branch, for #22309:")
    assert release != main and "Fixes #22309" not in release
    # The pick's body is not a PR of its own: no word on why one exists.
    assert " ".join(CREDIT.split()) not in " ".join(
        commit_message([], pick_of="23001").split()
    )
    assert _summary(commit_message([], pick_of="a" * 40)).startswith(
        f"Picks main's {'a' * 12} onto"
    )


def _summary(message: str) -> str:
    return " ".join(message.split("### Summary", 1)[1].split("\n\n", 1)[0].split())


def test_body_states_no_credit_and_no_claim_it_cannot_back() -> None:
    flat = " ".join(commit_message([]).split())
    assert "credit" not in flat and "Co-authored-by" not in flat
    # Sentences a review found untrue or unbacked.
    for claim in (
        "who met it exporting DINOv2",
        "the issue's graph",
        "without complaint",
        "can land in place of",
        "any model",
        "regression",
        "neither lands",
    ):
        assert claim not in flat, claim


def test_every_test_of_the_class_is_one_the_project_knows() -> None:
    source = (REPO / "exir" / "tests" / "test_pass_infra.py").read_text()
    names = set(re.findall(r"^    def (test_\w+)", source, re.M))
    assert {name.split("::")[1] for name in NEW_TESTS} == names
    assert new_test_names() == names


def test_cli_writes_the_patch_and_prints_its_path(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "patch", "-o", str(tmp_path)]
        + ["--author", AUTHOR, "--closed-unmerged", "22310", "22891"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip())
    assert path.parent == tmp_path and path.read_text().startswith("From ")
    assert f"label the PR: {LABEL}" in done.stderr
    # Without a proof the Test plan has the commands only, and says so.
    assert "warning: the Test plan lists the commands only" in done.stderr
    # The installed package has no Buck files: said, not silently skipped.
    assert "has no Buck files" in done.stderr


def test_regression_and_upstream_tests_pass_on_the_patched_tree(
    patched_tree: Path, unfixed_tree: Path
) -> None:
    run = run_pytest(patched_tree, [TEST_PASS_INFRA])
    unfixed = run_pytest(unfixed_tree, [TEST_PASS_INFRA])

    assert _short_ids(run.failed) & NEW_TESTS == FAILS_EITHER_WAY, run.output
    # An upstream test that fails fails without the fix too (on torch 2.13,
    # test_pass_metadata, run from exir/ as in a checkout): the tree's.
    assert _short_ids(run.failed) - NEW_TESTS <= _short_ids(unfixed.failed)
    # None of the new tests skips here: their precondition holds.
    assert NEW_TESTS - FAILS_EITHER_WAY <= _short_ids(run.passed)
    # Upstream's own tests in the file ran too, every one of them.
    upstream_tests = re.findall(
        r"^    def (test_\w+)", (executorch_dir() / TEST_PASS_INFRA).read_text(), re.M
    )
    ran = run.passed | run.failed
    assert len(ran - {t for t in ran if TEST_CLASS in t}) == len(upstream_tests)


def test_regression_test_fails_on_a_tree_without_the_fix(unfixed_tree: Path) -> None:
    run = run_pytest(unfixed_tree, [TEST_PASS_INFRA], ["-k", TEST_CLASS])

    assert run.returncode == 1, run.output
    assert REGRESSION_TEST in _short_ids(run.failed)
    # Only new tests fail; the others pin kept behaviour and pass.
    failed = {test_id.rsplit("::", 1)[-1] for test_id in run.failed}
    assert fails_as_unfixed(failed), failed
    assert _short_ids(run.passed | run.failed) == NEW_TESTS
    assert not run.skipped
    # The end-to-end test fails the way users see it: with the fake-mode
    # assertion (from 1.1.0 on, wrapped in the pass manager's "An error
    # occurred when running the 'ExportPass' pass").
    assert "doesn't match mode" in run.output
    assert "ImportError" not in run.output and "ModuleNotFound" not in run.output


@pytest.mark.once
def test_the_test_hunk_adds_at_most_130_lines(patched: dict) -> None:
    # Measured on 1.5.1's file, which has #22056's import: an older file
    # lacks more of the names the tests import.
    added = _diff_lines(patched, TEST_PASS_INFRA, "+")
    assert 60 < len(added) <= 130, len(added)


def test_each_new_test_says_what_it_pins_and_none_skips() -> None:
    source = (REPO / "exir" / "tests" / "test_pass_infra.py").read_text()
    said = dict(what_each_test_pins())

    assert set(said) == new_test_names()
    # A sentence on the behaviour pinned, its first comment (a line or more);
    # which wrong fixes each test fails on is the kill table's (docs/tests.md).
    for name in said:  # what_each_test_pins reads the first line only
        lines = source.split(f"    def {name}(", 1)[1].split("\n")[1:]
        first = []
        for line in lines:
            if not line.strip().startswith("#"):
                break
            first.append(line.strip()[2:])
        why = " ".join(first)
        assert why.endswith(".") and "rules out" not in why.lower(), (name, why)
    assert "skipTest" not in source and "unittest.skip" not in source


def test_upstream_tests_use_nothing_of_torch_c_nor_exact_messages() -> None:
    source = (REPO / "exir" / "tests" / "test_pass_infra.py").read_text()
    for pin in ("torch._C", "_dispatch_tls", "assertRaisesRegex", ".constant,"):
        assert pin not in source, pin


def _lint(paths: list, cwd: Path) -> None:
    assert lint(cwd, paths, REPO / ".flake8") == {}


@pytest.mark.once
def test_patched_files_pass_upstream_linters(tmp_path: Path, patched: dict) -> None:
    # usort reads upstream's setting from the tree's pyproject.toml.
    (tmp_path / "pyproject.toml").write_text(
        "[tool.usort]\nfirst_party_detection = false\n"
    )
    for relative, text in patched.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    _lint(list(patched), tmp_path)


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache")


@pytest.mark.differential  # mypy unpatched vs patched: about a minute
def test_patched_files_add_no_mypy_error(
    tmp_path: Path, patched: dict, mypy_cache: Path
) -> None:
    unpatched = linked_tree(tmp_path / "unpatched", {})
    patched_tree = linked_tree(tmp_path / "patched", patched)

    before, after, new = new_mypy_errors(
        unpatched, patched_tree, REPO / ".mypy.ini", mypy_cache
    )

    assert new == [], new
    # Upstream's file has errors of its own: mypy really looked at both.
    assert before > 0 and after >= before


@pytest.mark.differential
def test_mypy_check_catches_an_unnarrowed_optional(
    tmp_path: Path, patched: dict, mypy_cache: Path
) -> None:
    # What a review found: an attribute read through an Optional. A pass's
    # __call__ returns an Optional PassResult, its call() a PassResult.
    sloppy = patched[TEST_PASS_INFRA].replace("(first.call(", "(first(")
    assert sloppy != patched[TEST_PASS_INFRA]
    unpatched = linked_tree(tmp_path / "unpatched", {})
    sloppy_tree = linked_tree(tmp_path / "sloppy", {**patched, TEST_PASS_INFRA: sloppy})

    _, _, new = new_mypy_errors(unpatched, sloppy_tree, REPO / ".mypy.ini", mypy_cache)

    assert any("graph_module" in error for error in new), new


@pytest.mark.once
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
            "test_pass_infra.py without the fix",
            "test_pass_infra.py with the fix",
            "static checks",
            "exir/tests differential",
        ]
        assert all(step["ok"] for step in proof["steps"]), proof
