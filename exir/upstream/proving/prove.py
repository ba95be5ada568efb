"""``python -m exportpass_fix prove``: the patch on upstream's own source.

For each ref of an ExecuTorch git checkout (a work tree or a bare mirror):
its ``exir/`` over the installed package (``exir/tests`` only the ref's),
the patch applied with ``git am``, ``test_pass_infra.py`` without and with
the fix, and the ``exir/tests`` differential, under a pytest fitting the
ref's pin; a line on ``say`` per step and per pytest run.
"""

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Set

from ...shared.fix_source import PASS_BASE, TEST_PASS_INFRA

from ..making.evidence import (
    fails_as_unfixed,
    fitting_pytest,
    new_test_names,
    Pytest,
    pytest_pin,
    PYTEST_PIN_FILE,
    PytestUnfit,
)
from ..making.trees import environment, linked_tree, run_pytest
from .checkout import (
    applied_with_git_am,
    check_imports,
    git_dir_of,
    ProveRefused,
    ref_exir,
    resolve,
    root_configs,
)
from .differential import ignored_under_exir, run_differential
from .static_checks import static_checks_step


@dataclass
class Step:
    name: str
    ok: bool
    detail: str
    data: Dict[str, object] = field(default_factory=dict)


@dataclass
class RefProof:
    ref: str
    commit: str
    environment: Dict[str, str]
    patch_sha256: str = ""
    steps: List[Step] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.steps) and all(step.ok for step in self.steps)


def _short(ids: Set[str]) -> List[str]:
    return sorted(test_id.rsplit("::", 1)[-1] for test_id in ids)


def _ref_tree(root: Path, files: Dict[str, str]) -> Path:
    """``files`` over the package, without its ``exir/tests`` the ref lacks."""
    tree = linked_tree(root, files)
    package = tree / "executorch"
    for folder, dirs, names in os.walk(package / "exir" / "tests"):
        for entry in [Path(folder) / name for name in dirs + names]:
            known = str(entry.relative_to(package))
            if entry.is_symlink() and not any(
                f == known or f.startswith(known + "/") for f in files
            ):
                entry.unlink()
    return tree


@dataclass
class Prepared:
    files: Dict[str, str]
    configs: Dict[str, str]
    patched: Dict[str, str]
    digest: str
    pytest: Pytest
    am_error: str = ""


def _prepared(
    git_dir: Path, ref: str, work: Path, say: Callable[[str], None]
) -> Prepared:
    """The ref's exir/ files, once known to import over the package, a pytest
    fitting its pin, the files after ``git am`` (or the error it gave)."""
    commit = resolve(git_dir, ref)
    files = ref_exir(git_dir, commit)
    check_imports(_ref_tree(work / "unpatched", files), ref)
    configs = root_configs(git_dir, commit)
    pin = pytest_pin(configs.get(PYTEST_PIN_FILE, ""))
    try:
        pytest = fitting_pytest(pin, ref, work, say)
    except PytestUnfit as unfit:
        raise ProveRefused(str(unfit)) from None
    try:
        patched, digest = applied_with_git_am(work, files)
    except RuntimeError as error:
        return Prepared(files, configs, {}, "", pytest, str(error) or "failed")
    return Prepared(files, configs, patched, digest, pytest)


def _static_checks(
    prepared: Prepared, unpatched: Path, fixed: Path, work: Path
) -> Step:
    ok, detail, data = static_checks_step(
        prepared.configs, prepared.patched, unpatched, fixed, work
    )
    return Step("static checks", ok, detail, data)


def prove_ref(
    git_dir: Path, ref: str, prepared: Prepared, work: Path, say: Callable[[str], None]
) -> RefProof:
    pin = pytest_pin(prepared.configs.get(PYTEST_PIN_FILE, ""))
    env = environment(prepared.pytest.version) | {"pytest_pin": pin}
    proof = RefProof(ref, resolve(git_dir, ref), env, prepared.digest)

    def step(done: Step) -> None:
        proof.steps.append(done)
        say(f"[{ref}] {done.name}: {'ok' if done.ok else 'FAILED'}, {done.detail}")

    if prepared.am_error:
        step(Step("git am", False, prepared.am_error.splitlines()[0]))
        return proof
    step(Step("git am", True, "applied cleanly"))
    test_only = {p: t for p, t in prepared.patched.items() if p != PASS_BASE}
    unfixed = _ref_tree(work / "unfixed", {**prepared.files, **test_only})
    fixed = _ref_tree(work / "patched", {**prepared.files, **prepared.patched})
    # The whole file twice: the new tests kept and the fix reverted, then the
    # whole patch. A test failing both ways fails for its tree's reason.
    runs = {}
    for tree, side in ((unfixed, "without"), (fixed, "with")):
        say(f"[{ref}] pytest {TEST_PASS_INFRA} {side} the fix: started")
        runs[side] = run_pytest(
            tree, [TEST_PASS_INFRA], pytest_path=prepared.pytest.path
        )
    both = set(_short(runs["without"].failed)) & set(_short(runs["with"].failed))
    for side, run in runs.items():
        failed, kept = _short(run.failed), not both & new_test_names()
        alone = set(failed) - both
        holds = fails_as_unfixed(alone) if side == "without" else kept and not alone
        step(
            Step(
                f"test_pass_infra.py {side} the fix",
                holds and len(run.passed) > 5 and not run.skipped,
                f"{len(run.passed)} passed, {len(failed)} failed"
                + (f" ({', '.join(failed)})" if failed else ""),
                {"passed": len(run.passed), "failed": failed},
            )
        )
    step(_static_checks(prepared, work / "unpatched", fixed, work))
    ignores = ignored_under_exir(prepared.configs.get("pytest.ini", ""))
    differential = run_differential(
        work / "unpatched", fixed, ignores, prepared.pytest.path, say, f"[{ref}] "
    )
    counts = {
        side: {"passed": len(run.passed), "failed": len(run.failed)}
        for side, run in (
            ("unpatched", differential.unpatched),
            ("patched", differential.patched),
        )
    }
    step(
        Step(
            "exir/tests differential",
            not differential.new_failures and len(differential.unpatched.passed) > 100,
            differential.summary(),
            {
                **counts,
                "ignored_by_pytest_ini": len(ignores),
                "failed_both": {
                    test: differential.unpatched.reasons.get(test, "")
                    for test in sorted(
                        differential.unpatched.failed & differential.patched.failed
                    )
                },
                "new_failures": sorted(differential.new_failures),
                "flaky": sorted(differential.flaky),
            },
        )
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
            prepared.append(_prepared(git_dir, ref, ref_work, say))
        return [
            prove_ref(git_dir, ref, ref_prepared, ref_work, say)
            for ref, ref_prepared, ref_work in zip(refs, prepared, works)
        ]
