"""Bad input to the patch maker's CLI: a specific message, exit status 2
(refused; 0 is success, 1 a failed check), and nothing written or changed."""

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import pytest
from conftest import git_repo
from exportpass_fix.shared.fix_source import PASS_BASE, TEST_CLASS, TEST_PASS_INFRA

from exportpass_fix.shared.report import EXIT_REFUSED
from exportpass_fix.upstream.making.mail_patch import patch_digest
from exportpass_fix.upstream.making.patch import planned_changes
from trees import executorch_dir, wheel_texts, with_earlier_fix

pytestmark = pytest.mark.once


def _copy_tree(root: Path, texts: Dict[str, str]) -> Path:
    for relative, text in texts.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


def _edited_call(texts: Dict[str, str]) -> Dict[str, str]:
    marker = "        inputs = self.inputs(graph_module)\n"
    assert marker in texts[PASS_BASE]
    edited = texts[PASS_BASE].replace(marker, marker + "        inputs = inputs\n", 1)
    return {**texts, PASS_BASE: edited}


def _with_test_only(texts: Dict[str, str], patched: dict) -> Dict[str, str]:
    return {**texts, TEST_PASS_INFRA: patched[TEST_PASS_INFRA]}


TREES: Dict[str, Callable[[Path, dict], Path]] = {
    "missing path": lambda root, patched: root / "nowhere",
    "not executorch": lambda root, patched: _copy_tree(root, {"README.md": "hi"}),
    "no test file": lambda root, patched: _copy_tree(
        root, {PASS_BASE: wheel_texts()[PASS_BASE]}
    ),
    "already patched": lambda root, patched: _copy_tree(root, dict(patched)),
    "edited call": lambda root, patched: _copy_tree(root, _edited_call(wheel_texts())),
    "earlier fix": lambda root, patched: _copy_tree(
        root, with_earlier_fix(wheel_texts())
    ),
    "test already added": lambda root, patched: _copy_tree(
        root, _with_test_only(wheel_texts(), patched)
    ),
    "not python": lambda root, patched: _copy_tree(
        root, {**wheel_texts(), PASS_BASE: "def call(:\n"}
    ),
}
MESSAGES = {
    "missing path": "no such directory",
    "not executorch": "is not an ExecuTorch tree: exir/pass_base.py is missing",
    "no test file": "exir/tests/test_pass_infra.py is missing",
    "already patched": "the fix for #22309 is already applied",
    "edited call": "differs from every unfixed version the patch knows",
    "earlier fix": "already fixed (earlier version of this fix",
    "test already added": f"{TEST_CLASS} is already there",
    "not python": "exir/pass_base.py is not readable Python source",
}


def _snapshot(root: Path) -> Dict[str, str]:
    if not root.exists():
        return {}
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


# The standalone PR's option, which every full patch for main needs.
MAIN = ["--closed-unmerged", "22310", "22891"]
IDENTITY = "[user]\n\tname = A Person\n\temail = a.person@example.org\n"


def _patch_cli(*args: str, git_identity: bool = True) -> subprocess.CompletedProcess:
    """``patch`` with a git configuration of its own, holding an identity or
    none, run outside any repository (whose config could hold one)."""
    home = Path(tempfile.mkdtemp(prefix="patch-cli-"))
    config = home / "gitconfig"
    config.write_text(IDENTITY if git_identity else "")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": str(config), "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "patch", *args],
        capture_output=True,
        text=True,
        cwd=home,
        env=env,
    )


@pytest.mark.parametrize("case", sorted(TREES))
def test_bad_tree_is_refused_and_nothing_changes(
    case: str, tmp_path: Path, patched: dict
) -> None:
    tree = TREES[case](tmp_path / "tree", patched)
    out = tmp_path / "out"
    out.mkdir()
    before = _snapshot(tmp_path)

    done = _patch_cli("--tree", str(tree), "-o", str(out), *MAIN)

    assert done.returncode == EXIT_REFUSED == 2, done.stdout + done.stderr
    assert MESSAGES[case] in done.stderr
    assert done.stdout == ""
    assert _snapshot(tmp_path) == before


def _out_dirs(tmp_path: Path) -> Dict[str, List[str]]:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a directory")
    return {
        # Root writes anywhere it has permission bits for; /proc takes no
        # new files from anyone.
        "unwritable": ["/proc", "is not writable"],
        "a file": [str(a_file), "is not a directory"],
        "missing": [str(tmp_path / "missing" / "deeper"), "does not exist"],
    }


@pytest.mark.parametrize("case", ["unwritable", "a file", "missing"])
def test_bad_output_directory_is_refused_and_nothing_written(
    case: str, tmp_path: Path
) -> None:
    out, message = _out_dirs(tmp_path)[case]
    before = _snapshot(tmp_path)
    wheel_before = _snapshot(executorch_dir() / "exir")

    done = _patch_cli("-o", out, *MAIN)

    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr
    assert _snapshot(tmp_path) == before
    assert _snapshot(executorch_dir() / "exir") == wheel_before


def test_usage_errors_exit_2_without_writing(tmp_path: Path) -> None:
    done = _patch_cli("--no-such-flag", "-o", str(tmp_path))

    assert done.returncode == 2
    assert "unrecognized arguments" in done.stderr
    assert list(tmp_path.iterdir()) == []


def _bad_options(tmp_path: Path) -> Dict[str, List[str]]:
    not_json = tmp_path / "not.json"
    not_json.write_text("{")
    not_matrix = tmp_path / "list.json"
    not_matrix.write_text("[1, 2]")
    other_patch = tmp_path / "other.json"
    proof = {"ref": "main", "commit": "0" * 40, "environment": {}, "steps": []}
    other_patch.write_text(json.dumps([proof | {"patch_sha256": "0" * 64, "ok": True}]))
    # A passing proof of this very patch, but of a release branch.
    digest = patch_digest(planned_changes(executorch_dir()))
    release_proof = tmp_path / "release.json"
    release_proof.write_text(
        json.dumps([proof | {"ref": "release/1.4", "patch_sha256": digest, "ok": True}])
    )
    # This patch's proof passed, and the record's other ref failed a step.
    failed_step = tmp_path / "failed-step.json"
    git_am = {"name": "git am", "ok": False, "detail": "patch does not apply"}
    failed_step.write_text(
        json.dumps(
            [
                proof | {"patch_sha256": digest, "ok": True},
                proof
                | {"ref": "release/1.4", "patch_sha256": "1" * 64}
                | {"steps": [git_am], "ok": False},
            ]
        )
    )
    return {
        "tests-only with a proof": [
            "--tests-only",
            "--proof",
            str(other_patch),
            "--proof, --closed-unmerged and --pick-of are for the full patch",
        ],
        "tests-only with closed-unmerged": [
            "--tests-only",
            "--closed-unmerged",
            "22310",
            "--proof, --closed-unmerged and --pick-of are for the full patch",
        ],
        "standalone without closed-unmerged": [
            "the standalone PR is only for #22310 and #22891 closed unmerged:"
            " pass --closed-unmerged 22310 22891 once they are",
        ],
        "closed-unmerged one of the two": [
            "--closed-unmerged",
            "22891",
            "the standalone PR is only for #22310 and #22891 closed unmerged",
        ],
        "closed-unmerged and pick-of": [
            "--closed-unmerged",
            "22310",
            "--pick-of",
            "23001",
            "--closed-unmerged is for main's PR, --pick-of for a release branch's",
        ],
        "pick-of not a change": [
            "--pick-of",
            "latest",
            "--pick-of latest: not a PR number, pull URL or commit",
        ],
        "release proof without pick-of": [
            "--closed-unmerged",
            "22310",
            "22891",
            "--proof",
            str(release_proof),
            "the proof is of release/1.4: a release branch's PR takes --pick-of",
        ],
        "proof-from-elsewhere without a proof": [
            *MAIN,
            "--proof-from-elsewhere",
            "--proof-from-elsewhere goes with --proof",
        ],
        "for-pr without tests-only": [
            "--for-pr",
            "22310",
            "--for-pr goes with --tests-only",
        ],
        "for-pr not a number": [
            "--tests-only",
            "--for-pr",
            "0",
            "--for-pr 0 is not a pull request number",
        ],
        "proof missing": [*MAIN, "--proof", str(tmp_path / "none.json"), "No such"],
        "proof not JSON": [*MAIN, "--proof", str(not_json), "is not JSON"],
        "proof not a proof": [
            *MAIN,
            "--proof",
            str(not_matrix),
            "is not the output of `python -m exportpass_fix prove --json`",
        ],
        "proof of another patch": [
            *MAIN,
            "--proof",
            str(other_patch),
            "proves another patch (none of its refs main yields the patch made"
            " for this tree)",
        ],
        "proof with a failed step": [
            *MAIN,
            "--proof",
            str(failed_step),
            "the proof failed (release/1.4's 'git am'): a proof is quoted only"
            " when every step of it passed",
        ],
        "co-author without email": [
            "--co-author",
            "Jane Doe",
            'is not "Name <email>"',
        ],
        "author without name": ["--author", "<a@b.c>", 'is not "Name <email>"'],
    }


@pytest.mark.parametrize(
    "case",
    [
        "co-author without email",
        "author without name",
        "tests-only with a proof",
        "tests-only with closed-unmerged",
        "standalone without closed-unmerged",
        "closed-unmerged one of the two",
        "closed-unmerged and pick-of",
        "pick-of not a change",
        "release proof without pick-of",
        "proof-from-elsewhere without a proof",
        "for-pr without tests-only",
        "for-pr not a number",
        "proof missing",
        "proof not JSON",
        "proof not a proof",
        "proof of another patch",
        "proof with a failed step",
    ],
)
def test_bad_patch_options_are_refused_and_nothing_written(
    case: str, tmp_path: Path
) -> None:
    *args, message = _bad_options(tmp_path)[case]
    out = tmp_path / "out"
    out.mkdir()
    before = _snapshot(tmp_path)

    done = _patch_cli(*args, "-o", str(out))

    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert _snapshot(tmp_path) == before


def test_no_author_is_refused_and_nothing_written(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()

    done = _patch_cli("-o", str(out), git_identity=False)

    assert done.returncode == 2, done.stdout + done.stderr
    (refusal,) = done.stderr.strip().splitlines()
    assert 'no author: pass --author "Name <email>" or set git config' in refusal
    assert list(out.iterdir()) == []
    # With the identity in git's configuration, the same call writes the patch.
    done = _patch_cli("-o", str(out), *MAIN)
    assert done.returncode == 0, done.stderr
    assert (
        "From: A Person <a.person@example.org>" in Path(done.stdout.strip()).read_text()
    )


def _refusal(command: str, *args: str) -> Tuple[str, str]:
    """Runs ``command``, which must refuse: exit 2, one line on stderr, the
    last, after at most the progress lines of ``prove``. Returns that line
    and stdout."""
    done = subprocess.run(
        [sys.executable, "-m", "exportpass_fix", command, *args],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    (refusal,) = [line for line in lines if not line.startswith("[")]
    assert lines[-1] == refusal
    return refusal, done.stdout


def test_cherry_pick_onto_an_unknown_branch_is_refused() -> None:
    for branch in ("main", "release/1.3", "release/9.9"):
        refusal, stdout = _refusal("cherry-pick", "--onto", branch)
        assert f"{branch!r} is not a release branch this fix goes to" in refusal
        assert stdout == ""


def test_cherry_pick_options_that_do_not_fit_are_refused() -> None:
    refusal, stdout = _refusal(
        "cherry-pick", "--onto", "release/1.5", "--tracker", "24000"
    )
    assert "--tracker is for a reopened branch" in refusal
    assert stdout == ""
    refusal, stdout = _refusal(
        "cherry-pick", "--onto", "release/1.4", "--tracker", "24000"
    )
    assert "--tracker needs --trunk-pr" in refusal
    assert stdout == ""


def test_cherry_pick_refuses_a_survey_it_cannot_cite(tmp_path: Path) -> None:
    survey = Path(__file__).resolve().parents[1] / "survey" / "survey.json"
    unbitten = json.loads(survey.read_text())
    unbitten["models"] = {}
    (tmp_path / "unbitten.json").write_text(json.dumps(unbitten))
    (tmp_path / "deep.json").write_text("[" * 100000)
    nightly = json.loads(survey.read_text())
    nightly["made_from"]["versions"]["executorch"] = "1.5.0.dev20260101"
    (tmp_path / "nightly.json").write_text(json.dumps(nightly))
    for onto, path, message in [
        ("release/1.4", survey, "what release/1.4 gets has no reason to cite it"),
        (
            "release/1.5",
            tmp_path / "nightly.json",
            "'1.5.0.dev20260101', not release/1.5",
        ),
        ("release/1.5", tmp_path / "unbitten.json", "no model failed with #22309"),
        ("release/1.5", tmp_path / "deep.json", "cannot be read as JSON"),
        ("release/1.5", tmp_path / "none.json", "no such file"),
    ]:
        refusal, stdout = _refusal("cherry-pick", "--onto", onto, "--survey", str(path))
        assert message in refusal and stdout == "", refusal


@pytest.mark.parametrize(
    "args, message",
    [
        (["--release", "1.9.9"], "unknown ExecuTorch release '1.9.9'; known: 1.0.0"),
        (["--release", "1.5.1=next"], "'next' is not a torch version"),
    ],
)
def test_releases_refuses_what_it_cannot_run(args: List[str], message: str) -> None:
    refusal, stdout = _refusal("releases", *args)
    assert refusal.startswith("python -m exportpass_fix releases: refused: ")
    assert message in refusal
    assert stdout == ""


# A tree pinning a pytest that no index has: refused before any test runs.
UNSATISFIABLE_PIN = {"requirements-dev.txt": "pytest-xdist\npytest<1.0\n"}


def test_tests_only_under_a_pin_no_pytest_satisfies_is_refused(
    tmp_path: Path, patched: dict
) -> None:
    tree = _copy_tree(tmp_path / "tree", {**dict(patched), **UNSATISFIABLE_PIN})
    tree = _copy_tree(tree, {TEST_PASS_INFRA: wheel_texts()[TEST_PASS_INFRA]})
    out = tmp_path / "out"
    out.mkdir()
    before = _snapshot(tmp_path)

    done = _patch_cli("--tests-only", "--tree", str(tree), "-o", str(out))

    assert done.returncode == 2, done.stdout + done.stderr
    (refusal,) = done.stderr.strip().splitlines()
    assert "pins pytest<1.0 (requirements-dev.txt) and this environment" in refusal
    assert "installing pytest<1.0 failed: " in refusal
    assert _snapshot(tmp_path) == before


def _prove_cases(tmp_path: Path) -> Dict[str, List[str]]:
    tree = wheel_texts()
    broken = {**tree, "exir/__init__.py": "raise ImportError('broken on purpose')\n"}
    return {
        "not a checkout": [str(tmp_path), "HEAD", "is not a git checkout"],
        "unknown ref": [
            str(git_repo(tmp_path / "et", tree)),
            "no-such-ref",
            "no-such-ref: no such ref",
        ],
        "not executorch": [
            str(git_repo(tmp_path / "other", {"README.md": "hi\n"})),
            "HEAD",
            "not an ExecuTorch tree",
        ],
        "exir does not import": [
            str(git_repo(tmp_path / "broken", broken)),
            "HEAD",
            "does not import over the installed package",
        ],
        "a pin no pytest satisfies": [
            str(git_repo(tmp_path / "pinned", {**tree, **UNSATISFIABLE_PIN})),
            "HEAD",
            "HEAD pins pytest<1.0 (requirements-dev.txt) and this environment has"
            " pytest ",
        ],
    }


@pytest.mark.parametrize(
    "case",
    [
        "not a checkout",
        "unknown ref",
        "not executorch",
        "exir does not import",
        "a pin no pytest satisfies",
    ],
)
def test_prove_refuses_what_it_cannot_prove(case: str, tmp_path: Path) -> None:
    checkout, ref, message = _prove_cases(tmp_path)[case]
    before = _snapshot(tmp_path)

    refusal, stdout = _refusal("prove", "--checkout", checkout, "--ref", ref)

    assert refusal.startswith("python -m exportpass_fix prove: refused: ")
    assert message in refusal and stdout == ""
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "give --checkout (and --ref), or --from alone"),
        (["--from", "R", "--checkout", "."], "give --checkout (and --ref), or --from"),
        (["--from", "R", "--ref", "main"], "give --checkout (and --ref), or --from"),
        (["--from", "R"], "is not the output of"),
    ],
)
def test_prove_from_takes_a_record_of_prove_alone(
    args: List[str], message: str, tmp_path: Path
) -> None:
    record = tmp_path / "record.json"
    record.write_text(json.dumps({"stdout": json.dumps({"not": "a proof"})}))
    args = [str(record) if a == "R" else a for a in args]

    refusal, stdout = _refusal("prove", *args)

    assert refusal.startswith("python -m exportpass_fix prove: refused: ")
    assert message in refusal and stdout == ""
