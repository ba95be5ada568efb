"""``prove`` on the installed wheel's own ``exir/`` (a git repository made of
it, with upstream's lint and type settings at its root), and the PR body
that quotes that proof: the measured Test plan.

This runs the wheel's whole shipped ``exir/tests`` unpatched and patched,
side by side (several minutes): marker ``differential``.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git, REPO

from exportpass_fix.upstream.making.evidence import fails_as_unfixed
from exportpass_fix.upstream.making.pr_description import MAX_LINES, WIDTH
from patch_facts import AUTHOR, NOT_UPSTREAM
from trees import executorch_dir

STEPS = [
    "git am",
    "test_pass_infra.py without the fix",
    "test_pass_infra.py with the fix",
    "static checks",
    "exir/tests differential",
]


@pytest.fixture(scope="module")
def wheel_checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("wheel-checkout")
    source = executorch_dir() / "exir"
    for path in source.rglob("*.py"):
        if "__pycache__" not in path.parts:
            target = repo / "exir" / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    for name in (".flake8", ".mypy.ini"):
        (repo / name).write_text((REPO / name).read_text())
    (repo / "pyproject.toml").write_text(
        "[tool.usort]\nfirst_party_detection = false\n"
    )
    for args in (("init", "-q"), ("add", "-A"), ("commit", "-q", "-m", "wheel")):
        assert git(repo, *args).returncode == 0
    return repo


@pytest.fixture(scope="module")
def proof_file(wheel_checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    done = subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "prove", "--json"]
        + ["--checkout", str(wheel_checkout), "--ref", "HEAD"],
        capture_output=True,
        text=True,
        timeout=2400,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]
    # Progress: a line per step and per pytest run, each with the seconds so far.
    for line in (
        "[HEAD] pytest exir/tests/test_pass_infra.py without the fix: started",
        "[HEAD] pytest exir/tests in patched: started",
        "[HEAD] exir/tests differential: ok, ",
    ):
        assert re.search(rf"^\[ *[\d.]+ s\] {re.escape(line)}", done.stderr, re.M), line
    path = tmp_path_factory.mktemp("proof") / "proof.json"
    path.write_text(done.stdout)
    return path


@pytest.mark.differential
def test_prove_passes_every_step_on_the_wheel(proof_file: Path) -> None:
    (proof,) = json.loads(proof_file.read_text())

    assert proof["ok"] and [step["name"] for step in proof["steps"]] == STEPS
    data = {step["name"]: step["data"] for step in proof["steps"]}
    assert fails_as_unfixed(set(data["test_pass_infra.py without the fix"]["failed"]))
    assert data["test_pass_infra.py with the fix"]["failed"] == []
    static = data["static checks"]
    assert static["lint_complaints"] == {} and static["mypy_new_errors"] == []
    suite = data["exir/tests differential"]
    print(f"\nexir/tests: {suite}")
    assert suite["new_failures"] == []
    assert suite["unpatched"]["passed"] > 200
    assert suite["patched"]["passed"] >= suite["unpatched"]["passed"]


@pytest.mark.differential
def test_the_body_quotes_the_proof_of_this_patch(
    proof_file: Path, wheel_checkout: Path, tmp_path: Path
) -> None:
    (proof,) = json.loads(proof_file.read_text())
    data = {step["name"]: step["data"] for step in proof["steps"]}

    done = subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "patch", "--tree"]
        + [str(wheel_checkout), "-o", str(tmp_path), "--author", AUTHOR]
        + ["--proof", str(proof_file), "--closed-unmerged", "22310", "22891"],
        capture_output=True,
        text=True,
    )

    assert done.returncode == 0, done.stderr
    patch = Path(done.stdout.strip())
    message = patch.read_text().partition("\n\n")[2].split("\n---\n", 1)[0]
    lines = message.splitlines()
    assert len(lines) <= MAX_LINES and max(map(len, lines)) <= WIDTH
    plan = " ".join(message.split("### Test plan", 1)[1].split())
    env = proof["environment"]
    # The wheel's tree has no requirements-dev.txt: no pin, and it says so.
    assert env["pytest_pin"] == ""
    assert (
        f" at {proof['commit'][:12]}, its `exir/` in place of an installed"
        f" ExecuTorch {env['executorch']}'s, which the tests import"
        f" (Python {env['python']}, torch {env['torch']},"
        f" pytest {env['pytest']}; no pin):" in plan
    )
    unfixed = data["test_pass_infra.py without the fix"]
    fixed = data["test_pass_infra.py with the fix"]
    failing = len(unfixed["failed"])
    total = unfixed["passed"] + failing
    assert fixed["passed"] == total
    # "without" says what it is, once per bullet.
    assert (
        f"`python -m pytest exir/tests/test_pass_infra.py`: {failing} of {total}"
        f" fail with `exir/pass_base.py` unchanged, 0 of {total} with the fix." in plan
    )
    assert (
        "`python -m pytest exir/tests --continue-on-collection-errors`:"
        " no new failure, the same " in plan
    )
    assert f"no findings ({data['static checks']['linters']})." in plan
    assert NOT_UPSTREAM.search(message) is None, NOT_UPSTREAM.search(message)
    applied = git(wheel_checkout, "am", str(patch))
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert git(wheel_checkout, "reset", "-q", "--hard", "HEAD~1").returncode == 0
