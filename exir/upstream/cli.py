"""The upstream job's commands: ``patch`` (making), ``prove`` (proving),
``cherry-pick``: their options parsed and checked,
their results printed and mapped to exit codes (0 done, 1 a check did not
hold, 2 refused)."""

import argparse
import dataclasses
import json
from pathlib import Path

from ..shared.report import EXIT_CHECK_FAILED, EXIT_OK, progress, refuse, timed_progress
from .patch_options import add_patch_arguments, patch_misfit

DEFAULT_REFS = ["main", "release/1.4"]
TITLE = "Give me the upstream patch"
DOCS = "docs/upstream.md"
COMMANDS = {
    "patch": "the tests for #22310 (and comment.md), or the standalone PR",
    "prove": "the patch on an ExecuTorch checkout's refs, measured",
    "cherry-pick": "the bot command that takes the fix to a release branch",
}


def _installed_torch() -> str:
    from importlib import metadata

    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return "none"


def _patch(args: argparse.Namespace) -> int:
    from ..shared.installed import installed_executorch_dir, installed_version
    from ..shared.release_table import load as load_release_table
    from .making.buck_deps import has_build_files
    from .making.evidence import EvidenceError, load_proofs
    from .making.mail_patch import git_identity
    from .making.patch import make_patch, PatchRefused
    from .making.pr_description import LABEL
    from .making.tests_only import make_tests_patch
    from .making.trees import checkout_commit

    tree = args.tree or installed_executorch_dir()
    if tree is None:
        return refuse("patch", "no executorch installed here; pass --tree")
    author = args.author or git_identity()
    misfit = patch_misfit(args, author)
    if misfit:
        return refuse("patch", misfit)
    out_dir, comment = Path(args.output_dir), None
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
                pick_of=args.pick_of,
                here=(
                    checkout_commit(Path(tree)),
                    installed_version(),
                    args.proof_from_elsewhere,
                    _installed_torch(),
                ),
            )
    except (PatchRefused, EvidenceError) as refusal:
        return refuse("patch", refusal)
    print("\n".join(str(p) for p in (path, comment) if p is not None))
    if not args.tests_only and not args.proof:
        progress(
            "warning: the Test plan lists the commands only; a PR needs what"
            " they printed: run prove --json and pass --proof"
        )
    if not has_build_files(Path(tree)):
        progress(
            f"note: {tree} has no Buck files (an installed package): the patch"
            " adds no pass_infra deps; make it from a checkout to include them"
        )
    if not args.tests_only:  # --tests-only makes a comment and a commit, no PR
        progress(f"label the PR: {LABEL}")
    return EXIT_OK


def _prove(args: argparse.Namespace) -> int:
    from .making.evidence import EvidenceError, load_proofs
    from .proving.prove import prove, ProveRefused
    from .proving.report import render

    if (args.record is None) == (args.checkout is None) or (args.record and args.ref):
        return refuse("prove", "give --checkout (and --ref), or --from alone")
    try:
        if args.record:
            data = load_proofs(Path(args.record))
        else:
            say = timed_progress()  # each line with the seconds so far
            proofs = prove(Path(args.checkout), args.ref or DEFAULT_REFS, say)
            data = [dataclasses.asdict(p) | {"ok": p.ok} for p in proofs]
    except (ProveRefused, EvidenceError) as refusal:
        return refuse("prove", refusal)
    print(json.dumps(data) if args.json else "\n\n".join(map(render, data)))
    return EXIT_OK if all(p["ok"] for p in data) else EXIT_CHECK_FAILED


def _cherry_pick(args: argparse.Namespace) -> int:
    from .cherry_pick import CherryPickRefused, request

    try:
        pr = (args.trunk_pr, args.release_pr)
        print(request(args.onto, args.tracker, *pr, survey=args.survey), end="")
    except CherryPickRefused as refusal:
        return refuse("cherry-pick", refusal)
    return EXIT_OK


def add_commands(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]",
) -> None:
    patch = commands.add_parser(
        "patch",
        description="Write a git-am-ready upstream patch. While #22310 is open:"
        " --tests-only --for-pr 22310 --tree <its checkout> writes the tests"
        " and comment.md for it (a follow-up once it lands). Without"
        " --tests-only: the standalone PR once #22310 and #22891 are closed"
        " unmerged (--closed-unmerged 22310 22891), or a release branch's pick of the landed"
        " change (--pick-of N); --proof for its Test plan.",
    )
    add_patch_arguments(patch)
    patch.set_defaults(run=_patch)

    prove = commands.add_parser("prove", description=COMMANDS["prove"])
    prove.add_argument("--checkout", help="ExecuTorch work tree or bare mirror")
    prove.add_argument(
        "--ref",
        action="append",
        help="ref to prove (repeatable; default: main release/1.4)",
    )
    prove.add_argument("--json", action="store_true", help="one JSON list on stdout")
    prove.add_argument(
        "--from", dest="record", help="a record of --json to render (no run)"
    )
    prove.set_defaults(run=_prove)

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
    cherry_pick.add_argument(
        "--survey", metavar="RECORD", help="a survey's record: its counts in the reason"
    )
    cherry_pick.set_defaults(run=_cherry_pick)
