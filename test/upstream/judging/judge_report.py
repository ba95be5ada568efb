"""What docs/tests.md shows of a kill-table record (``judge_run.py``'s
output kept by test/record_output.py): the tally, the graph shapes the
flows gave ``call``, the acceptable variants, and each test with the wrong
variants it fails on. Imports no ExecuTorch.

    python test/upstream/judging/judge_report.py docs/records/mutants.json
"""

import json
import sys
from pathlib import Path
from typing import Dict, List


def read_record(path: Path) -> Dict:
    """The table a record holds; ValueError saying why not."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        table = json.loads(record["stdout"])
    except (OSError, ValueError, TypeError, KeyError) as error:
        raise ValueError(f"{path}: not a record of judge_run.py ({error})")
    if not isinstance(table, dict) or not isinstance(table.get("variants"), list):
        raise ValueError(f"{path}: not a record of judge_run.py (no variants)")
    return table


def tally(table: Dict) -> str:
    rows = table["variants"]
    wrong = [r for r in rows if r["judged"] == "wrong"]
    accepted = [r for r in rows if r["judged"] == "acceptable"]
    witnesses = sum(len(names) for names in table["flows"].values())
    return (
        f"On ExecuTorch {table['executorch']} (torch {table['torch']}),"
        f" {witnesses} witnesses in {len(table['flows'])} flows:"
        f" wrong variants (a witness shows them a failure) killed by the"
        f" tests: {sum(bool(r['failing_tests']) for r in wrong)} of"
        f" {len(wrong)}; acceptable variants passing them:"
        f" {sum(not r['failing_tests'] for r in accepted)} of {len(accepted)}."
    )


def shapes(table: Dict) -> str:
    """The graph shapes ``call`` was given while the flows ran under the fix."""
    counts = dict(table.get("shapes_given_call_under_the_fix") or {})
    calls = counts.pop("calls", 0)
    said = "; ".join(f"{shape}: {count}" for shape, count in counts.items())
    return f"Calls of `call` while the flows ran under the fix: {calls}; {said}."


def per_test(rows: List[Dict]) -> str:
    """Each test and the wrong variants it is the first to fail on (the run
    stops a wrong variant's tests at the first failure)."""
    killers: Dict[str, List[str]] = {}
    for row in rows:
        failing = row["failing_tests"] if row["judged"] == "wrong" else []
        for test in failing[:1]:
            killers.setdefault(test, []).append(row["name"])
    lines = ["| test | the wrong variants it fails on first |", "| --- | --- |"]
    for test, names in sorted(killers.items()):
        lines.append(f"| `{test}` | {'; '.join(names)} |")
    return "\n".join(lines)


def render(table: Dict) -> str:
    rows = table["variants"]
    accepted = [r["name"] for r in rows if r["judged"] == "acceptable"]
    return "\n\n".join(
        [
            tally(table),
            shapes(table),
            "The acceptable variants: " + "; ".join(accepted) + ".",
            per_test(rows),
        ]
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("judge_report.py: usage: judge_report.py RECORD", file=sys.stderr)
        sys.exit(2)
    try:
        print(render(read_record(Path(sys.argv[1]))))
    except ValueError as bad:
        print(f"judge_report.py: {bad}", file=sys.stderr)
        sys.exit(2)
