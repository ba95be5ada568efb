"""The upstream job's commands: ``patch``, ``prove``, ``mutants``,
``cherry-pick``."""

import argparse
from pathlib import Path

from ..shared.report import EXIT_OK, refuse

DEFAULT_REFS = ["main", "release/1.4"]


def _patch(args: argparse.Namespace) -> int:
    from .patch_cli import run_patch

    return run_patch(args, lambda reason: refuse("patch", reason))


def _prove(args: argparse.Namespace) -> int:
    from .prove import ProveRefused, run_prove

    try:
        return run_prove(Path(args.checkout), args.ref or DEFAULT_REFS, args.json)
    except ProveRefused as refusal:
        return refuse("prove", refusal)


def _mutants(args: argparse.Namespace) -> int:
    from .mutants import run_mutants

    return run_mutants(args.json)


def _cherry_pick(args: argparse.Namespace) -> int:
    from .cherry_pick import CherryPickRefused, request

    try:
        print(request(args.onto, args.trunk_pr, args.release_pr), end="")
    except CherryPickRefused as refusal:
        return refuse("cherry-pick", refusal)
    return EXIT_OK


def add_commands(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]",
) -> None:
    patch = commands.add_parser(
        "patch", help="write the git-am-ready upstream patch for an ExecuTorch tree"
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
        " (by #22310, #22891 or any correct fix); refused where they would fail",
    )
    patch.add_argument(
        "--mutants",
        type=Path,
        metavar="MUTANTS.json",
        help="with --tests-only: the kill table of `mutants --json`, in brief",
    )
    patch.add_argument(
        "--proof",
        type=Path,
        metavar="PROVE.json",
        help="quote the results of `prove --json` for this patch in the Test plan",
    )
    patch.add_argument(
        "--evidence",
        type=Path,
        metavar="MATRIX.json",
        help="put the table of `matrix --json` in the Test plan",
    )
    patch.set_defaults(run=_patch)

    prove = commands.add_parser(
        "prove",
        help="prove the patch on refs of an ExecuTorch git checkout: git am,"
        " the new tests without and with the fix, exir/tests differential",
    )
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

    mutants = commands.add_parser(
        "mutants",
        help="which tests kill which right or wrong variant of the fix",
    )
    mutants.add_argument("--json", action="store_true", help="one JSON object")
    mutants.set_defaults(run=_mutants)

    cherry_pick = commands.add_parser(
        "cherry-pick",
        help="what the release tracker asks for to take the fix onto a release"
        " branch, and how to open that branch's PR",
    )
    cherry_pick.add_argument("--onto", required=True, metavar="release/1.x")
    cherry_pick.add_argument(
        "--trunk-pr", metavar="URL|NUMBER", help="the landed PR on main"
    )
    cherry_pick.add_argument(
        "--release-pr", metavar="URL|NUMBER", help="the release-branch PR"
    )
    cherry_pick.set_defaults(run=_cherry_pick)
