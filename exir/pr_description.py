"""The patch's commit message: subject, the PR body from ``pr_description.md``
and its trailers, with the evidence of ``matrix --json`` when given."""

import json
import re
import textwrap
from pathlib import Path
from string import Template
from typing import Dict, List, Optional, Sequence

from .fix_source import PACKAGE_DIR

SUBJECT = "Reuse the graph's fake mode when every ExportPass input is a constant"
LABEL = "Release notes: exir"
TEMPLATE = PACKAGE_DIR / "pr_description.md"
IDENTITY = re.compile(r"[^<>\n]+ <[^<>\s]+@[^<>\s]+>")

NO_EVIDENCE = """\
Per-backend evidence: `python -m exportpass_fix matrix --json > matrix.json`
(executorch-exportpass-fix) lowers trigger-carrying models through every
partitioner the installed wheel ships, without and with this change;
`python -m exportpass_fix patch --evidence matrix.json` puts its table here.
"""


class EvidenceError(ValueError):
    """The evidence file is missing, not JSON, or not a matrix."""


def valid_identity(identity: str) -> bool:
    return IDENTITY.fullmatch(identity) is not None


def load_evidence(path: Path) -> Dict[str, object]:
    try:
        matrix = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise EvidenceError(f"{path}: {error.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise EvidenceError(f"{path} is not JSON: {error}") from None
    if not isinstance(matrix, dict) or not isinstance(matrix.get("pairs"), list):
        raise EvidenceError(
            f"{path} is not the output of `python -m exportpass_fix matrix --json`"
        )
    return matrix


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


# Outcome keys of ``matrix --json`` pairs, with their column titles.
OUTCOMES = {
    "unblocked": "failed with #22309, lower with the fix",
    "unchanged": "lower either way, same `.pte`",
    "fails both": "fail either way, not #22309",
    "changed": "changed otherwise by the fix",
}


def evidence_section(matrix: Optional[Dict[str, object]]) -> str:
    if matrix is None:
        return NO_EVIDENCE
    pairs = matrix["pairs"]
    assert isinstance(pairs, list)
    summary = matrix.get("summary", {})
    assert isinstance(summary, dict)
    intro = textwrap.fill(
        f"Measured on ExecuTorch {matrix.get('executorch')} (torch"
        f" {matrix.get('torch')}): each model lowered through each partitioner,"
        " without and with this change (`python -m exportpass_fix matrix`,"
        " executorch-exportpass-fix).",
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


def commit_message(
    evidence: Optional[Dict[str, object]], co_authors: Sequence[str]
) -> str:
    """The body that follows the Subject: line, trailers included."""
    body = Template(TEMPLATE.read_text(encoding="utf-8")).substitute(
        evidence=evidence_section(evidence)
    )
    trailers = "".join(f"Co-authored-by: {who}\n" for who in co_authors)
    return body.rstrip("\n") + "\n" + ("\n" + trailers if trailers else "")
