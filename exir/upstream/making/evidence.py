"""The measured input to the bodies: the proof of the patch on a tree
(``prove --json``'s output or a record of it), checked for shape and for a
failed step; the whole ``test_pass_infra.py`` run in a linked tree on a
given ``pass_base.py``; and the pytest the runs use: where this
environment's does not satisfy the tree's pin (``requirements-dev.txt``),
``fitting_pytest`` installs one that does, pytest alone, with ``pip
--target`` into a directory of the run's own put on ``PYTHONPATH``; nothing
installed here changes."""

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Callable, Dict, List, Optional, Set

from ...shared.fix_source import (
    PASS_BASE,
    PATCHED_CLASS,
    PATCHED_METHOD,
    regression_test_source,
    TEST_CLASS,
    TEST_PASS_INFRA,
)
from ...shared.installed import environ_without_hook
from ...shared.known_calls import classify_call, UNFIXED
from ...shared.source_spans import class_span, method_span

from .trees import executorch_dir, linked_tree, run_pytest

PROOF_KEYS = ("ref", "commit", "environment", "patch_sha256", "steps", "ok")


class EvidenceError(ValueError):
    """An evidence or proof file is missing, not JSON, or of another shape."""


def load_proofs(path: Path) -> List[Dict[str, object]]:
    """What ``prove --json`` printed, from that output or a record of it."""
    try:
        proofs = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise EvidenceError(f"{path}: {error.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise EvidenceError(f"{path} is not JSON: {error}") from None
    if isinstance(proofs, dict) and isinstance(proofs.get("stdout"), str):
        try:
            proofs = json.loads(proofs["stdout"])
        except json.JSONDecodeError:
            pass  # refused below: not the shape of a proof
    if not isinstance(proofs, list) or not all(
        isinstance(p, dict) and all(key in p for key in PROOF_KEYS) for p in proofs
    ):
        raise EvidenceError(
            f"{path} is not the output of `python -m exportpass_fix prove --json`"
        )
    return proofs


def proof_of(proofs: List[Dict[str, object]], digest: str, where: str) -> Dict:
    """The proof whose patch is this one; refused if any step there failed."""
    failed = [
        f"{p['ref']}'s {repr(s.get('name')) if isinstance(s, dict) else 'step'}"
        for p in proofs
        for s in (p["steps"] if isinstance(p["steps"], list) else [None])
        if not isinstance(s, dict) or s.get("ok") is not True
    ]
    if failed or not all(p["ok"] is True for p in proofs):
        raise EvidenceError(
            f"{where} failed ({', '.join(failed) or 'so its summary says'}): a"
            " proof is quoted only when every step of it passed"
        )
    matching = [p for p in proofs if p["patch_sha256"] == digest]
    if not matching:
        raise EvidenceError(
            f"{where} proves another patch (none of its refs"
            f" {', '.join(str(p['ref']) for p in proofs) or '(none)'} yields the"
            " patch made for this tree); run prove on this tree's commit"
        )
    return matching[0]


def new_test_names() -> Set[str]:
    """The names of the tests this project adds, read from its test file."""
    span = class_span(regression_test_source(), TEST_CLASS)
    assert span is not None, f"{TEST_CLASS} is missing from the test file"
    return set(re.findall(r"^    def (test_\w+)\(", span.text, re.M))


def fails_as_unfixed(failed: Set[str]) -> bool:
    """Without the fix, some of the new tests fail and nothing else does;
    which ones is measured, never listed (the rest pin kept behaviour)."""
    return bool(failed) and failed <= new_test_names()


@dataclass(frozen=True)
class FileRun:
    """``test_pass_infra.py`` run whole: tests counted by id."""

    passed: int
    failed: List[str]  # short names

    @property
    def total(self) -> int:
        return self.passed + len(self.failed)


def file_run(
    tree: Path, pass_base: str, new_test: str, work: Path, pytest_path: str
) -> FileRun:
    linked = linked_tree(work, {PASS_BASE: pass_base, TEST_PASS_INFRA: new_test})
    run = run_pytest(linked, [TEST_PASS_INFRA], pytest_path=pytest_path)
    if run.skipped or not run.passed:
        raise EvidenceError(f"{tree}: {TEST_PASS_INFRA} skipped tests or ran none")
    return FileRun(len(run.passed), sorted(t.rsplit("::", 1)[-1] for t in run.failed))


def unfixed_pass_base(tree: Path, pass_base: str) -> str:
    """The tree's pass_base.py with the installed ExecuTorch's ``call``,
    which must be a known unfixed one, in place of its own."""
    installed = (executorch_dir() / PASS_BASE).read_text(encoding="utf-8")
    theirs = method_span(installed, PATCHED_CLASS, PATCHED_METHOD)
    ours = method_span(pass_base, PATCHED_CLASS, PATCHED_METHOD)
    if theirs is None or classify_call(theirs.text) != UNFIXED or ours is None:
        raise EvidenceError(
            f"the installed ExecuTorch's {PATCHED_METHOD} is not a known unfixed"
            f" one, or {tree} has none: the tests cannot be counted without a fix"
        )
    return ours.replaced_by(theirs.text)


PYTEST_PIN_FILE = "requirements-dev.txt"


def pytest_pin(requirements: str) -> str:
    """The specifier ``requirements`` (a requirements file's text) gives
    pytest itself, e.g. ``<9.0``; '' when it names none."""
    from packaging.requirements import InvalidRequirement, Requirement

    for line in requirements.splitlines():
        try:
            requirement = Requirement(line.split("#", 1)[0].strip())
        except InvalidRequirement:
            continue
        if requirement.name.lower() == "pytest":
            return str(requirement.specifier)
    return ""


class PytestUnfit(RuntimeError):
    """No pytest that satisfies the tree's pin could be installed."""


@dataclass(frozen=True)
class Pytest:
    """The pytest the runs use: its version, and the directory to put first
    on ``PYTHONPATH`` ('' for this environment's own)."""

    version: str
    path: str = ""


def _fits(pin: str, version: str) -> bool:
    from packaging.specifiers import SpecifierSet

    return not pin or SpecifierSet(pin).contains(version, prereleases=True)


def _version_at(target: Path) -> Optional[str]:
    """The version of the pytest a fresh interpreter imports with ``target``
    first on its path (its dependencies from this environment), or None."""
    env = {**environ_without_hook(), "PYTHONPATH": str(target)}
    done = subprocess.run(
        [sys.executable, "-c", "import pytest; print(pytest.__version__)"],
        env=env,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip() if done.returncode == 0 else None


def fitting_pytest(
    pin: str, where: str, work: Path, say: Callable[[str], None]
) -> Pytest:
    """This environment's pytest if it satisfies ``where``'s ``pin``, else
    one installed under ``work``; ``PytestUnfit`` if that fails."""
    version = metadata.version("pytest")
    if _fits(pin, version):
        return Pytest(version)
    target = work / "pytest"
    said = f"{where} pins pytest{pin} ({PYTEST_PIN_FILE}) and this environment has"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet"]
        + ["--disable-pip-version-check", "--no-deps", "--target", str(target)]
        + [f"pytest{pin}"],
        capture_output=True,
        text=True,
    )
    installed = _version_at(target) if done.returncode == 0 else None
    if installed is None or not _fits(pin, installed):
        local_index = "is ignored: it is neither a file nor a directory"
        errors = [e for e in done.stderr.splitlines() if local_index not in e]
        why = errors[-1] if errors else f"it imports as pytest {installed}"
        raise PytestUnfit(
            f"{said} pytest {version}; installing pytest{pin} failed: {why}"
        )
    say(f"{said} pytest {version}: pytest {installed} installed for these runs")
    return Pytest(installed, str(target))
