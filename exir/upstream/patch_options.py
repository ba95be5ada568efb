"""``patch``'s options: declared, and checked together before any tree is
read (each misfit is one line of refusal)."""

import argparse
from pathlib import Path

from .making.mail_patch import NO_AUTHOR, valid_identity
from .making.pr_description import body_misfit


def add_patch_arguments(patch: argparse.ArgumentParser) -> None:
    patch.add_argument(
        "--tree",
        type=Path,
        help="ExecuTorch checkout root or executorch package directory"
        " (default: the installed executorch)",
    )
    patch.add_argument(
        "-o", "--output-dir", default=".", help="where to write the patch"
    )
    patch.add_argument(
        "--author",
        help='"Name <email>" for the From: line (default: git config user.name'
        " and user.email; with neither, patch refuses)",
    )
    patch.add_argument(
        "--co-author",
        action="append",
        default=[],
        metavar='"NAME <EMAIL>"',
        help="add a Co-authored-by: trailer (repeatable)",
    )
    patch.add_argument(
        "--tests-only",
        action="store_true",
        help="only the regression tests, for a tree whose call is already fixed"
        " (#22310's branch, or any correct fix); refused where they would fail",
    )
    patch.add_argument(
        "--for-pr",
        type=int,
        metavar="N",
        help="with --tests-only: the PR the tests are for (22310); also writes"
        " comment.md for it, and a follow-up body once the tree has it merged",
    )
    patch.add_argument(
        "--closed-unmerged",
        type=int,
        nargs="+",
        default=[],
        metavar="N",
        help="main's standalone PR is only for #22310 and #22891 closed unmerged:"
        " say so (--closed-unmerged 22310 22891)",
    )
    patch.add_argument(
        "--pick-of", metavar="PR|COMMIT", help="a release branch's PR: what it picks"
    )
    patch.add_argument(
        "--proof",
        type=Path,
        metavar="PROVE.json",
        help="quote the results of `prove --json` for this patch in the Test plan;"
        " taken only if made on the tree's own commit, over the ExecuTorch"
        " installed here",
    )
    patch.add_argument(
        "--proof-from-elsewhere",
        action="store_true",
        help="take a --proof made on another commit or over another ExecuTorch;"
        " the Test plan then says how its run differs",
    )


def patch_misfit(args: argparse.Namespace, author: object) -> str:
    """Why these options cannot make a patch, or ''."""
    if author is None:
        return NO_AUTHOR
    for identity in [author, *args.co_author]:
        if not valid_identity(str(identity)):
            return f'{identity!r} is not "Name <email>"'
    if args.tests_only and (
        args.proof or args.closed_unmerged or args.pick_of is not None
    ):
        return "--proof, --closed-unmerged and --pick-of are for the full patch"
    if args.proof_from_elsewhere and not args.proof:
        return "--proof-from-elsewhere goes with --proof"
    if args.for_pr is not None and not args.tests_only:
        return "--for-pr goes with --tests-only"
    if args.for_pr is not None and args.for_pr <= 0:
        return f"--for-pr {args.for_pr} is not a pull request number"
    return "" if args.tests_only else body_misfit(args.closed_unmerged, args.pick_of)
