"""The diagnosis job's commands: ``check`` and ``partitioners`` (checking),
``matrix`` and ``releases`` (evidence): their options parsed and checked,
their results printed and mapped to exit codes (0 done, 1 a check did not
hold, 2 refused)."""

import argparse
import json
import math

from ..shared.report import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    print_result,
    refuse,
    text_table,
    timed_progress,
    unknown_name,
)

TITLE = "Is #22309 what blocks my export?"
DOCS = "docs/check.md"
COMMANDS = {
    "check": "is #22309 what blocks this model on these partitioners?",
    "matrix": "every project model x every usable partitioner, both ways",
    "releases": "which ExecuTorch/torch releases it bites; is each fixed?",
    "partitioners": "each partitioner name, and whether it can be built here",
}


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, not {text}")
    return value


def _check(args: argparse.Namespace) -> int:
    from .checking.check import BadInput, check
    from .checking.text import WIDTH

    say = timed_progress(args.full)
    tolerance = {"rtol": args.rtol, "atol": args.atol}
    try:
        checked = check(args.model, args.partitioner, tolerance, say)
    except BadInput as bad:
        return refuse("check", bad)
    say("done")
    width = None if args.full else WIDTH
    text = json.dumps(checked.as_json()) if args.json else checked.as_text(width)
    unwritable = print_result("check", text)
    if unwritable is not None:
        return unwritable
    return EXIT_OK if checked.backport_ok else EXIT_CHECK_FAILED


def _matrix(args: argparse.Namespace) -> int:
    if args.from_record:  # a committed run, rendered; nothing measured
        from .evidence.matrix import from_record, render

        try:
            matrix = from_record(args.from_record)
        except ValueError as bad:
            return refuse("matrix", bad)
        print(render(matrix, args.markdown))
        return EXIT_OK
    from .checking.partitioners import unknown
    from .loading.model_spec import BUILTIN_MODELS

    models = [n for n in args.model if n not in BUILTIN_MODELS]
    if models or unknown(args.partitioner):
        return refuse(
            "matrix",
            unknown(args.partitioner)
            or unknown_name("model", models[0], BUILTIN_MODELS),
        )
    from .evidence.matrix import build_matrix, render, usable_partitioners

    partitioners = usable_partitioners(args.partitioner)
    say = timed_progress()
    matrix = build_matrix(args.model or list(BUILTIN_MODELS), partitioners, say)
    bad = matrix.get("bad_input", [])
    if bad:
        return refuse("matrix", bad[0])
    print(json.dumps(matrix, indent=1) if args.json else render(matrix, args.markdown))
    return EXIT_OK if matrix["summary"]["changed"] == 0 else EXIT_CHECK_FAILED


def _partitioners(args: argparse.Namespace) -> int:
    import logging

    from .checking.partitioners import PARTITIONERS, why_not

    logging.disable(logging.WARNING)  # backends log their own import notes
    reasons = {name: why_not(name) for name in PARTITIONERS}
    if args.json:
        usable = {n: {"usable": r is None, "reason": r} for n, r in reasons.items()}
        print(json.dumps(usable))
        return EXIT_OK
    rows = [[n, "yes" if r is None else "no", r or ""] for n, r in reasons.items()]
    print(text_table(["partitioner", "usable here", "why not"], rows, [17, 11, 66]))
    return EXIT_OK


def _releases(args: argparse.Namespace) -> int:
    from ..shared import release_table

    if args.markdown or args.summary:  # the committed table, measuring nothing
        if args.release or args.json:
            return refuse("releases", "--markdown and --summary take no other flag")
        table = release_table.load()
        render = release_table.render_summary if args.summary else None
        print((render or release_table.render_markdown)(table))
        return EXIT_OK
    from .evidence.releases import measure, PAIRS

    known = list(dict.fromkeys(executorch for executorch, _ in PAIRS))
    pairs = []
    for given in args.release:
        executorch, _, torch = given.partition("=")
        if executorch not in known:
            listed = ", ".join(known)
            return refuse(
                "releases",
                f"unknown ExecuTorch release {executorch!r}; known: {listed}",
            )
        if torch and not all(part.isdigit() for part in torch.split(".")):
            return refuse("releases", f"{torch!r} is not a torch version")
        if torch:
            pairs.append((executorch, torch))
        else:
            pairs += [pair for pair in PAIRS if pair[0] == executorch]
    table = measure(pairs or PAIRS, timed_progress())
    print(
        json.dumps(table, indent=1) if args.json else release_table.render_text(table)
    )
    return EXIT_OK


def add_commands(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]",
) -> None:
    check = commands.add_parser("check", description=COMMANDS["check"])
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
    check.add_argument("--atol", type=_tolerance, default=1e-5, help="default 1e-5")
    check.add_argument("--rtol", type=_tolerance, default=1e-5, help="default 1e-5")
    output = check.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="one JSON object on stdout")
    output.add_argument(
        "--full", action="store_true", help="every cell whole (default: 100 columns)"
    )
    check.set_defaults(run=_check)

    matrix = commands.add_parser("matrix", description=COMMANDS["matrix"])
    matrix.add_argument("--partitioner", action="append", default=[], metavar="NAME")
    matrix.add_argument("--model", action="append", default=[], metavar="NAME")
    output = matrix.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true")
    output.add_argument("--markdown", action="store_true")
    matrix.add_argument(
        "--from",
        dest="from_record",
        metavar="RECORD",
        help="render a record of a --json run (docs/records/matrix.json)",
    )
    matrix.set_defaults(run=_matrix)

    releases = commands.add_parser("releases", description=COMMANDS["releases"])
    releases.add_argument(
        "--release",
        action="append",
        default=[],
        metavar="EXECUTORCH[=TORCH]",
        help="repeatable (default: every pair of the table, 1.0.0 to 1.5.1)",
    )
    output = releases.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="one JSON object")
    output.add_argument(
        "--markdown",
        action="store_true",
        help="print the committed table (exir/shared/releases.json) as docs carry it",
    )
    output.add_argument(
        "--summary", action="store_true", help="the same, a line per equal result"
    )
    releases.set_defaults(run=_releases)

    partitioners = commands.add_parser(
        "partitioners", description=COMMANDS["partitioners"]
    )
    partitioners.add_argument("--json", action="store_true")
    partitioners.set_defaults(run=_partitioners)
