"""``python -m exportpass_fix prove``: the patch on upstream's own source.

For each ref of an ExecuTorch git checkout (a work tree or a bare mirror):
that ref's ``exir/`` laid over the installed package (see ``trees``), the
patch made for it and applied with ``git am``, then the regression tests
without and with the fix, upstream's whole ``test_pass_infra.py`` with it,
and the ``exir/tests`` differential (patched failures within unpatched ones).
"""

import io
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Tuple

from .differential import run_differential
from .fix_source import PASS_BASE, TEST_CLASS, TEST_PASS_INFRA
from .trees import environ_without_hook, linked_tree, run_pytest
from .upstream_patch import make_patch, PatchRefused

# Without the fix these fail; the other new tests pin behaviour that is kept.
FAIL_UNFIXED = {
    "test_constant_only_inputs_keep_the_graph_fake_mode",
    "test_constant_inputs_of_two_fake_modes_are_rejected",
    "test_backend_pass_on_a_partitioned_constant_subgraph",
}
GIT_IDENTITY = ["-c", "user.name=prove", "-c", "user.email=prove@invalid"]


class ProveRefused(Exception):
    """Not an ExecuTorch git checkout, an unknown ref, or a ref's exir/ that
    cannot import over the installed package."""


@dataclass
class Step:
    name: str
    ok: bool
    detail: str


@dataclass
class RefProof:
    ref: str
    commit: str
    steps: List[Step] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(step.ok for step in self.steps)


def _git(git_dir: Path, *args: str, text: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *GIT_IDENTITY, *args],
        capture_output=True,
        text=text,
    )


def git_dir_of(checkout: Path) -> Path:
    """The git directory of a work tree or of a bare mirror, or refuse."""
    found = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--absolute-git-dir"],
        capture_output=True,
        text=True,
    )
    if not checkout.is_dir() or found.returncode != 0:
        raise ProveRefused(f"{checkout} is not a git checkout")
    return Path(found.stdout.strip())


def resolve(git_dir: Path, ref: str) -> str:
    commit = _git(git_dir, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if commit.returncode != 0:
        raise ProveRefused(f"{ref}: no such ref in {git_dir}")
    if _git(git_dir, "cat-file", "-e", f"{ref}:{PASS_BASE}").returncode != 0:
        raise ProveRefused(f"{ref}: not an ExecuTorch tree ({PASS_BASE} missing)")
    return commit.stdout.strip()


def ref_exir(git_dir: Path, commit: str) -> Dict[str, str]:
    """``exir/...`` path -> text, for the ref's text files under exir/."""
    archive = _git(git_dir, "archive", "--format=tar", commit, "exir", text=False)
    if archive.returncode != 0:
        raise ProveRefused(f"{commit[:12]}: git archive of exir/ failed")
    files: Dict[str, str] = {}
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        for member in tar.getmembers():
            handle = tar.extractfile(member) if member.isfile() else None
            if handle is not None:
                try:
                    files[member.name] = handle.read().decode("utf-8")
                except UnicodeDecodeError:
                    continue
    return files


def _write(root: Path, files: Dict[str, str]) -> Path:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    return root


def applied_with_git_am(work: Path, files: Dict[str, str]) -> Dict[str, str]:
    """The two patched files after ``git am`` of the patch onto the ref."""
    repo = _write(work / "am", {p: files[p] for p in (PASS_BASE, TEST_PASS_INFRA)})
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "ref"]):
        subprocess.run(["git", *GIT_IDENTITY, *args], cwd=repo, check=True)
    try:
        patch = make_patch(repo, work)
    except PatchRefused as refusal:
        raise ProveRefused(str(refusal)) from None
    am = subprocess.run(
        ["git", *GIT_IDENTITY, "am", str(patch)], cwd=repo, capture_output=True
    )
    if am.returncode != 0:
        raise RuntimeError(am.stderr.decode(errors="replace").strip())
    return {
        p: (repo / p).read_text(encoding="utf-8") for p in (PASS_BASE, TEST_PASS_INFRA)
    }


def check_imports(tree: Path, ref: str) -> None:
    env = environ_without_hook()
    env["PYTHONPATH"] = str(tree)
    done = subprocess.run(
        [sys.executable, "-c", "import executorch.exir, executorch.exir.pass_base"],
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ProveRefused(
            f"{ref}: its exir/ does not import over the installed package: {last}"
        )


def _short(ids: set) -> set:
    return {test_id.rsplit("::", 1)[-1] for test_id in ids}


def _prepared(git_dir: Path, ref: str, work: Path) -> Tuple[Dict[str, str], object]:
    """The ref's exir/ files, once they are known to import over the package,
    and the patched files after ``git am`` (or the error ``git am`` gave)."""
    commit = resolve(git_dir, ref)
    files = ref_exir(git_dir, commit)
    check_imports(linked_tree(work / "unpatched", files), ref)
    try:
        return files, applied_with_git_am(work, files)
    except RuntimeError as error:
        return files, error


def prove_ref(
    git_dir: Path,
    ref: str,
    prepared: Tuple[Dict[str, str], object],
    work: Path,
    say: Callable[[str], None],
) -> RefProof:
    proof = RefProof(ref, resolve(git_dir, ref))

    def step(name: str, ok: bool, detail: str) -> None:
        proof.steps.append(Step(name, ok, detail))
        say(f"[{ref}] {name}: {'ok' if ok else 'FAILED'}, {detail}")

    files, patched = prepared
    if not isinstance(patched, dict):
        step("git am", False, (str(patched).splitlines() or ["failed"])[0])
        return proof
    step("git am", True, "applied cleanly")
    unfixed = linked_tree(
        work / "unfixed", {**files, TEST_PASS_INFRA: patched[TEST_PASS_INFRA]}
    )
    fixed = linked_tree(work / "patched", {**files, **patched})
    without = run_pytest(unfixed, [TEST_PASS_INFRA], ["-k", TEST_CLASS])
    step(
        "new tests without the fix",
        _short(without.failed) == FAIL_UNFIXED and len(without.passed) == 2,
        f"{len(without.failed)} failed ({', '.join(sorted(_short(without.failed)))}),"
        f" {len(without.passed)} passed",
    )
    whole = run_pytest(fixed, [TEST_PASS_INFRA])
    step(
        "test_pass_infra.py with the fix",
        whole.returncode == 0 and not whole.failed and len(whole.passed) > 5,
        f"{len(whole.passed)} passed, {len(whole.failed)} failed",
    )
    say(f"[{ref}] exir/tests unpatched and patched, side by side (minutes) ...")
    differential = run_differential(work / "unpatched", fixed)
    step(
        "exir/tests differential",
        not differential.new_failures and len(differential.unpatched.passed) > 100,
        differential.summary(),
    )
    return proof


def prove(
    checkout: Path, refs: List[str], say: Callable[[str], None]
) -> List[RefProof]:
    """Raises ``ProveRefused`` before any test runs when an input does not fit."""
    git_dir = git_dir_of(checkout)
    for ref in refs:
        resolve(git_dir, ref)
    with tempfile.TemporaryDirectory(prefix="exportpass-prove-") as work:
        works = [Path(work) / str(i) for i in range(len(refs))]
        prepared = []
        for ref, ref_work in zip(refs, works):
            say(f"[{ref}] its exir/ over the installed package: importing ...")
            prepared.append(_prepared(git_dir, ref, ref_work))
        return [
            prove_ref(git_dir, ref, ref_prepared, ref_work, say)
            for ref, ref_prepared, ref_work in zip(refs, prepared, works)
        ]
