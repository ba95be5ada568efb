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


def render_markdown(table: Dict[str, object]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + " --- |" * len(HEADER)]
    lines += ["| " + " | ".join(row) + " |" for row in _rows(table)]
    return "\n".join(lines)


def regression(table: Dict[str, object]) -> Optional[Tuple[str, str]]:
    """(the last release that lowers, the first after it that does not),
    where a release before 1.4.0 lowers what 1.4.x and 1.5.x abort on."""
    rows = sorted(_ran(table), key=lambda row: _version(row["executorch"]))
    current = [r for r in rows if _version(r["executorch"]) >= (1, 4)]
    if not current or not all(bitten(r) for r in current):
        return None
    earlier = [r for r in rows if _version(r["executorch"]) < (1, 4)]
    lowering = [r for r in earlier if not bitten(r)]
    if not lowering:
        return None
    last = lowering[-1]["executorch"]
    after = [r for r in rows if _version(r["executorch"]) > _version(last)]
    return last, after[0]["executorch"]


def bitten_range(table: Dict[str, object]) -> Tuple[str, str]:
    releases = sorted({r["executorch"] for r in _ran(table) if bitten(r)}, key=_version)
    return releases[0], releases[-1]


def regression_sentence(table: Dict[str, object]) -> str:
    found = regression(table)
    if found is not None:
        last, first = found
        return f"It is a regression in {first}: {last} lowers these models."
    first, last = bitten_range(table)
    return f"ExecuTorch {first} to {last} all fail this way: not a regression."


def cherry_pick_category(table: Dict[str, object]) -> str:
    return "regression" if regression(table) is not None else "critical"
