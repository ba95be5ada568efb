"""``python -m exportpass_fix prove``: the command around ``prove``.
Progress lines, then a table per ref (or one JSON list); exit status 0
proven, 1 a step failed; ``ProveRefused`` for bad input."""

import dataclasses
import json
import sys
from pathlib import Path
from typing import Dict, List

from ..shared.report import text_table
from .proving.prove import prove


STEP_WIDTH = len("test_pass_infra.py without the fix")  # the longest step


def run_prove(checkout: Path, refs: List[str], as_json: bool) -> int:
    def say(line: str) -> None:
        print(line, file=sys.stderr if as_json else sys.stdout, flush=True)

    proofs = [dataclasses.asdict(p) | {"ok": p.ok} for p in prove(checkout, refs, say)]
    print(json.dumps(proofs) if as_json else "\n\n".join(map(render, proofs)))
    return 0 if all(p["ok"] for p in proofs) else 1


def render(proof: Dict[str, object]) -> str:
    """One ref's proof (as ``--json`` has it) as a table."""
    env = proof["environment"]
    assert isinstance(env, dict) and isinstance(proof["steps"], list)
    rows = [
        [s["name"], f"{'ok' if s['ok'] else 'FAIL'}: {s['detail']}"]
        for s in proof["steps"]
    ]
    return (
        f"{proof['ref']} ({str(proof['commit'])[:12]}) over the installed"
        f" executorch {env['executorch']}, torch {env['torch']}\n"
        + text_table(["step", "result"], rows, [STEP_WIDTH, 100 - STEP_WIDTH - 3])
    )
