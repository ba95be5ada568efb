"""The survey's record: one JSON file, written again after every model, that
a later run (on any machine) resumes from, and the tables rendered from it.

Its ``made_from`` names what decides an outcome: the survey's modules that
select, build, lower and judge (not the loop or its text), the upstream
``pass_base.py`` the backport installs, and the versions of the zoos and the
toolchain. A run refuses a record made from anything else.
"""

import hashlib
import json
import os
import textwrap
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional

from ..shared.report import text_table
from .lower_one import RTOL
from .outcomes import BITTEN, DOES_NOT_EXPORT, LOWERS, outcome_rows

PACKAGE = Path(__file__).resolve().parent.parent
DECIDING = (
    "survey/lower_one.py",
    "survey/outcomes.py",
    "survey/zoo.py",
    "pass_base.py",
)


def made_from(versions: Dict[str, str]) -> Dict[str, object]:
    """The sha256 (16 hex digits) of each deciding file, named as in the
    repository, and the versions the run is made over."""
    files = {
        f"exir/{name}": hashlib.sha256((PACKAGE / name).read_bytes()).hexdigest()[:16]
        for name in DECIDING
    }
    return {"files": files, "versions": versions}


def load(path: Path) -> Optional[Dict]:
    """The record at ``path``, None if there is none; ValueError if it is
    no survey record."""
    if not path.exists():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as error:  # a JSON error too
        raise ValueError(f"{path} cannot be read as JSON: {error}") from None
    keys = {"made_from", "selection", "models", "limits", "seed"}
    if not isinstance(record, dict) or not keys <= set(record):
        raise ValueError(
            f"{path} is no survey record (it lacks {', '.join(sorted(keys))})"
        )
    return record


def differs(record: Dict, now: Dict[str, object]) -> Optional[str]:
    """Why ``record`` was made from other code or versions than ``now``."""
    then = record["made_from"]
    changed = [
        name
        for part in ("files", "versions")
        for name in sorted({*then[part], *now[part]})  # type: ignore[misc]
        if then[part].get(name) != now[part].get(name)  # type: ignore[index]
    ]
    return f"{', '.join(changed)} differ from the record's" if changed else None


def save(record: Dict, path: Path) -> None:
    """Written whole or not at all: a run killed mid-write keeps the last."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    os.replace(partial, path)


def selected(record: Dict) -> List[str]:
    """Every model the selection names, as ``zoo/name``, in survey order."""
    return [
        f"{zoo}/{model['name']}"
        for zoo in sorted(record["selection"])
        for model in record["selection"][zoo]["models"]
    ]


def counts(record: Dict) -> Counter:
    """(zoo, partitioner, unpatched or backport, outcome) -> models."""
    found: Counter = Counter()
    for key, entry in record["models"].items():
        for row in outcome_rows(entry):
            found[(key.split("/")[0], *row)] += 1
    return found


def bitten(record: Dict) -> List[str]:
    """The models some unpatched lowering fails with #22309."""
    return sorted(
        key
        for key, entry in record["models"].items()
        if any(r[1:] == ("unpatched", "fails with #22309") for r in outcome_rows(entry))
    )


def _unpatched_vulkan(entry: Dict) -> Optional[str]:
    """The outcome through Vulkan unpatched (a model's that did not export)."""
    found = [
        o for p, how, o in outcome_rows(entry) if p == "vulkan" and how != "backport"
    ]
    return found[0] if found else None


def impact(record: Dict) -> Optional[str]:
    """The counts the cherry-pick's reason cites, through Vulkan unpatched
    (None if #22309 bites none): those that lower; those it bites, and of
    those the ones the backport lowers through every partitioner #22309 bit;
    those that do not export; the rest."""
    models, names = record["models"], selected(record)
    vulkan = {key: _unpatched_vulkan(entry) for key, entry in models.items()}
    hit = [key for key, said in vulkan.items() if said == BITTEN]
    if not hit:
        return None
    fixed = [
        key
        for key in hit
        if all(
            h.get("backport", {}).get("outcome") == LOWERS
            for h in models[key]["lowerings"].values()
            if h.get("unpatched", {}).get("outcome") == BITTEN
        )
    ]
    unexported = [key for key, said in vulkan.items() if said == DOES_NOT_EXPORT]
    lowers = [key for key, said in vulkan.items() if said == LOWERS]
    other = len(models) - len(hit) - len(unexported) - len(lowers)
    zoos = " and ".join(sorted(record["selection"]))
    done = f"{len(models)}" + (f" of {len(names)}" if len(models) < len(names) else "")
    return (
        f"a {record['made_from']['versions']['executorch']} survey of {done} {zoos}"
        f" models through Vulkan: {len(lowers)} lower, {len(hit)} fail with #22309"
        f" ({len(fixed)} of {len(hit)} lower with the fix), {len(unexported)} do not"
        f" export, {other} fail otherwise or at the survey's limits"
    )


def render(record: Dict) -> str:
    """The counts table, then the bitten models, the drawn models' ``.pte``
    comparison, the XNNPACK runs, then what is left."""
    done, names, limits = record["models"], selected(record), record["limits"]
    rows = [[*key, str(n)] for key, n in sorted(counts(record).items())]
    header = ["zoo", "partitioner", "lowered", "outcome", "models"]
    drawn = [entry for entry in done.values() if entry.get("drawn")]
    same = sum(entry.get("same_pte") is True for entry in drawn)
    runs = [run for entry in done.values() for run in entry.get("run", {}).values()]
    lines = [
        f"{len(done)} of {len(names)} models surveyed. A process's limits:"
        f" {limits['seconds']:g} CPU s ({limits['wall_factor']} times that in"
        f" wall time), {limits['memory_gib']:g} GiB.",
        "",
        text_table(header, rows),
        "",
        textwrap.fill(
            "Bitten unpatched: " + (", ".join(bitten(record)) or "none so far"), 100
        ),
        f"Drawn (seed {record['seed']}) of those Vulkan lowers: {len(drawn)};"
        f" the same .pte with the backport: {same} of {len(drawn)}",
        f"XNNPACK programs run: {len(runs)}, equal to eager"
        f" (rtol = atol = {RTOL:g}): {sum(run.get('equal') is True for run in runs)}",
    ]
    left = [name for name in names if name not in done]
    if left:
        lines.append(f"Not yet surveyed: {len(left)}")
    return "\n".join(lines)
