"""``python -m exportpass_fix prove``: the patch on upstream's own source.

For each ref of an ExecuTorch git checkout (a work tree or a bare mirror):
that ref's ``exir/`` laid over the installed package (see ``trees``), the
patch made for it and applied with ``git am``, then the regression tests
without and with the fix, upstream's whole ``test_pass_infra.py`` with it,
and the ``exir/tests`` differential (patched failures within unpatched ones).
"""

import dataclasses
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Tuple

from .checkout import applied_with_git_am, git_dir_of, ProveRefused, ref_exir, resolve
from .differential import run_differential
from .fix_source import TEST_CLASS, TEST_PASS_INFRA
from .report import text_table
from .trees import environ_without_hook, linked_tree, run_pytest

# Without the fix these fail; the other new tests pin behaviour that is kept.
FAIL_UNFIXED = {
    "test_constant_only_inputs_keep_the_graph_fake_mode",
    "test_constant_inputs_of_two_fake_modes_are_rejected",
    "test_backend_pass_on_a_partitioned_constant_subgraph",
}


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


def run_prove(checkout: Path, refs: List[str], as_json: bool) -> int:
    """The command: progress lines, then a table per ref (or one JSON list).
    Exit status 0 proven, 1 a step failed; ``ProveRefused`` for bad input."""

    def say(line: str) -> None:
        print(line, file=sys.stderr if as_json else sys.stdout, flush=True)

    proofs = prove(checkout, refs, say)
    if as_json:
        print(json.dumps([dataclasses.asdict(p) | {"ok": p.ok} for p in proofs]))
    for proof in [] if as_json else proofs:
        print(f"\n{proof.ref} ({proof.commit[:12]}) over the installed executorch")
        rows = [
            [s.name, f"{'ok' if s.ok else 'FAIL'}: {s.detail}"] for s in proof.steps
        ]
        print(text_table(["step", "result"], rows))
    return 0 if all(p.ok for p in proofs) else 1
