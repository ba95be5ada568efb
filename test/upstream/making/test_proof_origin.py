"""``patch --proof`` quotes a proof only where it was made: on the tree's own
commit and over the ExecuTorch installed here. Otherwise it refuses in one
line, exit status 2, naming what differs, unless ``--proof-from-elsewhere``
says that is meant, and then the Test plan says how that run differs. A
proof run over another torch is quoted, the Test plan saying so; one with
a failed step is refused, whatever its summary says.

The proofs are records in ``prove --json``'s shape for the patch made here
(its digest), with a run's counts in them; what is tested is which of them
``patch`` takes and what the body says of where they were made.
"""

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Dict

import pytest
from conftest import git
from exportpass_fix.shared.installed import installed_version
from exportpass_fix.upstream.making.mail_patch import patch_digest
from exportpass_fix.upstream.making.patch import planned_changes
from patch_facts import AUTHOR
from trees import executorch_dir

pytestmark = pytest.mark.once
ELSEWHERE = "--proof-from-elsewhere"


def _proof(tree: Path, commit: str, executorch: str) -> Dict[str, object]:
    counts = {"passed": 40, "failed": ["test_a", "test_b"]}
    return {
        "ref": "main",
        "commit": commit,
        "environment": {
            "python": "3.11.7",
            "pytest": "8.4.2",
            "torch": metadata.version("torch"),
            "executorch": executorch,
            "pytest_pin": "",
        },
        "patch_sha256": patch_digest(planned_changes(tree)),
        "steps": [
            {"name": "test_pass_infra.py without the fix", "ok": True, "data": counts},
            {
                "name": "test_pass_infra.py with the fix",
                "ok": True,
                "data": {**counts, "failed": []},
            },
            {"name": "static checks", "ok": True, "data": {"linters": "ufmt 2.8.0"}},
            {
                "name": "exir/tests differential",
                "ok": True,
                "data": {
                    "unpatched": {"passed": 300, "failed": 5},
                    "patched": {"passed": 300, "failed": 5},
                },
            },
        ],
        "ok": True,
    }


def _patch(
    tree: Path, proof: Dict, out: Path, *extra: str
) -> subprocess.CompletedProcess:
    record = out.parent / "proof.json"
    record.write_text(json.dumps([proof]))
    out.mkdir()
    return subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "patch", "--tree", str(tree)]
        + ["-o", str(out), "--author", AUTHOR, "--closed-unmerged", "22310", "22891"]
        + ["--proof", str(record), *extra],
        capture_output=True,
        text=True,
    )


def _plan(done: subprocess.CompletedProcess) -> str:
    message = Path(done.stdout.strip()).read_text().split("\n---\n", 1)[0]
    return " ".join(message.split("### Test plan", 1)[1].split())


def test_a_proof_made_on_this_commit_over_this_release_is_quoted(
    wheel_exir_repo: Path, tmp_path: Path
) -> None:
    head = git(wheel_exir_repo, "rev-parse", "HEAD").stdout.strip()
    proof = _proof(wheel_exir_repo, head, installed_version())

    done = _patch(wheel_exir_repo, proof, tmp_path / "out")

    assert done.returncode == 0, done.stderr
    plan = _plan(done)
    assert f"On main at {head[:12]}" in plan and "2 of 42 fail" in plan
    assert "Quoted from that run" not in plan


@pytest.mark.parametrize("differs", ["commit", "release", "no checkout"])
def test_a_proof_made_elsewhere_is_refused_naming_what_differs(
    differs: str, wheel_exir_repo: Path, tmp_path: Path
) -> None:
    head = git(wheel_exir_repo, "rev-parse", "HEAD").stdout.strip()
    tree = executorch_dir() if differs == "no checkout" else wheel_exir_repo
    commit = "1" * 40 if differs == "commit" else head
    release = "1.4.1" if differs == "release" else installed_version()
    said = {
        "commit": f"the proof was made on main at 111111111111, the tree is at {head[:12]}",
        "release": f"the proof ran over ExecuTorch 1.4.1, {installed_version()} is"
        " installed here",
        "no checkout": f"the proof was made on main at {head[:12]}, the tree is no"
        " git checkout's root",
    }[differs]

    done = _patch(tree, _proof(tree, commit, release), tmp_path / "out")

    assert done.returncode == 2, done.stdout + done.stderr
    (refusal,) = done.stderr.strip().splitlines()
    assert refusal.startswith(f"python -m exportpass_fix patch: refused: {said}: ")
    assert refusal.endswith(f"or pass {ELSEWHERE} to quote it as made elsewhere")
    assert list((tmp_path / "out").iterdir()) == []


def test_a_proof_from_elsewhere_when_meant_says_where_its_counts_come_from(
    wheel_exir_repo: Path, tmp_path: Path
) -> None:
    head = git(wheel_exir_repo, "rev-parse", "HEAD").stdout.strip()
    proof = _proof(wheel_exir_repo, head, "1.4.1")

    done = _patch(wheel_exir_repo, proof, tmp_path / "out", ELSEWHERE)

    assert done.returncode == 0, done.stderr
    plan = _plan(done)
    assert (
        "Quoted from that run, not made here: the proof ran over ExecuTorch"
        f" 1.4.1, {installed_version()} is installed here." in plan
    )


def test_a_proof_run_over_another_torch_is_quoted_saying_so(
    wheel_exir_repo: Path, tmp_path: Path
) -> None:
    head = git(wheel_exir_repo, "rev-parse", "HEAD").stdout.strip()
    proof = _proof(wheel_exir_repo, head, installed_version())
    proof["environment"]["torch"] = "2.99.0"  # type: ignore[index]

    done = _patch(wheel_exir_repo, proof, tmp_path / "out")

    assert done.returncode == 0, done.stderr
    assert (
        "Quoted from that run, not made here: the proof ran over torch 2.99.0,"
        f" {metadata.version('torch')} is installed here." in _plan(done)
    )


def test_a_proof_with_a_failed_step_is_refused_whatever_its_summary_says(
    wheel_exir_repo: Path, tmp_path: Path
) -> None:
    head = git(wheel_exir_repo, "rev-parse", "HEAD").stdout.strip()
    proof = _proof(wheel_exir_repo, head, installed_version())
    proof["steps"][2]["ok"] = False  # type: ignore[index]
    assert proof["ok"] is True  # the summary says it passed

    done = _patch(wheel_exir_repo, proof, tmp_path / "out")

    assert done.returncode == 2, done.stdout + done.stderr
    (refusal,) = done.stderr.strip().splitlines()
    assert refusal == (
        "python -m exportpass_fix patch: refused: the proof failed (main's"
        " 'static checks'): a proof is quoted only when every step of it passed"
    )
    assert list((tmp_path / "out").iterdir()) == []
