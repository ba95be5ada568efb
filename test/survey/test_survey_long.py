"""The survey run again on a few models of each zoo gives the outcomes the
committed record holds: two models of each zoo that #22309 bites where the
record has them, and two that lower. Minutes; run with --long."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from exportpass_fix.survey import outcomes, record as records

pytestmark = pytest.mark.survey

RECORD = Path(__file__).resolve().parent / "survey.json"


def _picked(record: dict, zoo: str) -> list:
    """Up to two bitten and two lowering models of ``zoo``, from the record."""
    entries = {k: e for k, e in record["models"].items() if k.startswith(f"{zoo}/")}
    bitten = [k for k in records.bitten(record) if k in entries][:2]
    lowers = [
        key
        for key, entry in sorted(entries.items())
        if ("vulkan", "unpatched", outcomes.LOWERS) in outcomes.outcome_rows(entry)
    ]
    return bitten + lowers[:2]


def test_a_few_models_of_each_zoo_give_the_records_outcomes(tmp_path: Path) -> None:
    pytest.importorskip(
        "torchvision",
        reason="torchvision cannot be imported here: its wheels link the CUDA"
        " build of torch (the survey's environment is Python 3.10 with it)",
    )
    pytest.importorskip("timm", reason="timm is not installed (it needs torchvision)")
    committed = json.loads(RECORD.read_text())
    keys = _picked(committed, "timm") + _picked(committed, "torchvision")
    assert keys, "the record holds no model that lowered or was bitten yet"
    path = tmp_path / "survey.json"
    # The selection as committed, so that only the picked models are run.
    begun = {k: v for k, v in committed.items() if k != "models"}
    path.write_text(json.dumps({**begun, "models": {}}))
    only = [arg for key in keys for arg in ("--only", key)]
    done = subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "survey", "--record", str(path)]
        + only,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    again = json.loads(path.read_text())["models"]
    assert sorted(again) == sorted(keys)
    for key in keys:
        assert outcomes.outcome_rows(again[key]) == outcomes.outcome_rows(
            committed["models"][key]
        ), key
