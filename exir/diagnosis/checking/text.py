"""How ``check`` prints its columns: ``table`` shows them side by side, cut
to a terminal's width; ``diagnosis_lines`` the diagnosis under it, with
``where_lines`` naming the user's code.
"""

import textwrap
from pathlib import Path
from typing import Dict, List, Optional

from ...shared.report import text_table
from .columns import Column

TITLES = {
    "unpatched": "unpatched",
    "backport": "with backport",
    "folded": "folded, unpatched",
}
WIDTH = 100  # a terminal's columns; check --full gives every cell whole
# How a record's status (the worker's: ok, failed, not run) reads in a cell.
CELL_MARK = {"ok": "ok", "failed": "FAIL", "not run": "not run"}


def _cell(record: Optional[Dict]) -> str:
    if record is None:
        return "not run: an earlier step failed"
    return f"{CELL_MARK[record['status']]}: {record['detail']}"


def _fit(natural: List[int], available: int) -> List[int]:
    """Column widths within ``available``: the widest is narrowed first."""
    widths = list(natural)
    while sum(widths) > available and max(widths) > 1:
        widths[widths.index(max(widths))] -= 1
    return widths


def table(
    columns: Dict[str, Column], rows: Dict[str, str], width: Optional[int] = WIDTH
) -> str:
    """The steps by column; long cells wrap to fit ``width`` (None: one line
    a row, every cell whole)."""
    body = []
    for step, title in rows.items():
        run = None if step in ("import", "issue repro") else 0
        cells = [_cell(columns[c].steps(run).get(step)) for c in columns]
        body.append([title, *cells])
    header = ["step", *(TITLES[c] for c in columns)]
    if width is None:
        return text_table(header, body)
    step_width = max(len(row[0]) for row in [header, *body])
    natural = [max(len(row[i]) for row in body) for i in range(1, len(header))]
    return text_table(
        header,
        body,
        [step_width, *_fit(natural, width - step_width - 3 * len(natural))],
    )


def where_lines(where: Optional[Dict]) -> List[str]:
    """The user's code behind a trigger: per source, its module and place
    (a path under the current directory shown relative), then its line."""
    if where is None:
        return []
    lines = [f"  where in your code: {where['note'] or ''}".rstrip()]
    for source in where["sources"]:
        module = source.get("module", "(no module)")
        lines.append(f"    {module} ({source.get('module_class', '?')})")
        if "file" in source:
            path = Path(source["file"])
            if path.is_relative_to(Path.cwd()):
                path = path.relative_to(Path.cwd())
            lines[-1] += f" {path}:{source['line']}:"
            lines.append(f"      {source['code']}")
    if where["unlocated"] and where["sources"]:
        lines.append(f"    no metadata: {', '.join(where['unlocated'])}")
    return lines


def diagnosis_lines(diagnosis: Dict, width: Optional[int]) -> List[str]:
    """The diagnosis in lines, wrapped to ``width`` (None: not wrapped)."""
    lines = [
        f"#22309 signature in the unpatched failure: {'yes' if diagnosis['is_22309'] else 'no'}"
    ]
    if diagnosis["blamed_pass"]:
        lines.append(
            f"the pass manager blames: {diagnosis['blamed_pass']} (misleading)"
        )
    for trigger in diagnosis["trigger_submodules"]:
        lines.append(f"trigger-shaped delegate {trigger['name']}:")
        lines.append(f"  constant placeholders: {', '.join(trigger['placeholders'])}")
        lines.append(f"  ops: {', '.join(trigger['ops'])}")
        lines += where_lines(trigger.get("where"))
    lines += f"verdict: {diagnosis['verdict']}".splitlines()
    if width is None:
        return lines
    return [
        wrapped
        for line in lines
        for wrapped in textwrap.wrap(line, width, subsequent_indent="    ")
    ]
