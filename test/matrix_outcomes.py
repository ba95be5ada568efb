"""Prints the outcome of each pair of a committed ``matrix --json`` record
as one markdown row per model and a column per partitioner, with the
record's summary line: what docs/evidence.md shows of the matrix (the full
table is ``exportpass-fix matrix --markdown --from RECORD``).

    python test/matrix_outcomes.py docs/records/matrix.json
"""

import sys
from typing import Dict, List

from exportpass_fix.diagnosis.evidence.matrix import from_record, summary_line

# What folding gave, said only where it is not what it gives most.
FOLDING_AS_USUAL = ("unblocks", "lowers")


def cell(pair: Dict) -> str:
    folding = pair["folding"]
    said = "" if folding in FOLDING_AS_USUAL else f"; folded: {folding}"
    return pair["outcome"] + said


def render(matrix: Dict) -> str:
    pairs: List[Dict] = matrix["pairs"]
    partitioners = list(dict.fromkeys(p["partitioner"] for p in pairs))
    models = list(dict.fromkeys(p["model"] for p in pairs))
    cells = {(p["model"], p["partitioner"]): cell(p) for p in pairs}
    lines = [
        f"Measured on ExecuTorch {matrix['executorch']}, torch {matrix['torch']}"
        " on {date} by `{command}`.".format(**matrix["recorded"]),
        "",
        "| model | " + " | ".join(partitioners) + " |",
        "|" + " --- |" * (len(partitioners) + 1),
    ]
    for model in models:
        row = [cells.get((model, p), "not run") for p in partitioners]
        lines.append(f"| {model} | " + " | ".join(row) + " |")
    return "\n".join(lines + ["", summary_line(matrix) + "."])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("matrix_outcomes.py: usage: matrix_outcomes.py RECORD", file=sys.stderr)
        sys.exit(2)
    try:
        print(render(from_record(sys.argv[1])))
    except ValueError as bad:
        print(f"matrix_outcomes.py: {bad}", file=sys.stderr)
        sys.exit(2)
