"""What the command-line tools print: plain-text tables, and the one-line
refusal that goes with exit status 2."""

import sys
from typing import List, Sequence

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_REFUSED = 2


def refuse(command: str, reason: object) -> int:
    print(f"exportpass_fix {command}: refused: {reason}", file=sys.stderr)
    return EXIT_REFUSED


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell, a rule under the header."""
    table: List[Sequence[str]] = [header, *rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = [
        " | ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
        for row in table
    ]
    lines.insert(1, "-+-".join("-" * width for width in widths))
    return "\n".join(lines)
