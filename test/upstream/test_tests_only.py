"""``patch --tests-only``: the tests alone, on top of another correct fix
(here the shape #22310's description gives), refused where they would fail.
"""

import json
import subprocess
import sys
from pathlib import Path

from conftest import git, git_repo

from exportpass_fix.shared.fix_source import PASS_BASE, TEST_CLASS, TEST_PASS_INFRA
from exportpass_fix.upstream.mutants import with_call
from exportpass_fix.upstream.pr_description import TESTS_ONLY_SUBJECT
from exportpass_fix.upstream.prove import FAIL_UNFIXED
from exportpass_fix.upstream.variants import VARIANTS
from test_upstream_patch import AUTHOR, NEW_TESTS, NOT_UPSTREAM
from trees import linked_tree, run_pytest, wheel_texts

SHAPE_OF_22310 = next(v for v in VARIANTS if v.name == "fallback scan of placeholders")


def _tests_only(tree: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    out.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "patch", "--tests-only"]
        + ["--tree", str(tree), "-o", str(out), "--author", AUTHOR, *extra],
        capture_output=True,
        text=True,
    )


def test_tests_only_patch_applies_and_passes_on_a_tree_fixed_another_way(
    tmp_path: Path,
) -> None:
    texts = wheel_texts()
    fixed_another_way = with_call(texts[PASS_BASE], SHAPE_OF_22310.text)
    repo = git_repo(tmp_path / "et", {**texts, PASS_BASE: fixed_another_way})
    mutants = tmp_path / "mutants.json"
    mutants.write_text(
        json.dumps(
            {
                "executorch": "9.9.9",
                "variants": [
                    {
                        "name": "right one",
                        "correct": True,
                        "reason": "r",
                        "killed_by_upstream_class": [],
                        "killed_by_project": [],
                    },
                    {
                        "name": "wrong one",
                        "correct": False,
                        "reason": "why not",
                        "killed_by_upstream_class": ["test_a", "test_b", "test_c"],
                        "killed_by_project": [],
                    },
                ],
            }
        )
    )

    done = _tests_only(repo, tmp_path / "out", "--mutants", str(mutants))

    assert done.returncode == 0, done.stderr
    patch = Path(done.stdout.strip())
    text = patch.read_text()
    assert f"Subject: [PATCH] {TESTS_ONLY_SUBJECT}\n" in text
    message = text.partition("\n\n")[2].split("\n---\n", 1)[0]
    flat = " ".join(message.split())
    assert NOT_UPSTREAM.search(message) is None, NOT_UPSTREAM.search(message)
    assert f"the first command: {len(NEW_TESTS)} passed, 0 failed." in flat
    assert "fails for 1 of the 1 wrong rewrites and passes for 1 of the 1" in flat
    assert "- wrong one (why not): `test_a`, `test_b` and 1 more fail" in flat
    applied = git(repo, "am", str(patch))
    assert applied.returncode == 0, applied.stdout + applied.stderr
    changed = git(repo, "diff", "--name-only", "HEAD~1", "HEAD").stdout.split()
    assert changed == [TEST_PASS_INFRA]
    # The tests, as git am left them, pass on the other fix.
    tree = linked_tree(
        tmp_path / "check",
        {p: (repo / p).read_text() for p in (PASS_BASE, TEST_PASS_INFRA)},
    )
    run = run_pytest(tree, [TEST_PASS_INFRA], ["-k", TEST_CLASS])
    assert run.returncode == 0 and len(run.passed) == len(NEW_TESTS), run.output[-3000:]


def test_tests_only_patch_is_refused_on_an_unfixed_tree(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "et", wheel_texts())
    out = tmp_path / "out"

    done = _tests_only(repo, out)

    assert done.returncode == 2, done.stdout + done.stderr
    (refusal,) = done.stderr.strip().splitlines()
    assert "does not behave fixed: the new tests would fail there (" in refusal
    for name in FAIL_UNFIXED:
        assert name in refusal
    assert list(out.iterdir()) == []
