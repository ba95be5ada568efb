"""ExecuTorch trees for tests: the installed wheel, linked, with files swapped.

A tree here is a temporary directory holding ``executorch/``, in which every
file and directory of the installed package is a symlink except the files a
test replaces (and the directories above them, which are real directories of
symlinks). Putting the tree first on ``PYTHONPATH`` makes ``import
executorch`` load the replaced files and the wheel's everything else, so the
wheel's own tests run against patched code without copying the package.
"""

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Set

from exportpass_fix.__main__ import installed_executorch_dir
from exportpass_fix.autoapply import environ_without_hook
from exportpass_fix.fix_source import PASS_BASE, TEST_PASS_INFRA
from exportpass_fix.source_spans import method_span
from exportpass_fix.upstream_patch import planned_changes


def executorch_dir() -> Path:
    path = installed_executorch_dir()
    assert path is not None, "executorch is not installed"
    return path


def patched_texts() -> Dict[str, str]:
    """Relative path (``exir/...``) -> patched text, for the installed wheel."""
    return {change.path: change.new for change in planned_changes(executorch_dir())}


def wheel_texts() -> Dict[str, str]:
    """The installed wheel's texts of the two files the patch changes."""
    return {
        relative: (executorch_dir() / relative).read_text()
        for relative in (PASS_BASE, TEST_PASS_INFRA)
    }


EARLIER_CALL = Path(__file__).resolve().parent / "data" / "call_0.1.0.py.txt"


def with_earlier_fix(texts: Dict[str, str]) -> Dict[str, str]:
    """``texts`` with pass_base's ``call`` replaced by this project's 0.1.0 fix."""
    span = method_span(texts[PASS_BASE], "_ExportPassBase", "call")
    assert span is not None
    earlier = (
        "".join(span.lines[: span.start - 1])
        + EARLIER_CALL.read_text()
        + "".join(span.lines[span.end :])
    )
    return {**texts, PASS_BASE: earlier}


def _link_dir(source: Path, dest: Path, replaced: Dict[Path, str]) -> None:
    dest.mkdir(parents=True)
    for entry in source.iterdir():
        if entry.name == "__pycache__":
            continue
        target = dest / entry.name
        if entry in replaced:
            target.write_text(replaced[entry], encoding="utf-8")
        elif any(entry in path.parents for path in replaced):
            _link_dir(entry, target, replaced)
        else:
            target.symlink_to(entry)


def linked_tree(root: Path, replacements: Dict[str, str]) -> Path:
    """Build ``root/executorch`` from the installed package; return ``root``.

    ``replacements`` maps paths relative to the package (``exir/pass_base.py``)
    to the text that replaces them.
    """
    package = executorch_dir()
    _link_dir(
        package,
        root / "executorch",
        {package / relative: text for relative, text in replacements.items()},
    )
    return root


@dataclass
class PytestRun:
    returncode: int
    output: str
    passed: Set[str] = field(default_factory=set)
    failed: Set[str] = field(default_factory=set)
    skipped: Set[str] = field(default_factory=set)


def _test_id(case: ElementTree.Element) -> str:
    return f"{case.get('classname')}::{case.get('name')}"


def run_pytest(
    tree: Path,
    test_paths: List[str],
    extra_args: Optional[List[str]] = None,
    timeout: float = 1800,
) -> PytestRun:
    """Run pytest on ``test_paths`` (relative to the package) inside ``tree``.

    Collection errors are reported by pytest's junit XML as failed cases, so
    ``failed`` holds failing, erroring and uncollectable test ids alike.
    """
    junit = tree / f"junit-{os.getpid()}-{len(list(tree.glob('junit-*')))}.xml"
    # Without EXPORTPASS_FIX: the start-up hook would patch an unfixed tree.
    env = environ_without_hook()
    env["PYTHONPATH"] = os.pathsep.join(
        [str(tree)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # This project's pytest settings must not leak into upstream's tests.
    ini = tree / "pytest.ini"
    ini.write_text("[pytest]\n", encoding="utf-8")
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
        *[str(tree / "executorch" / path) for path in test_paths],
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
            elif "skipped" in outcomes:
                run.skipped.add(_test_id(case))
            else:
                run.passed.add(_test_id(case))
    return run
