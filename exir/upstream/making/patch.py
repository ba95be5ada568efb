"""Turn this project's exir/ contribution into a ``git am``-ready patch.

The fix (``exir/pass_base.py``) and its regression test
(``exir/tests/test_pass_infra.py``) live in this package at the paths they
patch upstream. ``make_patch`` splices them into the matching files of an
ExecuTorch tree (a checkout's root or an installed ``executorch`` package)
and writes the difference as one mail-formatted patch.
"""

import ast
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from ...shared.fix_source import (
    PASS_BASE,
    PATCHED_CLASS,
    PATCHED_METHOD,
    regression_test_source,
    spliced_fix,
    TEST_CLASS,
    TEST_PASS_INFRA,
)
from ...shared.known_calls import (
    classify_call,
    EARLIER_FIX,
    EARLIER_FIX_SHA256,
    FIXED,
    UNKNOWN,
)
from ...shared.source_spans import method_span

from .buck_deps import BuckDepsError, with_test_deps
from .evidence import proof_of
from .import_merge import import_block, ImportMergeError, merge_imports
from .mail_patch import FileChange, patch_digest, unwritable, write_patch
from .pr_description import commit_message, SUBJECT


class PatchRefused(Exception):
    """The tree or the output directory does not fit; nothing was written."""


def read_tree_file(tree: Path, relative: str) -> str:
    path = tree / relative
    if not path.is_file():
        raise PatchRefused(
            f"{tree} is not an ExecuTorch tree: {relative} is missing"
            " (pass --tree a checkout's root or an installed executorch"
            " package directory)"
        )
    try:
        text = path.read_text(encoding="utf-8")
        compile(text, str(path), "exec", flags=ast.PyCF_ONLY_AST)
    except (SyntaxError, ValueError) as error:  # UnicodeDecodeError too
        raise PatchRefused(f"{path} is not readable Python source: {error}") from None
    return text


def splice_pass_base(upstream: str, where: str) -> str:
    """``upstream`` with the fix's change made to its ``_ExportPassBase.call``
    (on 1.1.0 and later: the call replaced by this package's)."""
    span = method_span(upstream, PATCHED_CLASS, PATCHED_METHOD)
    if span is None:
        raise PatchRefused(
            f"{where}: no {PATCHED_CLASS}.{PATCHED_METHOD} found; this is not"
            " a pass_base.py the patch knows"
        )
    state = classify_call(span.text)
    if state == FIXED:
        raise PatchRefused(f"{where}: the fix for #22309 is already applied")
    if state == EARLIER_FIX:
        raise PatchRefused(
            f"{where}: already fixed (earlier version of this fix,"
            f" {EARLIER_FIX_SHA256[span.sha256]})"
        )
    if state == UNKNOWN:
        raise PatchRefused(
            f"{where}: {PATCHED_CLASS}.{PATCHED_METHOD} (lines"
            f" {span.start}-{span.end}, sha256 {span.sha256[:12]}) differs from"
            " every unfixed version the patch knows; upstream changed it,"
            " perhaps by fixing #22309 another way (see #22310, #22891)."
            " Refusing to patch a diverged tree"
        )
    fixed_here = spliced_fix(span.text)
    assert fixed_here is not None, "a known unfixed call has the lines the fix changes"
    return span.replaced_by(fixed_here)


def splice_test(upstream: str, where: str) -> str:
    """``upstream`` with the regression test's imports merged into its import
    block and the rest of the test file appended at its end."""
    ours, additions = import_block(regression_test_source())
    defined = {
        node.name
        for node in ast.parse(upstream).body
        if isinstance(node, (ast.ClassDef, ast.FunctionDef))
    }
    clashes = [
        node.name
        for node in ast.parse(additions).body
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name in defined
    ]
    if clashes:
        name = TEST_CLASS if TEST_CLASS in clashes else clashes[0]
        raise PatchRefused(f"{where}: {name} is already there")
    try:
        merged = merge_imports(upstream, ours)
    except ImportMergeError as error:
        raise PatchRefused(f"{where}: {error}") from None
    return merged.rstrip("\n") + "\n\n\n" + additions


def planned_test_changes(tree: Path) -> List[FileChange]:
    """The test file with the new tests, and the Buck file with their deps."""
    old_test = read_tree_file(tree, TEST_PASS_INFRA)
    new_test = splice_test(old_test, str(tree / TEST_PASS_INFRA))
    changes = [FileChange(TEST_PASS_INFRA, old_test, new_test)]
    try:
        build_file = with_test_deps(tree, old_test, new_test)
    except BuckDepsError as error:
        raise PatchRefused(str(error)) from None
    if build_file is not None:
        changes.append(FileChange(*build_file))
    return changes


def planned_changes(tree: Path) -> List[FileChange]:
    if not tree.is_dir():
        raise PatchRefused(f"{tree}: no such directory")
    old_pass_base = read_tree_file(tree, PASS_BASE)
    new_pass_base = splice_pass_base(old_pass_base, str(tree / PASS_BASE))
    changes = [FileChange(PASS_BASE, old_pass_base, new_pass_base)]
    # In the order git format-patch writes them.
    changes += planned_test_changes(tree)
    return sorted(changes, key=lambda change: change.path)


def check_writable(out_dir: Path) -> None:
    problem = unwritable(out_dir)
    if problem:
        raise PatchRefused(problem)


def proof_made_elsewhere(
    proof: Dict[str, object], commit: Optional[str], installed: Optional[str]
) -> List[str]:
    """How the run of ``proof`` differs from this patch's tree at ``commit``
    (None: no checkout's root) with ExecuTorch ``installed``; [] if none."""
    made_on, env = str(proof["commit"]), dict(proof["environment"])  # type: ignore
    differs = []
    if commit != made_on:
        at = f"at {commit[:12]}" if commit else "no git checkout's root"
        differs.append(
            f"the proof was made on {proof['ref']} at {made_on[:12]}, the tree is {at}"
        )
    if env.get("executorch") != installed:
        differs.append(
            f"the proof ran over ExecuTorch {env.get('executorch')},"
            f" {installed or 'none'} is installed here"
        )
    return differs


def make_patch(
    tree: Path,
    out_dir: Path,
    author: str,
    date: Optional[str] = None,
    co_authors: Sequence[str] = (),
    proofs: Optional[List[Dict[str, object]]] = None,
    releases: Optional[Dict[str, object]] = None,
    pick_of: Optional[str] = None,
    here: Optional[Tuple[Optional[str], Optional[str], bool, Optional[str]]] = None,
) -> Path:
    """Write the patch for ``tree`` into ``out_dir`` and return its path.

    With ``proofs`` (``prove --json``), the Test plan quotes the proof of
    this very patch; ``releases`` (the release table) gives the range of
    releases measured; ``pick_of``: the landed change a release branch's
    PR picks (None: main's standalone PR). Raises ``PatchRefused`` before
    writing anything when the tree lacks the files, already has the fix,
    has a ``call`` the patch does not know or build files without what the
    tests need, when no proof is of this patch or a step of one failed
    (``EvidenceError``), made elsewhere than ``here`` (the tree's commit,
    ExecuTorch here, whether that is meant: then the body says so; torch
    here, named where the proof's differs), or if ``out_dir`` is unwritable.
    """
    changes = planned_changes(tree)
    digest = patch_digest(changes)
    proof = proof_of(proofs, digest, "the proof") if proofs is not None else None
    if proof is not None and str(proof["ref"]).startswith("release/") != bool(pick_of):
        raise PatchRefused(
            f"the proof is of {proof['ref']}: a release branch's PR takes"
            " --pick-of, main's takes --closed-unmerged"
        )
    elsewhere = proof_made_elsewhere(proof, *here[:2]) if proof and here else []
    if elsewhere and here and not here[2]:
        raise PatchRefused(
            "; ".join(elsewhere) + ": make the proof on this tree's commit, and"
            " the patch with the ExecuTorch it ran over installed, or pass"
            " --proof-from-elsewhere to quote it as made elsewhere"
        )
    torch = dict(proof["environment"]).get("torch") if proof else None  # type: ignore
    if proof and here and torch != here[3]:
        elsewhere.append(
            f"the proof ran over torch {torch}, {here[3]} is installed here"
        )
    check_writable(out_dir)
    message = commit_message(co_authors, proof, releases, pick_of, elsewhere)
    return write_patch(out_dir, changes, author, SUBJECT, message, date)
