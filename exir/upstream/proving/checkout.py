"""An ExecuTorch checkout's refs, read through git (a work tree or a bare
mirror: ``git --git-dir``), and a ref's two files patched with ``git am``."""

import io
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Dict, Tuple

from ...shared.fix_source import PASS_BASE, TEST_PASS_INFRA
from ...shared.installed import environ_without_hook

from ..making.buck_deps import BUILD_FILES
from ..making.mail_patch import patch_digest
from ..making.patch import make_patch, PatchRefused, planned_changes
from ..making.trees import write_files

PROVE_AUTHOR = "prove <prove@invalid>"
GIT_IDENTITY = ["-c", "user.name=prove", "-c", "user.email=prove@invalid"]
# Read from the ref's root: upstream's lint and type settings, the pytest
# settings whose ignores its CI applies to exir/tests, and its pytest pin.
ROOT_CONFIGS = (
    ".flake8",
    "pyproject.toml",
    ".mypy.ini",
    "pytest.ini",
    "requirements-dev.txt",
)


class ProveRefused(Exception):
    """Not an ExecuTorch git checkout, an unknown ref, or a ref's exir/ that
    cannot import over the installed package."""


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


def root_configs(git_dir: Path, commit: str) -> Dict[str, str]:
    """The ref's lint and type settings that exist, by file name."""
    found = {}
    for name in ROOT_CONFIGS:
        shown = _git(git_dir, "show", f"{commit}:{name}")
        if shown.returncode == 0:
            found[name] = shown.stdout
    return found


def applied_with_git_am(
    work: Path, files: Dict[str, str]
) -> Tuple[Dict[str, str], str]:
    """The files the patch changes, after ``git am`` of the patch onto the
    ref's two files and its build files; and the patch's digest."""
    kept = {
        path: text
        for path, text in files.items()
        if path in (PASS_BASE, TEST_PASS_INFRA) or Path(path).name in BUILD_FILES
    }
    repo = write_files(work / "am", kept)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "ref"]):
        subprocess.run(["git", *GIT_IDENTITY, *args], cwd=repo, check=True)
    try:
        changes = planned_changes(repo)
        patch = make_patch(repo, work, author=PROVE_AUTHOR)
    except PatchRefused as refusal:
        raise ProveRefused(str(refusal)) from None
    am = subprocess.run(
        ["git", *GIT_IDENTITY, "am", str(patch)], cwd=repo, capture_output=True
    )
    if am.returncode != 0:
        raise RuntimeError(am.stderr.decode(errors="replace").strip())
    patched = {c.path: (repo / c.path).read_text(encoding="utf-8") for c in changes}
    return patched, patch_digest(changes)


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
