"""The survey's record as docs show it: ``summary`` (the counts of each zoo,
partitioner and outcome, unpatched and with the backport, in a few lines
for docs/check.md) and ``markdown`` (the whole record, a row per model, the
generated page docs/survey.md). Both say how many models of the selection
the record covers, so a partial record reads as one.

    python test/survey/survey_page.py --summary test/survey/survey.json
    python test/survey/survey_page.py --markdown test/survey/survey.json
"""

import sys
import textwrap
from collections import Counter
from pathlib import Path
from typing import Dict, List

from exportpass_fix.shared.report import text_table
from exportpass_fix.survey import outcomes
from exportpass_fix.survey.lower_one import RTOL
from exportpass_fix.survey.record import bitten, load, selected

PLAN = ("vulkan", "webgpu", "xnnpack")
HOWS = ("unpatched", "backport")
# A cell's outcome in a word or two; the legend under each table spells it.
SHORT = {
    outcomes.DOES_NOT_EXPORT: "no export",
    outcomes.LOWERS: "lowers",
    outcomes.BITTEN: "#22309",
    outcomes.OTHER: "other",
    outcomes.TIMED_OUT: "timed out",
    outcomes.NO_MEMORY: "out of memory",
}
LEGEND = "#22309: its assertion; other: fails otherwise; where Vulkan gave either, WebGPU and XNNPACK too, then all three with the backport; else, if drawn, Vulkan with it"


def coverage(record: Dict) -> str:
    """``n of N models surveyed`` in all and for each zoo."""
    names, done = selected(record), record["models"]
    zoos = [
        f"{zoo}: {sum(k in done for k in names if k.startswith(zoo + '/'))}"
        f" of {sum(k.startswith(zoo + '/') for k in names)}"
        for zoo in sorted(record["selection"])
    ]
    return f"{len(done)} of {len(names)} models surveyed ({', '.join(zoos)})"


def _pivot(record: Dict) -> List[List[str]]:
    """A row per zoo and partitioner: its outcomes' counts, each way."""
    found: Counter = Counter()
    for key, entry in record["models"].items():
        for partitioner, how, outcome in outcomes.outcome_rows(entry):
            found[(key.split("/")[0], partitioner, how, outcome)] += 1
    rows = []
    for zoo in sorted({key[0] for key in found}):
        for partitioner in PLAN:
            cells = [
                ", ".join(
                    f"{found[(zoo, partitioner, how, o)]} {SHORT[o]}"
                    for o in outcomes.OUTCOMES
                    if found[(zoo, partitioner, how, o)]
                )
                or "not run"
                for how in HOWS
            ]
            rows.append([zoo, partitioner, *cells])
    return rows


def summary(record: Dict) -> str:
    header = ["zoo", "partitioner", "unpatched", "with the backport"]
    lines = [coverage(record) + ":", text_table(header, _pivot(record))]
    return "\n".join(lines + textwrap.wrap(LEGEND, 100))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _equal(run: Dict) -> str:
    """Whether a run's outputs equalled eager's, or how the run failed."""
    if "equal" in run:
        return "yes" if run["equal"] else "no"
    return SHORT.get(run.get("outcome", ""), "failed")


def _row(key: str, entry: Dict, model: Dict) -> List[str]:
    got = {(p, how): o for p, how, o in outcomes.outcome_rows(entry)}
    lowered = [SHORT.get(got.get((p, h), ""), "") for h in HOWS for p in PLAN]
    run = entry.get("run", {})
    equal = [_equal(run[how]) if how in run else "" for how in HOWS]
    return [
        key,
        "x".join(map(str, model["input"])),
        SHORT.get(entry.get("export", {}).get("outcome", ""), "yes"),
        *lowered,
        " / ".join(equal) if any(equal) else "",
        {True: "same", False: "differs"}.get(entry.get("same_pte"), ""),
        f"{entry.get('seconds', 0):.0f}",
    ]


def _failures(record: Dict) -> List[str]:
    """Each failure other than #22309's, with its first line."""
    found = []
    for key, entry in sorted(record["models"].items()):
        export = entry.get("export", {})
        if export.get("outcome") not in (None, "exports"):
            found.append(f"| {key} | export | {_cell(export.get('error', ''))} |")
        for partitioner, hows in sorted(entry.get("lowerings", {}).items()):
            for how, result in sorted(hows.items()):
                if result["outcome"] not in (outcomes.LOWERS, outcomes.BITTEN):
                    where = f"{partitioner}, {how}"
                    found.append(f"| {key} | {where} | {_cell(result['error'])} |")
    return found


def markdown(record: Dict) -> str:
    """The whole record: its coverage, limits and counts, a row per model
    surveyed, every failure that is not #22309's, what is left."""
    limits, versions = record["limits"], record["made_from"]["versions"]
    by_key = {
        f"{zoo}/{m['name']}": m
        for zoo, chosen in record["selection"].items()
        for m in chosen["models"]
    }
    header = ["model", "input", "export"]
    header += [f"{p}, {how}" for how in HOWS for p in PLAN]
    header += ["XNNPACK = eager (unpatched / backport)", ".pte with backport", "s"]
    lines = [
        f"{coverage(record)}, by `{record['command']}` over"
        f" {', '.join(f'{k} {v}' for k, v in sorted(versions.items()))}.",
        f"A process's limits: {limits['seconds']:g} CPU s, {limits['memory_gib']:g}"
        f" GiB. XNNPACK's outputs are compared with eager at rtol = atol = {RTOL:g}."
        f" The draw's seed: {record['seed']}.",
        "",
        "## Counts",
        "",
        "```text",
        summary(record),
        "```",
        "",
        "Bitten unpatched: " + (", ".join(bitten(record)) or "none so far") + ".",
        "",
        "## Every model surveyed",
        "",
        "| " + " | ".join(header) + " |",
        "|" + " --- |" * len(header),
    ]
    for key in sorted(record["models"]):
        cells = _row(key, record["models"][key], by_key[key])
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    failures = _failures(record)
    lines += ["", "## Failures other than #22309's", ""]
    if failures:
        lines += ["| model | step | first line |", "| --- | --- | --- |", *failures]
    else:
        lines.append("None so far.")
    left = [k for k in selected(record) if k not in record["models"]]
    lines += ["", "## Not yet surveyed", "", ", ".join(left) or "None."]
    return "\n".join(lines)


def main(args: List[str]) -> int:
    forms = {"--summary": summary, "--markdown": markdown}
    if len(args) != 2 or args[0] not in forms:
        print("survey_page.py: usage: --summary|--markdown RECORD", file=sys.stderr)
        return 2
    try:
        record = load(Path(args[1]))
    except ValueError as error:
        record, why = None, str(error)
    else:
        why = f"no such record: {args[1]}"
    if record is None:
        print(f"survey_page.py: {why}", file=sys.stderr)
        return 2
    print(forms[args[0]](record))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
