"""The survey's command: which real models #22309 blocks, zoo by zoo.

``survey --record FILE`` surveys, or resumes from FILE, every model the
selection names (``zoo``), and prints the counts (``--json``: the record);
``survey --from-record FILE`` renders a record, measuring nothing. Bad input
is refused before anything is imported or written.
"""

import argparse
import importlib.util
import json
import re
from pathlib import Path
from typing import Optional

from ..shared.report import EXIT_OK, refuse, timed_progress

TITLE = "Which real models does #22309 block?"
DOCS = "docs/evidence.md"
COMMANDS = {"survey": "timm's and torchvision's models, lowered unpatched and fixed"}
ZOOS = ("timm", "torchvision")
KEY = re.compile(r"^(timm|torchvision)/[\w.-]+$")
# A process's limits. Five models of each zoo, drawn with SEED, were timed
# first: their processes used 20 to 293 CPU s (median 49; the most,
# vit_l_16) and at most 5.5 GiB. The CPU limit is twice the most; the memory
# limit leaves most of a 24 GiB machine to other work.
SECONDS = 600
MEMORY_GIB = 10.0
SEED = 22309
DRAW_FRACTION = 0.4


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number > 0, not {text}")
    return value


def _refusal(args: argparse.Namespace) -> Optional[str]:
    """Why the arguments cannot be run, found without importing a zoo."""
    from . import record as records

    if (args.record is None) == (args.from_record is None):
        return "give one of --record FILE (survey) and --from-record FILE (render)"
    path = Path(args.record or args.from_record)
    if args.record and not path.parent.is_dir():
        return f"{path.parent} is no directory"
    bad = [key for key in args.only if not KEY.match(key)]
    if bad:
        return f"--only takes ZOO/NAME (ZOO: {', '.join(ZOOS)}), not {bad[0]!r}"
    try:
        found = records.load(path)
    except ValueError as error:
        return str(error)
    if args.from_record:
        return None if found else f"no such record: {path}"
    given = {"seconds": args.seconds, "memory_gib": args.memory_gib}
    if found and any(v and v != found["limits"][k] for k, v in given.items()):
        return f"{path} was begun with other limits: {found['limits']}"
    for needed in ("executorch", "torch", *args.zoo):
        if importlib.util.find_spec(needed) is None:
            return f"{needed} is not installed here (the survey needs it)"
    return None


def _new(args: argparse.Namespace, made_from: dict) -> dict:
    from .run import WALL_FACTOR

    limits = {"seconds": args.seconds or SECONDS, "wall_factor": WALL_FACTOR}
    limits["memory_gib"] = args.memory_gib or MEMORY_GIB
    command = f"exportpass-fix survey --record RECORD --seconds {limits['seconds']:g}"
    command += f" --memory-gib {limits['memory_gib']:g}"
    return {"made_from": made_from, "limits": limits, "seed": SEED, "command": command}


def _survey(args: argparse.Namespace) -> int:
    from . import record as records

    args.zoo = sorted(set(args.zoo or ZOOS))
    why = _refusal(args)
    if why is not None:
        return refuse("survey", why)
    path = Path(args.record or args.from_record)
    record = records.load(path)
    if args.from_record:
        print(json.dumps(record, indent=1) if args.json else records.render(record))
        return EXIT_OK
    from .zoo import versions

    made_from = records.made_from(versions())
    if record is None:
        record = {**_new(args, made_from), "draw_fraction": DRAW_FRACTION}
        record.update(selection={}, models={})
    elif records.differs(record, made_from):
        return refuse("survey", f"{path}: {records.differs(record, made_from)}")
    say = timed_progress()
    _select(record, args.zoo, say)
    keys = [k for k in records.selected(record) if k.split("/")[0] in args.zoo]
    unknown = [key for key in args.only if key not in keys]
    if unknown:
        return refuse("survey", f"{unknown[0]} is not in the selection of its zoo")
    records.save(record, path)
    from ..diagnosis.checking.partitioners import PARTITIONERS
    from .run import PLAN, survey

    built = {
        name: f"executorch.backends.{PARTITIONERS[name].module}:{PARTITIONERS[name].cls}"
        for name in PLAN
    }
    survey(record, path, args.only or keys, built, say)
    say("done")
    print(json.dumps(record, indent=1) if args.json else records.render(record))
    return EXIT_OK


def _select(record: dict, zoos: list, say) -> None:
    """Each zoo's selection, made once (in a child that imports the zoo)."""
    import subprocess
    import sys

    for zoo in zoos:
        if zoo not in record["selection"]:
            say(f"selecting {zoo}'s models from its catalog")
            made = subprocess.run(
                [sys.executable, "-m", "exportpass_fix.survey.zoo", zoo],
                stdout=subprocess.PIPE,
                check=True,
            )
            record["selection"][zoo] = json.loads(made.stdout)


def add_commands(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]",
) -> None:
    survey = commands.add_parser("survey", description=COMMANDS["survey"])
    survey.add_argument("--record", metavar="FILE", help="survey into, or resume")
    survey.add_argument("--from-record", metavar="FILE", help="render; run nothing")
    survey.add_argument(
        "--zoo", action="append", choices=ZOOS, help="(default: both; repeatable)"
    )
    survey.add_argument(
        "--only", action="append", default=[], metavar="ZOO/NAME", help="repeatable"
    )
    survey.add_argument(
        "--seconds", type=_positive, help=f"a process's CPU seconds (default {SECONDS})"
    )
    survey.add_argument(
        "--memory-gib", type=_positive, help=f"a process's (default {MEMORY_GIB})"
    )
    survey.add_argument("--json", action="store_true", help="the record as JSON")
    survey.set_defaults(run=_survey, zoo=None)
