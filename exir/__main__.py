"""``exportpass-fix`` / ``python -m exportpass_fix``: the commands, grouped
by the four jobs (``--help`` lists them with the docs page of each job).

Exit status: 0 done; 1 something checked did not hold; 2 refused (bad
input), with one line saying why and nothing written or changed, and 2 too
when the reader of the output went away (``shared.report`` owns the value).
"""

import argparse
import os
import signal
import sys
from typing import Dict, List, NoReturn, Optional, Tuple

from .shared.report import EXIT_REFUSED, prog

# Exit status after an interruption: 128 + the signal, as a shell reports it.
INTERRUPTED = {signal.SIGINT: 130, signal.SIGTERM: 143}

DISTRIBUTION = "executorch-exportpass-fix"
BACKPORT = (
    "Fix my installed ExecuTorch",
    "docs/backport.md",
    {
        "(no command)": "exportpass_fix.apply(), or EXPORTPASS_FIX=1 python ...",
    },
)


def _version() -> str:
    from importlib import metadata

    try:
        return f"%(prog)s {metadata.version(DISTRIBUTION)}"
    except metadata.PackageNotFoundError:
        return "%(prog)s (not installed: no distribution metadata)"


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line and exit status 2, as every
    other refusal (its subcommands' parsers are of this class too)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: refused: {message}\n")


def _listing(jobs: List[Tuple[str, str, Dict[str, str]]]) -> str:
    """The commands by job, a line each, with the job's docs page."""
    width = max(len(name) for _, _, commands in jobs for name in commands) + 2
    lines = ["The fix for pytorch/executorch#22309, in four jobs:"]
    for title, docs, commands in jobs:
        lines += ["", f"{title}  ({docs})"]
        lines += [f"  {name.ljust(width)}{line}" for name, line in commands.items()]
    lines += ["", "Each command's --help gives its options."]
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    from .diagnosis import cli as diagnosis_cli
    from .survey import cli as survey_cli
    from .upstream import cli as upstream_cli

    jobs = [
        (diagnosis_cli.TITLE, diagnosis_cli.DOCS, diagnosis_cli.COMMANDS),
        BACKPORT,
        (upstream_cli.TITLE, upstream_cli.DOCS, upstream_cli.COMMANDS),
        (survey_cli.TITLE, survey_cli.DOCS, survey_cli.COMMANDS),
    ]
    parser = _Parser(
        prog=prog(),
        description=_listing(jobs),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    diagnosis_cli.add_commands(commands)
    upstream_cli.add_commands(commands)
    survey_cli.add_commands(commands)
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # named by the command it was given to
        commands.choices[args.command].error(
            f"unrecognized arguments: {' '.join(unknown)}"
        )
    return _interruptible(args)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so that what it started ends."""


def _terminated(signum: int, frame: object) -> None:
    raise _Terminated()


def _interruptible(args: argparse.Namespace) -> int:
    """Run the command; interrupted (SIGINT, SIGTERM) or left without a
    reader (a closed pipe), one line and no traceback, once whatever it
    started has ended (each command ends its own processes on the way out)."""
    signal.signal(signal.SIGTERM, _terminated)
    try:
        return args.run(args)
    except KeyboardInterrupt as interrupt:
        which = signal.SIGTERM if isinstance(interrupt, _Terminated) else signal.SIGINT
        print(f"{prog()} {args.command}: interrupted ({which.name})", file=sys.stderr)
        return INTERRUPTED[which]
    except BrokenPipeError:
        # Nobody reads this output any more: say nothing, to nobody.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.dup2(devnull, sys.stderr.fileno())
        return EXIT_REFUSED


if __name__ == "__main__":
    sys.exit(main())
