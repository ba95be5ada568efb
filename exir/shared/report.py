"""Plain-text tables for the command-line tools."""

from typing import List, Sequence


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
