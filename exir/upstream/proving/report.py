"""A proof as ``prove`` prints it: a table per ref, in 100 columns."""

from typing import Dict

from ...shared.report import text_table

STEP_WIDTH = len("test_pass_infra.py without the fix")  # the longest step


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
        f"under pytest {env['pytest']} (the ref pins"
        f" {'pytest' + env['pytest_pin'] if env.get('pytest_pin') else 'none'})\n"
        + text_table(["step", "result"], rows, [STEP_WIDTH, 100 - STEP_WIDTH - 3])
    )
