"""ExecuTorch trees: the installed package, linked, with files swapped.

A tree is a temporary directory holding ``executorch/``, in which every file
and directory of the installed package is a symlink except the files that
are replaced (and the directories above them, which are real directories of
symlinks). Putting the tree first on ``PYTHONPATH`` makes ``import
executorch`` load the replaced files and the package's everything else, so
ExecuTorch's own tests run against patched code without copying the package.
"""

import os
import platform
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Dict, List, Optional, Set

from ...shared.installed import (
    environ_without_hook,
    installed_executorch_dir,
    installed_version,
)


def executorch_dir() -> Path:
    path = installed_executorch_dir()
    assert path is not None, "executorch is not installed"
    return path


def write_files(root: Path, files: Dict[str, str]) -> Path:
    """Write ``files`` (relative path -> text) under ``root``; return ``root``."""
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    return root


def _link_dir(
    source: Path, dest: Path, replaced: Dict[Path, str], above: Set[Path]
) -> None:
    """Link ``source``'s entries into ``dest``, writing ``replaced`` files and
    descending into the directories ``above`` them."""
    dest.mkdir(parents=True)
    for entry in source.iterdir():
        if entry.name == "__pycache__":
            continue
        target = dest / entry.name
        if entry in replaced:
            target.write_text(replaced[entry], encoding="utf-8")
        elif entry in above:
            _link_dir(entry, target, replaced, above)
        else:
            target.symlink_to(entry)


def linked_tree(root: Path, replacements: Dict[str, str]) -> Path:
    """Build ``root/executorch`` from the installed package; return ``root``.

    ``replacements`` maps paths relative to the package (``exir/pass_base.py``)
    to the text that replaces them.
    """
    package = executorch_dir()
    replaced = {package / relative: text for relative, text in replacements.items()}
    above = {parent for path in replaced for parent in path.parents}
    _link_dir(package, root / "executorch", replaced, above)
    # Files the package does not have (new in a checkout's ref) are added.
    for relative, text in replacements.items():
        target = root / "executorch" / relative
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    return root


@dataclass
class PytestRun:
    returncode: int
    output: str
    passed: Set[str] = field(default_factory=set)
    failed: Set[str] = field(default_factory=set)
    skipped: Set[str] = field(default_factory=set)
    # Failed test id -> the first line of junit's message for it.
    reasons: Dict[str, str] = field(default_factory=dict)


def _test_id(case: ElementTree.Element) -> str:
    return f"{case.get('classname')}::{case.get('name')}"


def run_pytest(
    tree: Path,
    test_paths: List[str],
    extra_args: Optional[List[str]] = None,
    timeout: float = 1800,
    pytest_path: str = "",
) -> PytestRun:
    """Run pytest on ``test_paths`` (relative to the package) inside ``tree``,
    with the pytest found first in ``pytest_path`` if given.

    Collection errors are reported by pytest's junit XML as failed cases, so
    ``failed`` holds failing, erroring and uncollectable test ids alike.
    """
    junit = tree / f"junit-{os.getpid()}-{len(list(tree.glob('junit-*')))}.xml"
    # Without EXPORTPASS_FIX: the start-up hook would patch an unfixed tree.
    env = environ_without_hook()
    env["PYTHONPATH"] = os.pathsep.join(
        [str(tree)]
        + ([pytest_path] if pytest_path else [])
        + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # This project's pytest settings must not leak into upstream's tests.
    ini = tree / "pytest.ini"
    ini.write_text("[pytest]\n", encoding="utf-8")
    # The tests run from exir/ at the root, as in a checkout, so that they
    # import as exir.tests.*: as executorch.exir.tests.*, strict export's
    # .module() gave test_pass_metadata a graph it passes on torch 2.13.
    exir = tree / "exir"
    if not exir.exists():
        exir.symlink_to(tree / "executorch" / "exir", target_is_directory=True)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-c",
        str(ini),
        "--rootdir",
        str(tree),
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-q",
        f"--junitxml={junit}",
        *(extra_args or []),
        *[str(tree / path) for path in test_paths],
    ]
    completed = subprocess.run(
        command,
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    run = PytestRun(completed.returncode, completed.stdout + completed.stderr)
    if junit.exists():
        for case in ElementTree.parse(junit).getroot().iter("testcase"):
            outcomes = {child.tag for child in case}
            if outcomes & {"failure", "error"}:
                run.failed.add(_test_id(case))
                bad = next(c for c in case if c.tag in ("failure", "error"))
                message = (bad.get("message") or bad.text or "").strip()
                run.reasons[_test_id(case)] = (message.splitlines() or [""])[0]
            elif "skipped" in outcomes:
                run.skipped.add(_test_id(case))
            else:
                run.passed.add(_test_id(case))
    return run


def environment(pytest_version: str) -> Dict[str, str]:
    """The versions a run in a linked tree is made with, for the bodies."""
    try:
        torchvision = metadata.version("torchvision")
    except metadata.PackageNotFoundError:
        torchvision = ""
    return {
        "python": platform.python_version(),
        "pytest": pytest_version,
        "torch": metadata.version("torch"),
        "torchvision": torchvision,
        "executorch": installed_version(),
    }


def checkout_commit(tree: Path) -> Optional[str]:
    """The commit checked out at ``tree`` when it is the root of a git work
    tree, else None (an installed package, an unpacked archive)."""
    done = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--show-toplevel", "HEAD"],
        capture_output=True,
        text=True,
    )
    found = done.stdout.split()
    if done.returncode != 0 or len(found) != 2:
        return None
    return found[1] if Path(found[0]).resolve() == tree.resolve() else None


def git_output(tree: Path, *args: str) -> Optional[str]:
    """git's stripped stdout in ``tree``, None on failure or no output."""
    done = subprocess.run(
        ["git", "-C", str(tree), *args], capture_output=True, text=True
    )
    return (done.stdout.strip() or None) if done.returncode == 0 else None


def merged_as(tree: Path, pr: int) -> Optional[str]:
    """The commit of ``tree``'s history that landed PR ``pr`` (GitHub's
    squash subject ``(#N)`` or a ``pull/N`` link), if any."""
    return git_output(
        tree, "log", "-1", "--format=%H", "-E", f"--grep=\\(#{pr}\\)|/pull/{pr}\\b"
    )
