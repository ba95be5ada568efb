"""``patch --tests-only --for-pr 22310``: the tests and a comment offered to
#22310, on a stand-in for its branch (a tree carrying the shape its
description gives); the follow-up body once #22310 has landed; any fix
without a witness against it accepted, an unfixed tree refused."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Tuple

import pytest
from conftest import git, git_repo

from exportpass_fix.shared.fix_source import (
    PASS_BASE,
    PATCHED_CLASS,
    PATCHED_METHOD,
    TEST_CLASS,
    TEST_PASS_INFRA,
)
from exportpass_fix.shared.installed import installed_version
from exportpass_fix.shared.source_spans import method_span
from exportpass_fix.upstream.making.evidence import new_test_names
from exportpass_fix.upstream.making.patch import planned_test_changes
from exportpass_fix.upstream.making.pr_description import (
    MAX_LINES,
    TESTS_ONLY_SUBJECT,
    WIDTH,
)
from patch_facts import AUTHOR, NEW_TESTS, NOT_UPSTREAM
from trees import linked_tree, run_pytest, wheel_texts

pytestmark = pytest.mark.once

# The kill table's variants of call (test data), their texts by name.
VARIANTS = Path(__file__).parents[1] / "judging" / "judge_variants.json"
BY_NAME = {
    v["name"]: "\n".join(v["text"]) + "\n"
    for v in json.loads(VARIANTS.read_text())
    if v["text"] is not None
}
SHAPE_OF_22310 = BY_NAME["fallback scan of placeholders"]


def with_call(pass_base: str, call_text: str) -> str:
    span = method_span(pass_base, PATCHED_CLASS, PATCHED_METHOD)
    assert span is not None, "the installed pass_base.py has no _ExportPassBase.call"
    return span.replaced_by(call_text)


def _tests_only(tree: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    out.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "patch", "--tests-only"]
        + ["--tree", str(tree), "-o", str(out), "--author", AUTHOR, *extra],
        capture_output=True,
        text=True,
    )


def _tree_with_call(root: Path, call_text: str) -> Path:
    texts = wheel_texts()
    return git_repo(root, {**texts, PASS_BASE: with_call(texts[PASS_BASE], call_text)})


def _file_counts(tree: Path, work: Path) -> Tuple[str, str]:
    """What the file with the new tests gives, run here apart from
    ``patch``: what ran, then the counts with the tree's call and with the
    installed (unfixed) one."""
    new_test = planned_test_changes(tree)[0].new
    failed, total = {}, 0
    for side, pass_base in (
        ("fixed", (tree / PASS_BASE).read_text()),
        ("unfixed", wheel_texts()[PASS_BASE]),
    ):
        files = {PASS_BASE: pass_base, TEST_PASS_INFRA: new_test}
        run = run_pytest(linked_tree(work / side, files), [TEST_PASS_INFRA])
        failed[side] = {test_id.rsplit("::", 1)[-1] for test_id in run.failed}
        total = len(run.passed) + len(run.failed)
    # A test of the tree's failing both ways is named, once.
    both = sorted(failed["fixed"] & failed["unfixed"])
    named = f" (`{'`, `'.join(both)}`, both ways)" if both else ""
    fixed, unfixed = (len(failed[side]) for side in ("fixed", "unfixed"))
    return (
        f"runs {total} tests. That commit's `{PASS_BASE}` and"
        f" `{TEST_PASS_INFRA}` replaced those of an installed ExecuTorch"
        f" {installed_version()}. The run used Python"
    ), (
        f"With that commit's `_ExportPassBase.call`, {fixed}"
        f" {'fails' if fixed == 1 else 'fail'}{named}. With"
        f" {installed_version()}'s unfixed one in its place, {unfixed} fail"
    )


def _message(patch: Path) -> str:
    return patch.read_text().partition("\n\n")[2].split("\n---\n", 1)[0]


@pytest.fixture(scope="module")
def branch_of_22310(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tree_with_call(tmp_path_factory.mktemp("pr22310") / "et", SHAPE_OF_22310)


def test_tests_for_22310_come_with_a_comment_and_pass_on_its_branch(
    branch_of_22310: Path, tmp_path: Path
) -> None:
    head = git(branch_of_22310, "rev-parse", "HEAD").stdout.strip()

    done = _tests_only(branch_of_22310, tmp_path / "out", "--for-pr", "22310")

    assert done.returncode == 0, done.stderr
    assert "label the PR" not in done.stderr  # a comment and a commit, no PR
    patch_path, comment_path = done.stdout.split()
    patch, comment = Path(patch_path), Path(comment_path)
    assert f"Subject: [PATCH] {TESTS_ONLY_SUBJECT}\n" in patch.read_text()
    message = _message(patch)
    assert message.startswith("### Summary\n\nTests for #22310, the fix for #22309.")
    assert "Follow-up" not in message
    assert NOT_UPSTREAM.search(message) is None, NOT_UPSTREAM.search(message)
    lines = message.splitlines()
    assert len(lines) <= MAX_LINES and max(map(len, lines)) <= WIDTH
    # The whole file, counted with the branch's call and with the installed
    # unfixed one, in one run: the counts are the file's, not the class's.
    ran, counts = _file_counts(branch_of_22310, tmp_path / "counted")
    flat = " ".join(message.split())
    # What ran: the commit's two files over the installed ExecuTorch, said
    # in short sentences.
    assert f"At {head[:12]}, with these tests, `python -m pytest" in flat
    assert ran in flat and counts in flat
    measured = flat.split("### Test plan", 1)[1].split(TEST_PASS_INFRA, 1)[1]
    assert max(len(s.split()) for s in measured.split(". ")) <= 20, measured
    assert "(no pin)" in flat  # this tree has no requirements-dev.txt
    # Each new test, named with what its first comment says it pins.
    pins = flat.split("### Summary", 1)[1].split("### Test plan", 1)[0]
    assert pins.count("- `test_") == len(new_test_names())
    for name in new_test_names():
        assert f"- `{name}`: " in pins, name
    # The comment for #22310: short, with the run's counts, commit and
    # ExecuTorch version, and the offer with its trailer.
    text = comment.read_text()
    assert comment.name == "comment.md" and len(text.splitlines()) <= 15
    flat = " ".join(text.split())
    for needle in (
        f"regression tests for #22309: {len(new_test_names())} in a new class",
        ran,
        counts,
        f"At {head[:12]}",
        f"ExecuTorch {installed_version()}",
        patch.name,
        f"with this trailer: Co-authored-by: {AUTHOR}",
    ):
        assert needle in flat, needle
    # Sentences a maintainer stopped at.
    for untrue in ("I wrote", "seven", "rule out", "your branch", "7 passed"):
        assert untrue not in flat, untrue
    # The commit applies on the branch, touches only the tests, and they pass
    # (an upstream test failing either way, as the message says, aside).
    applied = git(branch_of_22310, "am", str(patch))
    assert applied.returncode == 0, applied.stdout + applied.stderr
    changed = git(branch_of_22310, "diff", "--name-only", "HEAD~1", "HEAD").stdout
    assert changed.split() == [TEST_PASS_INFRA]
    files = {p: (branch_of_22310 / p).read_text() for p in (PASS_BASE, TEST_PASS_INFRA)}
    run = run_pytest(linked_tree(tmp_path / "check", files), [TEST_PASS_INFRA])
    failing = [t.rsplit("::", 1)[-1] for t in run.failed]
    assert all(f"`{t}`, both ways" in flat for t in failing), run.output[-3000:]
    assert len([t for t in run.passed if TEST_CLASS in t]) == len(NEW_TESTS)
    assert git(branch_of_22310, "reset", "-q", "--hard", "HEAD~1").returncode == 0


def test_once_22310_has_landed_the_tests_are_a_follow_up(tmp_path: Path) -> None:
    tree = _tree_with_call(tmp_path / "et", SHAPE_OF_22310)
    subject = "Reuse the graph's fake mode when every input is a lifted constant"
    (tree / "landed.txt").write_text("x\n")
    assert git(tree, "add", "-A").returncode == 0
    assert git(tree, "commit", "-q", "-m", f"{subject} (#22310)").returncode == 0
    merged = git(tree, "rev-parse", "HEAD").stdout.strip()

    done = _tests_only(tree, tmp_path / "out", "--for-pr", "22310")

    assert done.returncode == 0, done.stderr
    (patch,) = done.stdout.split()  # no comment: the follow-up is its own PR
    message = _message(Path(patch))
    flat = " ".join(message.split())
    assert message.startswith("### Summary\n\nFollow-up to #22310")
    assert f"(merged as {merged[:12]})" in flat and f"At {merged[:12]}," in flat
    assert list((tmp_path / "out").iterdir()) == [Path(patch)]


def test_a_fix_without_a_witness_against_it_is_accepted(tmp_path: Path) -> None:
    # An acceptable variant of the kill table, not the fix: the tests pass it.
    tree = _tree_with_call(tmp_path / "et", BY_NAME["no consistency assertion"])

    done = _tests_only(tree, tmp_path / "out")

    assert done.returncode == 0, done.stderr
    message = _message(Path(done.stdout.strip()))
    assert message.startswith("### Summary\n\nRegression tests for #22309")


def test_tests_only_patch_is_refused_on_an_unfixed_tree(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "et", wheel_texts())
    out = tmp_path / "out"

    done = _tests_only(repo, out, "--for-pr", "22310")

    assert done.returncode == 2, done.stdout + done.stderr
    (refusal,) = done.stderr.strip().splitlines()
    assert "does not behave fixed: the new tests would fail there (" in refusal
    named = set(refusal.split("(", 1)[1].split(")", 1)[0].split(", "))
    assert named and named <= new_test_names()
    assert list(out.iterdir()) == []


def test_tests_only_patch_is_refused_on_a_tree_with_uncommitted_changes(
    branch_of_22310: Path, tmp_path: Path
) -> None:
    # The message and comment name HEAD: files that differ from it were not
    # what that commit holds, so nothing is measured nor written.
    pass_base = branch_of_22310 / PASS_BASE
    committed = pass_base.read_text()
    pass_base.write_text(committed + "\n")
    try:
        done = _tests_only(branch_of_22310, tmp_path / "out", "--for-pr", "22310")
    finally:
        pass_base.write_text(committed)

    assert done.returncode == 2, done.stdout + done.stderr
    (refusal,) = done.stderr.strip().splitlines()
    assert f"{branch_of_22310}: uncommitted changes (M {PASS_BASE})" in refusal
    assert list((tmp_path / "out").iterdir()) == []
