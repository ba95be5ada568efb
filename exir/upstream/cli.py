"""The upstream job's commands: ``patch``, ``prove``, ``mutants``,
``cherry-pick``."""

import argparse
from pathlib import Path

from ..shared.report import EXIT_OK, refuse

DEFAULT_REFS = ["main", "release/1.4"]
TITLE = "Give me the upstream patch"
DOCS = "docs/upstream.md"
COMMANDS = {
    "patch": "the tests for #22310 (and comment.md), or the standalone PR",
    "prove": "the patch on an ExecuTorch checkout's refs, measured",
    "mutants": "which variants of the fix are wrong, and what kills them",
    "cherry-pick": "the bot command that takes the fix to a release branch",
}


def _patch(args: argparse.Namespace) -> int:
    from .patch_cli import run_patch

    return run_patch(args, lambda reason: refuse("patch", reason))


def _prove(args: argparse.Namespace) -> int:
    from .prove_cli import run_prove
    from .proving.prove import ProveRefused

    try:
        return run_prove(Path(args.checkout), args.ref or DEFAULT_REFS, args.json)
    except ProveRefused as refusal:
        return refuse("prove", refusal)


def _mutants(args: argparse.Namespace) -> int:
    from .judging.mutants import run_mutants

    return run_mutants(args.json)


def _cherry_pick(args: argparse.Namespace) -> int:
    from .cherry_pick import CherryPickRefused, request

    try:
        print(request(args.onto, args.tracker, args.trunk_pr, args.release_pr), end="")
    except CherryPickRefused as refusal:
        return refuse("cherry-pick", refusal)
    return EXIT_OK


def add_commands(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]",
) -> None:
    patch = commands.add_parser(
        "patch",
        description="Write a git-am-ready upstream patch. While #22310 is open, offer it the tests: `patch"
        " --tests-only --for-pr 22310 --tree <checkout of #22310>` writes"
        " the tests-only commit and comment.md to post on #22310 (after it"
        " lands, the same command writes a follow-up). Without --tests-only:"
        " the standalone PR (fix and tests), to open only if #22310 closes"
        " unmerged; give it --proof for its Test plan.",
    )
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
        "--proof",
        type=Path,
        metavar="PROVE.json",
        help="quote the results of `prove --json` for this patch in the Test plan",
    )
    patch.set_defaults(run=_patch)

    prove = commands.add_parser("prove", description=COMMANDS["prove"])
    prove.add_argument(
        "--checkout", required=True, help="ExecuTorch work tree or bare mirror"
    )
    prove.add_argument(
        "--ref",
        action="append",
        help="ref to prove (repeatable; default: main release/1.4)",
    )
    prove.add_argument("--json", action="store_true", help="one JSON list on stdout")
    prove.set_defaults(run=_prove)

    mutants = commands.add_parser("mutants", description=COMMANDS["mutants"])
    mutants.add_argument("--json", action="store_true", help="one JSON object")
    mutants.set_defaults(run=_mutants)

    cherry_pick = commands.add_parser(
        "cherry-pick", description=COMMANDS["cherry-pick"]
    )
    cherry_pick.add_argument("--onto", required=True, metavar="release/1.x")
    cherry_pick.add_argument(
        "--tracker",
        type=int,
        metavar="N",
        help="release/1.4 only: the tracker of a reopened 1.4.2",
    )
    cherry_pick.add_argument(
        "--trunk-pr", metavar="URL|NUMBER", help="with --tracker: the landed PR"
    )
    cherry_pick.add_argument(
        "--release-pr",
        metavar="URL|NUMBER",
        help="with --tracker: the release-branch PR",
    )
    cherry_pick.set_defaults(run=_cherry_pick)
