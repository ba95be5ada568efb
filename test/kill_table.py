"""Prints what docs/tests.md shows of a committed ``mutants --json`` record:
the tally, the acceptable variants, and each test with the wrong variants it
fails on, all as ``mutants --markdown`` words them (its table of every
variant, one row each, is left to that command: it grows with the variants).

    python test/kill_table.py docs/records/mutants.json
"""

import sys
from pathlib import Path

from exportpass_fix.upstream.judging.mutants_report import markdown, read_record


def render(table: dict) -> str:
    tally, _every_variant, per_test = markdown(table).split("\n\n")
    accepted = [str(r["name"]) for r in table["variants"] if not r["wrong"]]
    return "\n\n".join(
        [tally, "The acceptable variants: " + "; ".join(accepted) + ".", per_test]
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("kill_table.py: usage: kill_table.py RECORD", file=sys.stderr)
        sys.exit(2)
    try:
        print(render(read_record(Path(sys.argv[1]))))
    except ValueError as bad:
        print(f"kill_table.py: {bad}", file=sys.stderr)
        sys.exit(2)
