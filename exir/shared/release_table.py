"""The release table: which ExecuTorch (and torch) releases #22309 bites,
as ``releases --json`` measured it, committed in ``releases.json``.

The PR body's regression sentence and the cherry-pick category are read
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


# What a bisect on the wheels found to start a regression the table shows,
# confirmed by experiment (docs/evidence.md#why-dinov2-on-vulkan-regressed).
CAUSES: Dict[Tuple[str, str], str] = {
    ("DINOv2 on Vulkan", "1.1.0"): "#15677 made Vulkan delegate dtype-changing"
    " copies",
}


def _label(step: str) -> str:
    for label, model, partitioner in RUNS:
        if step == f"{partitioner} {model}":
            return label
    return step


def regressions(table: Dict[str, object]) -> List[Tuple[str, str, str]]:
    """(check, the last release that lowers it, the first after that does
    not) for each check that an earlier release lowers and every 1.4.x and
    1.5.x row aborts on with #22309."""
    rows = sorted(_ran(table), key=lambda row: _version(row["executorch"]))
    current = [r for r in rows if _version(r["executorch"]) >= (1, 4)]
    found = []
    steps = dict.fromkeys(s for r in rows for s in r["unpatched"] if s != "import")
    for step in steps:
        if not current or not all(
            r["unpatched"].get(step, {}).get("is_22309") for r in current
        ):
            continue
        lowering = [
            r
            for r in rows
            if _version(r["executorch"]) < (1, 4)
            and r["unpatched"].get(step, {}).get("ok")
        ]
        if lowering:
            last = lowering[-1]["executorch"]
            after = [r for r in rows if _version(r["executorch"]) > _version(last)]
            found.append((_label(step), last, after[0]["executorch"]))
    return found


def bitten_range(table: Dict[str, object]) -> Tuple[str, str]:
    releases = sorted({r["executorch"] for r in _ran(table) if bitten(r)}, key=_version)
    return releases[0], releases[-1]


def regression_sentence(table: Dict[str, object]) -> str:
    first, last = bitten_range(table)
    found = regressions(table)
    if not found:
        return (
            f"ExecuTorch {first} to {last} all fail this way, so it is no"
            " regression of a 1.x release."
        )
    parts = []
    for label, lowering, failing in found:
        cause = CAUSES.get((label, failing))
        parts.append(
            f"since {failing} for {label}, which {lowering} lowers"
            + (f" ({cause})" if cause else "")
        )
    return (
        f"It is a regression {'; and '.join(parts)}; the bug itself is in"
        f" {first} to {last}."
    )


def cherry_pick_category(table: Dict[str, object]) -> str:
    return "regression" if regressions(table) else "critical"
