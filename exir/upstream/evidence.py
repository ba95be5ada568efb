"""Measured inputs to the PR body: the proof of the patch on a tree
(``prove --json``) and the per-partitioner table (``matrix --json``). Each
is read from the file its command wrote and checked for shape; the body
quotes them in upstream's words, never naming the commands."""

import json
import textwrap
from pathlib import Path
from typing import Dict, List, Optional

# Outcome keys of ``matrix --json`` pairs, with their column titles.
OUTCOMES = {
    "unblocked": "failed with #22309, lower with the fix",
    "unchanged": "lower either way, same `.pte`",
    "fails both": "fail either way, not #22309",
    "changed": "changed otherwise by the fix",
}
PROOF_KEYS = ("ref", "commit", "environment", "patch_sha256", "steps", "ok")


class EvidenceError(ValueError):
    """An evidence or proof file is missing, not JSON, or of another shape."""


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise EvidenceError(f"{path}: {error.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise EvidenceError(f"{path} is not JSON: {error}") from None


def _load_table(path: Path, key: str, command: str) -> Dict[str, object]:
    """A JSON object whose ``key`` is a list, as ``command --json`` writes."""
    table = _read_json(path)
    if not isinstance(table, dict) or not isinstance(table.get(key), list):
        raise EvidenceError(
            f"{path} is not the output of `python -m exportpass_fix {command} --json`"
        )
    return table


def load_evidence(path: Path) -> Dict[str, object]:
    return _load_table(path, "pairs", "matrix")


def load_proofs(path: Path) -> List[Dict[str, object]]:
    proofs = _read_json(path)
    if not isinstance(proofs, list) or not all(
        isinstance(p, dict) and all(key in p for key in PROOF_KEYS) for p in proofs
    ):
        raise EvidenceError(
            f"{path} is not the output of `python -m exportpass_fix prove --json`"
        )
    return proofs


def proof_of(proofs: List[Dict[str, object]], digest: str, where: str) -> Dict:
    """The passing proof whose patch is this one, or refuse."""
    matching = [p for p in proofs if p["patch_sha256"] == digest]
    if not matching:
        raise EvidenceError(
            f"{where} proves another patch (none of its refs"
            f" {', '.join(str(p['ref']) for p in proofs) or '(none)'} yields the"
            " patch made for this tree); run prove on this tree's commit"
        )
    passing = [p for p in matching if p["ok"]]
    if not passing:
        raise EvidenceError(f"{where}: the proof of this patch failed a step")
    return passing[0]


def load_mutants(path: Path) -> Dict[str, object]:
    return _load_table(path, "variants", "mutants")


def kill_summary(table: Dict[str, object]) -> str:
    """The kill table in brief, for the tests-only body."""
    rows = table["variants"]
    assert isinstance(rows, list)
    wrong = [r for r in rows if not r["correct"]]
    right = [r for r in rows if r["correct"]]
    killed = [r for r in wrong if r["killed_by_upstream_class"]]
    accepted = [r for r in right if not r["killed_by_upstream_class"]]
    lines = [
        textwrap.fill(
            f"They tell a right fix from plausible wrong ones. With `call`"
            f" rewritten each of {len(rows)} ways on ExecuTorch"
            f" {table.get('executorch')}, `test_pass_infra.py` fails for"
            f" {len(killed)} of the {len(wrong)} wrong rewrites and passes for"
            f" {len(accepted)} of the {len(right)} right ones"
            f" ({', '.join(str(r['name']) for r in right)}):",
            width=76,
        )
    ]
    for row in wrong:
        tests = [str(t) for t in row["killed_by_upstream_class"] or []]
        shown = ", ".join(f"`{t}`" for t in tests[:2])
        more = f" and {len(tests) - 2} more" if len(tests) > 2 else ""
        lines.append(
            textwrap.fill(
                f"- {row['name']} ({row['reason']}): {shown or 'nothing'}{more}"
                + (" fail" if tests else " fails"),
                width=76,
                subsequent_indent="  ",
            )
        )
    return "\n".join(lines) + "\n"


def _partitioner_rows(pairs: List[Dict[str, object]]) -> List[str]:
    rows: Dict[str, Dict[str, List[str]]] = {}
    for pair in pairs:
        outcome = rows.setdefault(str(pair["partitioner"]), {})
        outcome.setdefault(str(pair["outcome"]), []).append(str(pair["model"]))
    lines = ["| partitioner | " + " | ".join(OUTCOMES.values()) + " |"]
    lines.append("|" + " --- |" * (len(OUTCOMES) + 1))
    for name, outcomes in rows.items():
        cells = [", ".join(outcomes.get(key, [])) or "-" for key in OUTCOMES]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def evidence_section(matrix: Optional[Dict[str, object]]) -> str:
    if matrix is None:
        return ""
    pairs = matrix["pairs"]
    assert isinstance(pairs, list)
    summary = matrix.get("summary", {})
    assert isinstance(summary, dict)
    models = list(dict.fromkeys(str(pair["model"]) for pair in pairs))
    intro = textwrap.fill(
        f"Per backend, on ExecuTorch {matrix.get('executorch')} (torch"
        f" {matrix.get('torch')}): small models built in code with random"
        f" weights ({', '.join(models)}), each lowered through each partitioner"
        " without and with this change:",
        width=76,
    )
    unchanged = int(summary.get("unchanged", 0))
    blind = int(summary.get("unchanged_uuid_blind", 0))
    totals = textwrap.fill(
        f"{summary.get('blocked', 0)} pairs failed with #22309, of which"
        f" {summary.get('unblocked', 0)} lower with the fix;"
        f" {unchanged} lower either way with the same `.pte` ({unchanged - blind}"
        f" byte for byte; {blind}, CoreML's, compared blind to the fresh UUIDs it"
        f" writes into every program); {summary.get('changed', 0)} changed in"
        " any other way.",
        width=76,
    )
    lines = [intro, "", *_partitioner_rows(pairs), "", totals]
    return "\n".join(lines) + "\n"
