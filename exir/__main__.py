"""``python -m exportpass_fix``: make the upstream patch, or check the fix.

Exit status: 0 done; 1 the check found the fix not working; 2 refused (bad
input: the tree, the output directory or the installed ExecuTorch does not
fit), with nothing written or changed.
"""

import argparse
import sys
from pathlib import Path
from typing import List, Optional


EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_REFUSED = 2
DEFAULT_REFS = ["main", "release/1.4"]
CONSOLE_SCRIPT = "exportpass-fix"
DISTRIBUTION = "executorch-exportpass-fix"


def _refuse(command: str, reason: object) -> int:
    print(f"exportpass_fix {command}: refused: {reason}", file=sys.stderr)
    return EXIT_REFUSED


def _patch(args: argparse.Namespace) -> int:
    from .upstream.patch_cli import run_patch

    return run_patch(args, lambda reason: _refuse("patch", reason))


def _check(args: argparse.Namespace) -> int:
    from .diagnosis.check import run_check

    return run_check(args.model, args.partitioner, args.json, args.atol, args.rtol)


def _matrix(args: argparse.Namespace) -> int:
    from .diagnosis.matrix import as_json, build_matrix, render, usable_partitioners
    from .diagnosis.models import MODELS
    from .diagnosis.partitioners import PARTITIONERS

    unknown = [n for n in args.partitioner if n not in PARTITIONERS]
    unknown += [n for n in args.model if n not in MODELS]
    if unknown:
        known = ", ".join([*PARTITIONERS, *MODELS])
        return _refuse("matrix", f"unknown name {unknown[0]!r}; known: {known}")

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    partitioners = usable_partitioners(args.partitioner)
    matrix = build_matrix(args.model or list(MODELS), partitioners, say)
    bad = matrix.get("bad_input", [])
    if bad:
        return _refuse("matrix", bad[0])
    print(as_json(matrix) if args.json else render(matrix, args.markdown))
    return EXIT_OK if matrix["summary"]["changed"] == 0 else EXIT_CHECK_FAILED


def _partitioners(args: argparse.Namespace) -> int:
    import json
    import logging

    from .diagnosis.partitioners import PARTITIONERS, why_not
    from .shared.report import text_table

    logging.disable(logging.WARNING)  # backends log their own import notes
    reasons = {name: why_not(name) for name in PARTITIONERS}
    if args.json:
        print(
            json.dumps(
                {n: {"usable": r is None, "reason": r} for n, r in reasons.items()}
            )
        )
        return EXIT_OK
    rows = [[n, "yes" if r is None else "no", r or ""] for n, r in reasons.items()]
    print(text_table(["partitioner", "usable here", "why not"], rows))
    return EXIT_OK


def _prove(args: argparse.Namespace) -> int:
    from .upstream.prove import ProveRefused, run_prove

    try:
        return run_prove(Path(args.checkout), args.ref or DEFAULT_REFS, args.json)
    except ProveRefused as refusal:
        return _refuse("prove", refusal)


def _mutants(args: argparse.Namespace) -> int:
    from .upstream.mutants import run_mutants

    return run_mutants(args.json)


def _cherry_pick(args: argparse.Namespace) -> int:
    from .upstream.cherry_pick import CherryPickRefused, request

    try:
        print(request(args.onto, args.trunk_pr, args.release_pr), end="")
    except CherryPickRefused as refusal:
        return _refuse("cherry-pick", refusal)
    return EXIT_OK


def _prog() -> str:
    """As the user called it: the console script or ``python -m``."""
    called = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return CONSOLE_SCRIPT if called == CONSOLE_SCRIPT else "python -m exportpass_fix"


def _version() -> str:
    from importlib import metadata

    try:
        return f"%(prog)s {metadata.version(DISTRIBUTION)}"
    except metadata.PackageNotFoundError:
        return "%(prog)s (not installed: no distribution metadata)"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog=_prog())
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", required=True)

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

    check = commands.add_parser(
        "check",
        help="run the issue's repro and reduced model unpatched and with the fix",
    )
    check.add_argument(
        "--model",
        metavar="SPEC",
        help="PATH.pt2 (torch.export.save), package.module:name, or builtin:NAME"
        " (default: the issue's reduced model)",
    )
    check.add_argument(
        "--partitioner",
        action="append",
        default=[],
        metavar="NAME",
        help="repeatable, passed together in this order (default: vulkan);"
        " see `partitioners`",
    )
    check.add_argument("--atol", type=float, default=1e-5, help="default 1e-5")
    check.add_argument("--rtol", type=float, default=1e-5, help="default 1e-5")
    check.add_argument("--json", action="store_true", help="one JSON object on stdout")
    check.set_defaults(run=_check)

    matrix = commands.add_parser(
        "matrix",
        help="every model x every usable partitioner, unpatched vs backport",
    )
    matrix.add_argument("--partitioner", action="append", default=[], metavar="NAME")
    matrix.add_argument("--model", action="append", default=[], metavar="NAME")
    output = matrix.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true")
    output.add_argument("--markdown", action="store_true")
    matrix.set_defaults(run=_matrix)

    partitioners = commands.add_parser(
        "partitioners", help="each partitioner name, and whether it is usable here"
    )
    partitioners.add_argument("--json", action="store_true")
    partitioners.set_defaults(run=_partitioners)

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

    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
