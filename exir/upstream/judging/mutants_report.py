"""The kill table of ``mutants``, as text (``--json`` has every name)."""

import textwrap
from typing import Dict, List


def _names(tests: object) -> str:
    """How many tests, and the first by name."""
    if tests is None:
        return "(not run)"
    names = [str(t).rsplit("::", 1)[-1] for t in tests]  # type: ignore[attr-defined]
    if not names:
        return "-"
    more = f", +{len(names) - 1}" if len(names) > 1 else ""
    return f"{len(names)}: {names[0]}{more}"


def witness_cell(witness: object) -> str:
    if not isinstance(witness, dict):
        return "none: acceptable"
    return (
        f"{witness['name']}: {witness['variant']}"
        f" (unfixed: {witness['unfixed']}; fix: {witness['fix']})"
    )


def tally(rows: List[Dict[str, object]]) -> str:
    wrong = [r for r in rows if r["wrong"]]
    accepted = [r for r in rows if not r["wrong"]]
    return (
        f"wrong variants (with a witness) killed by test_pass_infra.py:"
        f" {sum(bool(r['killed_by_upstream_class']) for r in wrong)} of"
        f" {len(wrong)}; acceptable variants (no witness) passing it:"
        f" {sum(r['killed_by_upstream_class'] == [] for r in accepted)} of"
        f" {len(accepted)}"
    )


def render(table: Dict[str, object]) -> str:
    """A block per variant (verdict, witness, the tests that kill it), in a
    terminal's 100 columns; ``--json`` has every name."""
    rows = table["variants"]
    assert isinstance(rows, list)
    lines = [f"ExecuTorch {table['executorch']}"]
    for r in rows:
        lines.append(f"{r['name']}: {r['verdict']}")
        for label, text in (
            ("witness", witness_cell(r["witness"])),
            ("killed by test_pass_infra.py", _names(r["killed_by_upstream_class"])),
        ):
            lines.append(
                textwrap.fill(
                    f"{label}: {text}",
                    100,
                    initial_indent="  ",
                    subsequent_indent="    ",
                )
            )
    lines.append(textwrap.fill(tally(rows), 100))
    broken = table.get("witnesses_failing_the_fix")
    if broken:
        lines.append(f"PROBLEM: witnesses the fix itself fails: {', '.join(broken)}")
    return "\n".join(lines)
