"""``python -m exportpass_fix check``: the user's main job, run for real."""

import re
import subprocess
import sys


def test_check_shows_the_failure_turn_into_a_pte() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "check"],
        capture_output=True,
        text=True,
        timeout=600,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    rows = {
        line.split("|")[0].strip(): [cell.strip() for cell in line.split("|")[1:]]
        for line in done.stdout.splitlines()
        if line.count("|") == 2
    }
    assert rows["step"] == ["unpatched", "with backport"]
    assert rows["issue repro"] == ["FAIL: 2 fake modes", "ok: 1 fake mode"]
    unpatched_lowering, fixed_lowering = rows["Vulkan lowering"]
    assert unpatched_lowering.startswith("FAIL: AssertionError: fake mode")
    assert fixed_lowering == "ok: lowered"
    assert rows[".pte"][0] == "FAIL: not reached"
    assert re.fullmatch(r"ok: \d{4,} bytes", rows[".pte"][1])
    # A progress line per step and column came before the table.
    assert done.stdout.count("[with backport]") >= 5
    assert "the backport fixes #22309 here" in done.stdout
