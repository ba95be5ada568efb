"""The release table: which ExecuTorch (and torch) releases #22309 bites,
as ``releases --json`` measured it, committed in ``releases.json``.

The PR body's range of releases and the cherry-pick category are read
from it, never written by hand; the docs carry its rendering (tested).
"""

import json
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .report import text_table

COMMITTED = Path(__file__).resolve().parent / "releases.json"
# The checks each release runs besides the graph and the test
# partitioner: (what it stands for, model, partitioner).
RUNS: List[Tuple[str, str, str]] = [
    ("RF-DETR / DETR on Vulkan", "detr-sine", "vulkan"),
    ("DINOv2 on Vulkan", "dinov2-interpolated", "vulkan"),
    ("control", "detr-sine", "xnnpack"),
]
HEADER = ["ExecuTorch", "torch", "repro", "lowering", "Vulkan", "XNNPACK"]
HEADER += ["with the backport", "seconds"]


def load(path: Path = COMMITTED) -> Dict[str, object]:
    return json.loads(path.read_text(encoding="utf-8"))


def _version(text: str) -> Tuple[int, ...]:
    return tuple(int(part) for part in text.split("+")[0].split("."))


def _ran(table: Dict[str, object]) -> List[Dict]:
    rows = table["rows"]
    assert isinstance(rows, list)
    return [row for row in rows if row.get("outcome") == "ran"]


def _failed(step: Optional[Dict]) -> str:
    if step is None:
        return "not run"
    if step["ok"]:
        return "lowers"
    return "fails (#22309)" if step.get("is_22309") else "fails"


def bitten(row: Dict) -> bool:
    """#22309's signature unpatched: two modes, or the fake-mode assertion."""
    steps = row.get("unpatched", {})
    repro = steps.get("issue repro")
    return (repro is not None and not repro["ok"]) or any(
        step.get("is_22309") for step in steps.values()
    )


def fixed(row: Dict) -> bool:
    steps = row.get("backport", {})
    return bool(steps) and all(step["ok"] for step in steps.values())


def cells(row: Dict) -> List[str]:
    """One row of the table, as its columns say."""
    head = [row["executorch"], row.get("torch_installed", row["torch"])]
    if row.get("outcome") != "ran":
        return head + [f"{row.get('outcome')}: {row.get('why')}", "", "", "", ""]
    steps = row["unpatched"]
    repro = steps.get("issue repro", {}).get("detail", "not run")
    vulkan = [steps.get(f"vulkan {model}") for _, model, p in RUNS if p == "vulkan"]
    failing = [s for s in vulkan if s is not None and not s["ok"]]
    if all(s is None for s in vulkan):
        vulkan_cell = "not shipped"
    elif failing:
        mark = " (#22309)" if all(s.get("is_22309") for s in failing) else ""
        vulkan_cell = f"{len(failing)} of {len(vulkan)} fail{mark}"
    else:
        vulkan_cell = f"{len(vulkan)} of {len(vulkan)} lower"
    if fixed(row):
        backport = "all lower" if bitten(row) else "not needed; all lower"
    else:
        worker = row.get("backport", {}).get("worker")
        backport = f"no: {worker['detail']}" if worker else "no"
    return head + [
        repro,
        _failed(steps.get("constant subgraph")),
        vulkan_cell,
        _failed(steps.get("xnnpack detr-sine")),
        backport,
    ]


def _rows(table: Dict[str, object]) -> List[List[str]]:
    rows = table["rows"]
    assert isinstance(rows, list)
    return [cells(row) + [f"{row['seconds']:.0f}"] for row in rows]


def render_text(table: Dict[str, object]) -> str:
    return text_table(HEADER, _rows(table))


def render_summary(table: Dict[str, object]) -> str:
    """The table with releases of equal results on one line (the README's)."""
    rows = table["rows"]
    assert isinstance(rows, list)
    groups: List[List[str]] = []
    for row in rows:
        line = cells(row)
        if groups and groups[-1][1:] == line[1:]:
            groups[-1][0] += f", {line[0]}"
        else:
            groups.append(line)
    header = HEADER[:-1]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(g) + " |" for g in groups])


def render_markdown(table: Dict[str, object]) -> str:
    lines = [
        f"Measured on {table['date']} by `{table['generated_by']}`"
        " (`exir/shared/releases.json`):",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + " --- |" * len(HEADER),
    ]
    lines += ["| " + " | ".join(row) + " |" for row in _rows(table)]
    return "\n".join(lines)


def _label(step: str) -> str:
    for label, model, partitioner in RUNS:
        if step == f"{partitioner} {model}":
            return label
    return step


def _line(version: str) -> Tuple[int, ...]:
    return _version(version)[:2]


def regressions_into(table: Dict[str, object], line: Tuple[int, ...]) -> List[str]:
    """The checks that every release of ``line`` (e.g. (1, 5)) aborts on with
    #22309 and some release of the line before it lowers: what the target
    line regressed on, as a release tracker means "regression"."""
    rows = _ran(table)
    target = [r for r in rows if _line(r["executorch"]) == line]
    before = sorted({_line(r["executorch"]) for r in rows} - {line})
    before = [b for b in before if b < line]
    if not target or not before:
        return []
    previous = [r for r in rows if _line(r["executorch"]) == before[-1]]
    steps = dict.fromkeys(s for r in target for s in r["unpatched"] if s != "import")
    return [
        _label(step)
        for step in steps
        if all(r["unpatched"].get(step, {}).get("is_22309") for r in target)
        and any(r["unpatched"].get(step, {}).get("ok") for r in previous)
    ]


def bitten_range(table: Dict[str, object]) -> Tuple[str, str]:
    releases = sorted({r["executorch"] for r in _ran(table) if bitten(r)}, key=_version)
    return releases[0], releases[-1]


def bitten_count(table: Dict[str, object]) -> Tuple[int, str, str]:
    """How many releases the table shows bitten, the first and the last."""
    releases = {r["executorch"] for r in _ran(table) if bitten(r)}
    first, last = bitten_range(table)
    return len(releases), first, last


def cherry_pick_category(table: Dict[str, object], onto: str) -> str:
    """``regression`` where the line before ``onto`` (release/1.5: 1.4.x)
    lowers what ``onto``'s releases abort on; otherwise ``critical``: the
    trackers' first criterion, critical fixes in core components (exir)."""
    line = _version(onto.rsplit("/", 1)[-1])
    return "regression" if regressions_into(table, line) else "critical"
