"""Upstream's static checks on the two patched files: the linters its
lintrunner runs (UFMT, which is black and usort, and FLAKE8, at the versions
requirements-lintrunner.txt pins) and mypy with its ``.mypy.ini``.

mypy is compared, not asserted clean: upstream's own ``test_pass_infra.py``
has errors of its own, so what counts is what the patch adds.
"""

import re
import subprocess
import sys
from collections import Counter
from importlib import metadata
from pathlib import Path
from typing import Dict, List, Tuple

from ...shared.installed import environ_without_hook
from ..making.trees import write_files

FILES = ["executorch/exir/pass_base.py", "executorch/exir/tests/test_pass_infra.py"]
_MYPY_ERROR = re.compile(r"^(?P<path>[^:\n]+):\d+:(?:\d+:)? error: (?P<what>.*)$")


def lint(root: Path, paths: List[str], flake8_config: Path) -> Dict[str, str]:
    """Linter name -> its complaint, for each linter that is not clean on
    ``paths`` (relative to ``root``, whose pyproject.toml holds usort's
    settings)."""
    complaints: Dict[str, str] = {}
    for command in (
        ["ufmt", "check", *paths],
        ["flake8", "--config", str(flake8_config), *paths],
    ):
        done = subprocess.run(
            [sys.executable, "-m", *command], cwd=root, capture_output=True, text=True
        )
        if done.returncode != 0:
            complaints[command[0]] = (done.stdout + done.stderr).strip()
    return complaints


def mypy_errors(tree: Path, mypy_ini: Path, cache_dir: Path) -> "Counter[str]":
    """mypy's errors in the two files as ``tree`` (a linked tree of
    ``trees.linked_tree``) holds them, without line numbers, so that two
    versions of a file compare. The files are named by their paths in
    ``tree``, as modules named on the command line would be looked up in
    the installed package instead."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(mypy_ini)]
        + ["--cache-dir", str(cache_dir), "--no-error-summary"]
        + ["--explicit-package-bases", *FILES],
        cwd=tree,
        env=environ_without_hook(),
        capture_output=True,
        text=True,
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"mypy did not run: {done.stderr.strip()[-500:]}")
    errors: "Counter[str]" = Counter()
    for line in done.stdout.splitlines():
        found = _MYPY_ERROR.match(line)
        if found and found["path"] in FILES:
            errors[f"{found['path']}: {found['what']}"] += 1
    return errors


def new_mypy_errors(
    unpatched: Path, patched: Path, mypy_ini: Path, cache_dir: Path
) -> Tuple[int, int, List[str]]:
    """mypy's error counts in the two files unpatched and patched, and the
    errors ``patched`` has that ``unpatched`` has not (with multiplicity)."""
    before = mypy_errors(unpatched, mypy_ini, cache_dir)
    after = mypy_errors(patched, mypy_ini, cache_dir)
    return (
        sum(before.values()),
        sum(after.values()),
        sorted((after - before).elements()),
    )


LINTERS = ("ufmt", "black", "usort", "flake8")


def static_checks_step(
    configs: Dict[str, str],
    patched: Dict[str, str],
    unpatched: Path,
    fixed: Path,
    work: Path,
) -> Tuple[bool, str, Dict[str, object]]:
    """``prove``'s step: lint the patched files with the ref's settings
    (``configs``: its ``.flake8``, ``pyproject.toml``, ``.mypy.ini``) and
    compare mypy on the unpatched and the fixed linked trees."""
    missing = [c for c in (".flake8", ".mypy.ini") if c not in configs]
    if missing:
        return False, f"the ref has no {', '.join(missing)}", {}
    lint_root = write_files(work / "lint", {**configs, **patched})
    try:
        python_files = [p for p in patched if p.endswith(".py")]
        complaints = lint(lint_root, python_files, lint_root / ".flake8")
        before, after, new = new_mypy_errors(
            unpatched, fixed, lint_root / ".mypy.ini", work / "mypy-cache"
        )
    except (RuntimeError, OSError) as error:
        return False, str(error).splitlines()[0], {}
    data: Dict[str, object] = {
        "linters": ", ".join(f"{tool} {metadata.version(tool)}" for tool in LINTERS),
        "lint_complaints": complaints,
        "mypy": metadata.version("mypy"),
        "mypy_errors_before": before,
        "mypy_errors_after": after,
        "mypy_new_errors": new,
    }
    detail = (
        f"lint: {', '.join(complaints) or 'clean'}; mypy: {before} errors"
        f" unpatched, {after} patched, {len(new)} new"
    )
    return not complaints and not new, detail, data
