"""The measured input to the PR body: the proof of the patch on a tree
(``prove --json``), read from the file that command wrote and checked for
shape; the body quotes it in upstream's words, never naming the command."""

import json
from pathlib import Path
from typing import Dict, List

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
