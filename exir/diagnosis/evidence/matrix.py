"""``python -m exportpass_fix matrix``: every model x every usable
partitioner, unpatched vs backport, through the workers ``check`` uses,
and a third column: unpatched with the constants folded before lowering.

Each pair gets an outcome: ``unblocked`` (failed with #22309's signature,
lowers with the backport), ``unchanged`` (lowers either way: same delegate
count, same ``.pte`` bytes, outputs that match eager where a runtime
exists), ``fails both`` (not #22309: the same backend limit either way) or
``changed`` (anything else the fix changed, which must not happen). The
folded column gets its own outcome (``FOLDING``): where #22309 blocks,
whether folding ``unblocks`` it or ``does not unblock``; elsewhere whether
the folded program ``lowers`` or ``fails``.

``--from RECORD`` renders a committed record of a ``matrix --json`` run
(``docs/records/matrix.json``) without running anything.
"""

import json
from typing import Dict, List, Optional

from ...shared.report import text_table

from ..checking.check import first_failure
from ..checking.columns import Column, run_columns
from ..models.catalog import MODELS

OUTCOMES = ("unblocked", "unchanged", "fails both", "changed")
FOLDING = ("unblocks", "does not unblock", "lowers", "fails")


def folding(unpatched: Dict, folded: Dict) -> str:
    if unpatched["is_22309"]:
        return "unblocks" if folded["lowered"] else "does not unblock"
    return "lowers" if folded["lowered"] else "fails"


def _column_view(column: Column, run: int) -> Dict[str, object]:
    steps = column.steps(run)
    failed = first_failure(column, run, lowering_only=True)
    lowered = steps.get("lower", {})
    pte = steps.get("to_executorch", {})
    ran = steps.get("run", {})
    return {
        "lowered": failed["failed"] is None,
        "error": failed.get("error"),
        "is_22309": bool(failed.get("is_22309")),
        "delegates": lowered.get("delegates"),
        "trigger_delegates": len(lowered.get("triggers") or []),
        "pte_bytes": pte.get("pte_bytes"),
        "pte_sha256": pte.get("pte_sha256"),
        "pte_uuid_blind_digest": pte.get("pte_uuid_blind_digest"),
        "max_abs_error": ran.get("max_abs_error"),
        "seconds": round(sum(float(s.get("seconds", 0)) for s in steps.values()), 2),
    }


def compared_digest(partitioner: str) -> str:
    """Raw bytes, unless the backend writes fresh UUIDs into every .pte."""
    from ..checking.partitioners import PARTITIONERS

    uuids = PARTITIONERS[partitioner].uuids
    return "pte_sha256" if uuids is None else "pte_uuid_blind_digest"


def outcome(unpatched: Dict, backport: Dict, digest: str = "pte_sha256") -> str:
    if not unpatched["lowered"]:
        if unpatched["is_22309"] and backport["lowered"]:
            return "unblocked"
        if not backport["lowered"] and not unpatched["is_22309"]:
            return "fails both"
        return "changed"
    same = all(unpatched[key] == backport[key] for key in ("delegates", digest))
    return "unchanged" if backport["lowered"] and same else "changed"


def build_matrix(models: List[str], partitioners: List[str], say) -> Dict[str, object]:
    pairs = [(m, p) for m in models for p in partitioners]
    job = {"runs": [{"model": f"builtin:{m}", "partitioners": [p]} for m, p in pairs]}
    columns = run_columns(job, say)
    bad = [c.bad_input for c in columns.values() if c.bad_input]
    if bad:
        return {"bad_input": bad, "summary": {}}
    imported = columns["backport"].steps(None).get("import", {})
    rows = []
    for index, (model, partitioner) in enumerate(pairs):
        unpatched = _column_view(columns["unpatched"], index)
        backport = _column_view(columns["backport"], index)
        folded = _column_view(columns["folded"], index)
        rows.append(
            {
                "model": model,
                "partitioner": partitioner,
                "trigger_model": MODELS[model][1],
                "unpatched": unpatched,
                "backport": backport,
                "folded": folded,
                "folding": folding(unpatched, folded),
                "compared": compared_digest(partitioner),
                "outcome": outcome(unpatched, backport, compared_digest(partitioner)),
            }
        )
    counts = {key: sum(1 for r in rows if r["outcome"] == key) for key in OUTCOMES}
    summary = {
        "pairs": len(rows),
        "blocked": sum(1 for r in rows if r["unpatched"]["is_22309"]),
        "unblocked": counts["unblocked"],
        "unchanged": counts["unchanged"],
        "unchanged_uuid_blind": sum(
            1
            for r in rows
            if r["outcome"] == "unchanged" and r["compared"] != "pte_sha256"
        ),
        "fails_both": counts["fails both"],
        "changed": counts["changed"],
        "folding": {
            key: sum(1 for r in rows if r["folding"] == key) for key in FOLDING
        },
    }
    return {
        "executorch": imported.get("executorch"),
        "torch": imported.get("torch"),
        "pairs": rows,
        "summary": summary,
    }


def _lowered_cell(view: Dict) -> str:
    if not view["lowered"]:
        return f"fails: {view['error']} ({view['seconds']:.1f} s)"
    error = view["max_abs_error"]
    numbers = "" if error is None else f", max abs err {error:.1e}"
    return (
        f"{view['delegates']} delegates, {view['pte_bytes']} B{numbers},"
        f" {view['seconds']:.1f} s"
    )


def summary_line(matrix: Dict) -> str:
    s = matrix["summary"]
    return (
        f"{s['pairs']} pairs: {s['blocked']} blocked by #22309 unpatched, of which"
        f" {s['unblocked']} unblocked by the fix; {s['unchanged']} lower either"
        f" way with the same .pte ({s['unchanged'] - s['unchanged_uuid_blind']}"
        f" byte for byte, {s['unchanged_uuid_blind']} compared blind to the"
        " fresh UUIDs CoreML writes);"
        f" {s['fails_both']} fail either way for"
        f" reasons of their own; {s['changed']} changed otherwise by the fix."
        " Folding the constants first, unpatched:"
        + "; ".join(f" {key} {n}" for key, n in s["folding"].items())
    )


def render(matrix: Dict, markdown: bool) -> str:
    header = [
        "model",
        "partitioner",
        "unpatched",
        "with backport",
        "folded, unpatched",
        "#22309",
        "trigger delegates",
        "outcome",
    ]
    rows = [
        [
            r["model"],
            r["partitioner"],
            _lowered_cell(r["unpatched"]),
            _lowered_cell(r["backport"]),
            f"{r['folding']}: {_lowered_cell(r['folded'])}",
            "yes" if r["unpatched"]["is_22309"] else "no",
            str(r["backport"]["trigger_delegates"]),
            r["outcome"],
        ]
        for r in matrix["pairs"]
    ]
    versions = f"ExecuTorch {matrix['executorch']}, torch {matrix['torch']}"
    if "recorded" in matrix:  # a record's run: which command, on which day
        versions += " on {date} by `{command}`".format(**matrix["recorded"])
    if not markdown:
        return f"{versions}\n{text_table(header, rows)}\n\n{summary_line(matrix)}"
    lines = [
        f"Measured on {versions}.",
        "",
    ]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + " --- |" * len(header))
    lines += [
        "| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows
    ]
    return "\n".join(lines + ["", summary_line(matrix) + "."])


def from_record(path: str) -> Dict:
    """The matrix a committed record of ``matrix --json`` holds; ValueError
    saying why for a path that holds none."""
    try:
        with open(path) as file:
            record = json.load(file)
        matrix = json.loads(record["stdout"])
        matrix["recorded"] = {key: record[key] for key in ("command", "date")}
        return {"pairs": matrix["pairs"], "summary": matrix["summary"], **matrix}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path}: not a record of matrix --json ({error})") from None


def usable_partitioners(requested: Optional[List[str]]) -> List[str]:
    from ..checking.partitioners import PARTITIONERS, why_not

    return requested or [n for n in PARTITIONERS if why_not(n) is None]
