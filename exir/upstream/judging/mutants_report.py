"""``mutants``' output: the kill table as text (``--json`` has every name)
or as docs/tests.md shows it (``--markdown``), of a run or of a committed
record of one (``--from``, which imports no ExecuTorch)."""

import json
import textwrap
from pathlib import Path
from typing import Dict, List, Optional

from ...shared.report import EXIT_CHECK_FAILED, EXIT_OK, progress, refuse


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


def _tests(names: object) -> str:
    if names is None:
        return "(not run)"
    return ", ".join(f"`{name}`" for name in names) or "-"  # type: ignore[attr-defined]


def markdown(table: Dict[str, object]) -> str:
    """The kill table as docs/tests.md shows it: each variant's witness and
    the tests that fail on it; then each test and the wrong variants it fails
    on, "(only this)" where no other test does."""
    rows = table["variants"]
    assert isinstance(rows, list)
    lines = [
        f"On ExecuTorch {table['executorch']}: {tally(rows)}.",
        "",
        "| variant | verdict | witness: what it shows | tests failing on it |",
        "| --- | --- | --- | --- |",
    ]
    for r in rows:
        tests = _tests(r["killed_by_upstream_class"])
        cells = [r["name"], r["verdict"], witness_cell(r["witness"]), tests]
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    killers: Dict[str, List[str]] = {}
    for r in rows:
        killed_by = r["killed_by_upstream_class"] or []
        only = " (only this)" if len(killed_by) == 1 else ""
        for test in killed_by if r["wrong"] else []:
            killers.setdefault(test, []).append(f"{r['name']}{only}")
    lines += ["", "| test | the wrong variants it fails on |", "| --- | --- |"]
    for test, names in sorted(killers.items()):
        lines.append(f"| `{test}` | {'; '.join(names)} |")
    return "\n".join(lines)


def read_record(path: Path) -> Dict[str, object]:
    """The table of a record of ``mutants --json`` (its ``stdout``), or of
    that JSON itself; ValueError saying why not."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        table = json.loads(data["stdout"]) if "stdout" in data else data
    except (OSError, ValueError, TypeError) as error:
        raise ValueError(f"{path}: not a record of mutants --json ({error})")
    if not isinstance(table, dict) or not isinstance(table.get("variants"), list):
        raise ValueError(f"{path}: not a record of mutants --json (no variants)")
    return table


def judged_right(table: Dict[str, object]) -> bool:
    """Every wrong variant killed, every other accepted, every witness
    holding for the fix: what exit status 0 of ``mutants`` means."""
    rows = table["variants"]
    assert isinstance(rows, list)
    ok = all(str(r["verdict"]).startswith("ok") for r in rows)
    return ok and not table["witnesses_failing_the_fix"]


def command(record: Optional[str], as_json: bool, as_markdown: bool) -> int:
    """``mutants``: the table printed, and the exit status it means."""
    try:
        table = read_record(Path(record)) if record else None
    except ValueError as error:
        return refuse("mutants", error)
    if table is None:
        from .mutants import mutants

        table = mutants(progress)
    shown = markdown(table) if as_markdown else render(table)
    print(json.dumps(table) if as_json else shown)
    return EXIT_OK if judged_right(table) else EXIT_CHECK_FAILED
