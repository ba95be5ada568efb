"""`check` against the survey: runs ``exportpass-fix check --json`` on each
model the survey's record finds bitten, through each partitioner that bites,
and on as many models whose Vulkan lowering did not fail, drawn with a
recorded seed (through Vulkan); compares check's outcome, unpatched and with
the backport, with the survey's; says where check's "where" points.

    python test/survey/check_survey.py --survey test/survey/survey.json \\
        --record test/survey/check_survey.json
    python test/survey/check_survey.py --survey test/survey/survey.json \\
        --from-record test/survey/check_survey.json

The first runs what the record lacks (it needs the zoos: the survey's
environment), writing the record after each model; the second renders it
for docs/check.md and runs nothing. The record's ``made_from`` names
check's files (test/record_sources.py), not the survey's.
"""

import argparse
import hashlib
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
# check_verdicts and check_render beside it, record_sources above
sys.path[:0] = [str(HERE), str(HERE.parent)]

import check_render  # noqa: E402
import check_verdicts  # noqa: E402
import record_sources  # noqa: E402
from exportpass_fix.survey import outcomes, record as records  # noqa: E402

PROG = "check_survey.py"
SEED = 22309
RECORD = "test/survey/check_survey.json"
SURVEY = "test/survey/survey.json"
# Builds and saves the model as the survey exports it (its own build()).
EXPORT = """import json, sys, torch
from exportpass_fix.survey.lower_one import build
model, args = build(json.loads(sys.argv[1]))
torch.export.save(torch.export.export(model, args), sys.argv[2])
"""


def _rank(seed: int, key: str) -> str:
    return hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()


def planned(survey: Dict, seed: int) -> List[Tuple[str, str, str]]:
    """(model, partitioner, why) for each check to run: every partitioner
    that bites each bitten model, then as many unbitten models (Vulkan did
    not fail unpatched) as there are bitten ones, at least one, drawn by
    ``seed``: the lowest sha256 of ``seed:model``."""
    bitten = records.bitten(survey)
    jobs = [
        (key, partitioner, "bitten")
        for key in bitten
        for partitioner, how, outcome in outcomes.outcome_rows(survey["models"][key])
        if how == "unpatched" and outcome == outcomes.BITTEN
    ]
    unbitten = [
        key
        for key, entry in survey["models"].items()
        if ("vulkan", "unpatched", outcomes.LOWERS) in outcomes.outcome_rows(entry)
    ]
    drawn = sorted(unbitten, key=lambda key: _rank(seed, key))[: max(1, len(bitten))]
    return jobs + [(key, "vulkan", "drawn") for key in sorted(drawn)]


def _survey_says(entry: Dict, partitioner: str) -> Dict[str, Optional[str]]:
    hows = entry["lowerings"].get(partitioner, {})
    return {how: hows.get(how, {}).get("outcome") for how in ("unpatched", "backport")}


def run_one(survey: Dict, key: str, partitioner: str, say) -> Dict:
    """Exports the model as the survey does, runs check on its .pt2."""
    zoo, name = key.split("/")
    model = next(m for m in survey["selection"][zoo]["models"] if m["name"] == name)
    with tempfile.TemporaryDirectory(prefix="check-survey-") as scratch:
        pt2 = str(Path(scratch) / "model.pt2")
        say(f"{key}: exporting")
        job = json.dumps({**model, "zoo": zoo})
        subprocess.run([sys.executable, "-c", EXPORT, job, pt2], check=True)
        say(f"{key}: check --partitioner {partitioner}")
        done = subprocess.run(
            [sys.executable, "-m", "exportpass_fix", "check", "--json"]
            + ["--model", pt2, "--partitioner", partitioner],
            cwd=scratch,
            stdout=subprocess.PIPE,
            text=True,
        )
    if not done.stdout:  # refused: say so and stop (the record keeps the rest)
        raise SystemExit(f"{PROG}: check exited {done.returncode} on {key}")
    checked = json.loads(done.stdout)
    found = check_verdicts.of_check(checked)
    survey_says = _survey_says(survey["models"][key], partitioner)
    return {
        "survey": survey_says,
        "check": found,
        "agrees": check_verdicts.agrees(survey_says, found),
        "exit_status": done.returncode,
        "verdict": checked["verdict"].splitlines()[0],
        "where": check_verdicts.where(checked, zoo),
    }


def _versions() -> Dict[str, str]:
    from exportpass_fix.survey.zoo import versions

    return versions()


def run(args: argparse.Namespace, survey: Dict) -> int:
    path = Path(args.record)
    record = json.loads(path.read_text()) if path.exists() else None
    made_from = record_sources.made_from(RECORD)
    if record is not None and record["made_from"] != made_from:
        print(f"{PROG}: {path} was made from other files of check", file=sys.stderr)
        return 2
    record = record or {
        "command": f"python test/survey/check_survey.py --survey {SURVEY}"
        f" --record {RECORD}",
        "seed": SEED,
        "made_from": made_from,
        "versions": _versions(),
        "checks": {},
    }
    jobs = planned(survey, record["seed"])
    todo = [job for job in jobs if f"{job[0]} {job[1]}" not in record["checks"]]
    for n, (key, partitioner, why) in enumerate(todo, 1):

        def say(line: str, n: int = n) -> None:
            print(f"[{n} of {len(todo)}] {line}", file=sys.stderr, flush=True)

        started = time.monotonic()
        found = run_one(survey, key, partitioner, say)
        found["seconds"] = round(time.monotonic() - started)  # export and check
        record["checks"][f"{key} {partitioner}"] = {"why": why, **found}
        path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
        say(f"{key} {partitioner}: agrees: {found['agrees']}")
    print(check_render.render(record, survey))
    return 0


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    parser.add_argument("--survey", required=True, metavar="FILE")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--record", metavar="FILE", help="run what it lacks")
    which.add_argument("--from-record", metavar="FILE", help="render; run nothing")
    args = parser.parse_args(argv)
    try:
        survey = records.load(Path(args.survey))
    except ValueError as error:
        survey, why = None, str(error)
    else:
        why = f"no such survey record: {args.survey}"
    if survey is None:
        print(f"{PROG}: {why}", file=sys.stderr)
        return 2
    if args.record and not Path(args.record).parent.is_dir():
        print(f"{PROG}: {Path(args.record).parent} is no directory", file=sys.stderr)
        return 2
    missing = [
        zoo
        for zoo in ("executorch", "timm", "torchvision")
        if args.record and importlib.util.find_spec(zoo) is None
    ]
    if missing:
        print(f"{PROG}: {missing[0]} is not installed here", file=sys.stderr)
        return 2
    if args.from_record:
        found = Path(args.from_record)
        if not found.is_file():
            print(f"{PROG}: no such record: {found}", file=sys.stderr)
            return 2
        print(check_render.render(json.loads(found.read_text()), survey))
        return 0
    return run(args, survey)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
