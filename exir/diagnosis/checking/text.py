"""What ``check`` says: ``table`` shows the columns side by side, cut to a
terminal's width; ``diagnosis_lines`` the diagnosis under it, with
``where_lines`` naming the user's code; ``verdict`` turns the three columns
into the verdict: the routes past the bug that were measured.
"""

import textwrap
from pathlib import Path
from typing import Dict, List, Optional

from ...shared.installed import installed_version
from ...shared.report import text_table
from ..loading.user_code import call_into
from .columns import Column
from .findings import edited_since_saved

TITLES = {
    "unpatched": "unpatched",
    "backport": "with backport",
    "folded": "folded, unpatched",
}
WIDTH = 100  # a terminal's columns; check --full gives every cell whole
# How a record's status (the worker's: ok, failed, not run) reads in a cell.
CELL_MARK = {"ok": "ok", "failed": "FAIL", "not run": "not run"}
# Measured (docs/check.md): on 1.0.0 a folded .pte of detr-sine failed when run.
FOLDED_ON_10X = (
    "  on 1.0.x a folded .pte has failed when run (docs/check.md):"
    " run it on the device before trusting it"
)
NOT_COMPARED = "outputs not compared"
UNRECORDED = "(torch records the frames of modules' forward only)"
# What the folded column adds to a user's script, before lowering.
FOLD_LINE = (
    "from executorch.exir.passes.constant_prop_pass import constant_prop_pass;"
    " ep = constant_prop_pass(ep)"
)
HOW_TO_USE = (
    "call exportpass_fix.apply() before to_edge_transform_and_lower(...),"
    " or run your script with EXPORTPASS_FIX=1"
)


def _cell(record: Optional[Dict], column: Column) -> str:
    if record is None:
        return f"not run: {column.why_not_run()}"
    return f"{CELL_MARK[record['status']]}: {record['detail']}"


def _fit(natural: List[int], least: List[int], available: int) -> List[int]:
    """Widths within ``available``: the widest narrowed first, to its longest
    word (``least``) while another can give."""
    widths = list(natural)
    while sum(widths) > available:
        over = [i for i, w in enumerate(widths) if w > max(least[i], 1)]
        if not over:
            over = [i for i, w in enumerate(widths) if w > 1]
            if not over:
                break
        widest = max(over, key=lambda i: widths[i])
        widths[widest] -= 1
    return widths


def table(
    columns: Dict[str, Column], rows: Dict[str, str], width: Optional[int] = WIDTH
) -> str:
    """The steps by column; long cells wrap to fit ``width`` (None: one line
    a row, every cell whole), between words: a file name is not cut."""
    body = []
    for step, title in rows.items():
        run = None if step in ("import", "issue repro") else 0
        cells = [_cell(columns[c].steps(run).get(step), columns[c]) for c in columns]
        body.append([title, *cells])
    header = ["step", *(TITLES[c] for c in columns)]
    if width is None:
        return text_table(header, body)
    step_width = max(len(row[0]) for row in [header, *body])
    natural = [max(len(row[i]) for row in body) for i in range(1, len(header))]
    # A continued line is indented by two: its longest word needs two more.
    least = [
        max(len(w) + 2 for r in body for w in r[i].split())
        for i in range(1, len(header))
    ]
    widths = _fit(natural, least, width - step_width - 3 * len(natural))
    return text_table(header, body, [step_width, *widths], whole_words=True)


def where_lines(where: Optional[Dict]) -> List[str]:
    """The user's code behind a trigger: per source, its module and place
    (relative under the current directory), its line and what it calls."""
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
            if called := call_into(source["file"], source["line"]):
                lines.append(f"      a call: the ops are in {called}() {UNRECORDED}")
    if where["unlocated"] and where["sources"]:
        lines.append(f"    no metadata: {', '.join(where['unlocated'])}")
    return lines


def diagnosis_lines(diagnosis: Dict, width: Optional[int], pt2: str = "") -> List[str]:
    """The diagnosis in lines, wrapped to ``width`` (None: not wrapped), with
    a note where a source named changed after the ``.pt2`` was saved."""
    said = "yes" if diagnosis["is_22309"] else "no"
    lines = [f"#22309 signature in the unpatched failure: {said}"]
    if diagnosis["blamed_pass"]:
        lines.append(
            f"the pass manager blames: {diagnosis['blamed_pass']} (misleading)"
        )
    # Only where #22309 failed: else they lowered or are moot (--json has them).
    shown = diagnosis["trigger_submodules"] if diagnosis["is_22309"] else []
    for trigger in shown:
        lines.append(f"trigger-shaped delegate {trigger['name']}:")
        lines.append(f"  constant placeholders: {', '.join(trigger['placeholders'])}")
        lines.append(f"  ops: {', '.join(trigger['ops'])}")
        lines += where_lines(trigger.get("where"))
    lines += edited_since_saved(pt2, shown)
    lines += f"verdict: {diagnosis['verdict']}".splitlines()
    if width is None:
        return lines
    return [
        wrapped
        for line in lines
        for wrapped in textwrap.wrap(line, width, subsequent_indent="    ")
    ]


def what_failed(failed: Dict) -> str:
    """A failed step in words: its innermost error, else its detail."""
    return str(failed.get("error") or failed.get("detail") or failed["failed"])


def outputs_in_words(run: Dict) -> Optional[str]:
    """What a column's run step found: outputs against eager, or why none."""
    if not run:
        return None
    if run["status"] == "not run":
        return f"{NOT_COMPARED}: {run['detail']}"
    if run["status"] == "ok":
        return f"outputs match eager: {run['detail']}"
    if run.get("max_abs_error") is not None:
        return f"outputs miss the tolerance: {run['detail']}"
    return f"its .pte fails when run: {run['detail']}"


def _cost(route: Dict) -> str:
    outputs = route.get("outputs")
    return f".pte {route['pte_bytes']} bytes" + (f", {outputs}" if outputs else "")


def _not_past(route: Dict) -> str:
    """Why a route did not get past the bug; #22309's own assertion named."""
    if route.get("is_22309"):
        return f"it still fails with #22309's fake-mode assertion: {route.get('error')}"
    return str(route.get("error"))


def _routes(backport: Dict, folded: Dict) -> str:
    """Each way past a lowering that fails unpatched, as measured: a line
    each, the line to add with it."""
    said = ["blocked by #22309; each way past it, as measured on this program:"]
    if backport.get("lowers") and not backport.get("unblocks"):
        said.append(f"- the backport lets it lower, but {_cost(backport)}")
    elif backport.get("lowers"):
        said.append(f"- the backport unblocks it ({_cost(backport)}): {HOW_TO_USE}")
    else:
        said.append(f"- the backport does not make it lower: {_not_past(backport)}")
    if folded.get("lowers") and not folded.get("unblocks"):
        said.append(f"- folding its constants lets it lower, but {_cost(folded)}")
    elif folded.get("lowers"):
        said.append(
            "- folding its constants unblocks it, patching nothing"
            f" ({_cost(folded)}): before to_edge_transform_and_lower, {folded['line']}"
        )
        unseen = str(folded.get("outputs", "")).startswith(NOT_COMPARED)
        if unseen and installed_version().startswith("1.0."):
            said.append(FOLDED_ON_10X)
    elif folded:
        said.append(f"- folding its constants does not unblock it: {_not_past(folded)}")
    return "\n".join(said)


def verdict(unpatched: Dict, backport: Dict, folded: Dict) -> str:
    """One line from the unpatched column's first failing step (``failed``
    None if all ok) and the routes of the other two (``lowers``,
    ``unblocks``, ``error``, ``is_22309``, ``pte_bytes``, ``outputs``,
    ``line``; folded empty if not run)."""
    if unpatched.get("failed") is None:
        return "not affected by #22309 (lowers unpatched)"
    if unpatched["failed"] == "run":
        return "not affected by #22309 (lowers unpatched), but its " + (
            outputs_in_words(unpatched) or ""
        ).replace("its .pte", ".pte", 1)
    if unpatched.get("is_22309"):
        return _routes(backport, folded)
    if backport.get("lowers"):
        return (
            "lowers only with the backport, though the unpatched error is not"
            f" #22309's: {what_failed(unpatched)}"
        )
    return f"fails for another reason, not #22309: {what_failed(unpatched)}"
