"""``python -m exportpass_fix``: make the upstream patch, or check the fix.

Exit status: 0 done; 1 the check found the fix not working; 2 refused (bad
input: the tree, the output directory or the installed ExecuTorch does not
fit), with nothing written or changed.
"""

import argparse
import sys
from pathlib import Path
from typing import List, Optional

from .trees import installed_executorch_dir

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_REFUSED = 2


def _refuse(command: str, reason: object) -> int:
    print(f"exportpass_fix {command}: refused: {reason}", file=sys.stderr)
    return EXIT_REFUSED


def _patch(args: argparse.Namespace) -> int:
    from .pr_description import EvidenceError, LABEL, load_evidence, valid_identity
    from .upstream_patch import make_patch, PatchRefused

    tree = args.tree or installed_executorch_dir()
    if tree is None:
        return _refuse("patch", "no executorch installed here; pass --tree")
    for identity in [args.author or "A <a@b>", *args.co_author]:
        if not valid_identity(identity):
            return _refuse("patch", f'{identity!r} is not "Name <email>"')
    try:
        evidence = load_evidence(args.evidence) if args.evidence else None
        path = make_patch(
            Path(tree),
            Path(args.output_dir),
            author=args.author,
            co_authors=args.co_author,
            evidence=evidence,
        )
    except (PatchRefused, EvidenceError) as refusal:
        return _refuse("patch", refusal)
    print(path)
    print(f"label the PR: {LABEL}", file=sys.stderr)
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    from .check import run_check

    return run_check()


def _prove(args: argparse.Namespace) -> int:
    import dataclasses
    import json

    from .prove import prove, ProveRefused
    from .report import text_table

    def say(line: str) -> None:
        print(line, file=sys.stderr if args.json else sys.stdout, flush=True)

    try:
        proofs = prove(Path(args.checkout), args.ref or ["main", "release/1.4"], say)
    except ProveRefused as refusal:
        return _refuse("prove", refusal)
    if args.json:
        print(json.dumps([dataclasses.asdict(p) | {"ok": p.ok} for p in proofs]))
    for proof in [] if args.json else proofs:
        print(f"\n{proof.ref} ({proof.commit[:12]}) over the installed executorch")
        rows = [
            [s.name, f"{'ok' if s.ok else 'FAIL'}: {s.detail}"] for s in proof.steps
        ]
        print(text_table(["step", "result"], rows))
    return EXIT_OK if all(p.ok for p in proofs) else EXIT_CHECK_FAILED


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m exportpass_fix")
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
        "--author", help='"Name <email>" for the From: line (default: git config)'
    )
    patch.add_argument(
        "--co-author",
        action="append",
        default=[],
        metavar='"NAME <EMAIL>"',
        help="add a Co-authored-by: trailer (repeatable)",
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
    check.set_defaults(run=_check)

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

    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
