"""``python -m exportpass_fix patch``: the options checked, then the full
patch or, with ``--tests-only``, the tests alone. Exit status 0 written, 2
refused with one line and nothing written."""

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Callable, Optional

from ..shared.installed import installed_executorch_dir
from ..shared.release_table import load as load_release_table
from .making.buck_deps import has_build_files
from .making.evidence import EvidenceError, load_proofs
from .making.patch import make_patch, PatchRefused
from .making.pr_description import LABEL, valid_identity
from .making.tests_only import make_tests_patch


def git_identity() -> Optional[str]:
    """``user.name <user.email>`` as git would commit here, if both are set."""
    try:
        name, mail = (
            subprocess.run(
                ["git", "config", key],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            for key in ("user.name", "user.email")
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return f"{name} <{mail}>" if name and mail else None


NO_AUTHOR = (
    'no author: pass --author "Name <email>" or set git config user.name and'
    " user.email (the PR's author must sign the CLA)"
)


def _misfit(args: argparse.Namespace, author: object) -> str:
    """Why these options cannot make a patch, or ''."""
    if author is None:
        return NO_AUTHOR
    for identity in [author, *args.co_author]:
        if not valid_identity(str(identity)):
            return f'{identity!r} is not "Name <email>"'
    if args.tests_only and args.proof:
        return "--proof is for the full patch"
    if args.for_pr is not None and not args.tests_only:
        return "--for-pr goes with --tests-only"
    if args.for_pr is not None and args.for_pr <= 0:
        return f"--for-pr {args.for_pr} is not a pull request number"
    return ""


def run_patch(args: argparse.Namespace, refuse: Callable[[object], int]) -> int:
    tree = args.tree or installed_executorch_dir()
    if tree is None:
        return refuse("no executorch installed here; pass --tree")
    author = args.author or git_identity()
    misfit = _misfit(args, author)
    if misfit:
        return refuse(misfit)
    out_dir = Path(args.output_dir)
    comment = None
    try:
        if args.tests_only:
            path, comment = make_tests_patch(
                Path(tree), out_dir, author, args.co_author, args.for_pr
            )
        else:
            path = make_patch(
                Path(tree),
                out_dir,
                author=author,
                co_authors=args.co_author,
                proofs=load_proofs(args.proof) if args.proof else None,
                releases=load_release_table(),
            )
    except (PatchRefused, EvidenceError) as refusal:
        return refuse(refusal)
    print(path)
    if comment is not None:
        print(comment)
    if not args.tests_only and not args.proof:
        print(
            "warning: the Test plan lists the commands only; a PR needs what"
            " they printed: run prove --json and pass --proof",
            file=sys.stderr,
        )
    if not has_build_files(Path(tree)):
        print(
            f"note: {tree} has no Buck files (an installed package): the patch"
            " adds no pass_infra deps; make it from a checkout to include them",
            file=sys.stderr,
        )
    print(f"label the PR: {LABEL}", file=sys.stderr)
    return 0
