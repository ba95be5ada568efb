"""The kill table docs/tests.md shows is what ``mutants --markdown`` renders
from the committed record of a ``mutants --json`` run (its tally and its
table per test; test/kill_table.py leaves out the row per variant);
rendering a record imports no ExecuTorch, and a file that is not one is
refused."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from exportpass_fix.upstream.judging.mutants_report import markdown, read_record

pytestmark = pytest.mark.once

REPO = Path(__file__).resolve().parents[3]
RECORD = "docs/records/mutants.json"
SOURCE = f"python test/kill_table.py {RECORD}"
END = "<!-- end of output -->"


def _mutants(*args: str) -> subprocess.CompletedProcess:
    # As a user runs it, from the repository's root, and whether it imported
    # ExecuTorch.
    code = (
        "import sys; from exportpass_fix.__main__ import main; status = main();"
        " print('executorch' in sys.modules, file=sys.stderr); sys.exit(status)"
    )
    return subprocess.run(
        [sys.executable, "-c", code, "mutants", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
    )


def _shown(page: str, source: str) -> str:
    """The lines under ``source``'s marker, fences excluded."""
    start = f"<!-- output of: {source} -->"
    assert page.count(start) == 1, start
    block = page.split(start, 1)[1].split(END, 1)[0].strip("\n").splitlines()
    return "\n".join(line for line in block if not line.startswith("```")) + "\n"


def test_tests_md_shows_the_rendered_record() -> None:
    page = (REPO / "docs" / "tests.md").read_text(encoding="utf-8")
    done = _mutants("--markdown", "--from", RECORD)

    tally, _every_variant, per_test = done.stdout.rstrip("\n").split("\n\n")
    shown = _shown(page, SOURCE).rstrip("\n")

    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "False"  # no ExecuTorch imported
    assert shown.startswith(tally + "\n") and shown.endswith("\n" + per_test)


def test_the_record_is_of_a_mutants_json_run_that_judged_right() -> None:
    record = json.loads((REPO / RECORD).read_text(encoding="utf-8"))
    table = read_record(REPO / RECORD)

    assert record["command"] == "exportpass-fix mutants --json"
    assert record["exit_status"] == 0
    assert record["versions"]["executorch"] == table["executorch"]
    assert all(str(row["verdict"]).startswith("ok") for row in table["variants"])


def test_markdown_marks_the_only_test_failing_on_a_variant() -> None:
    def row(name: str, killed_by: list) -> dict:
        witness = {"name": "w", "variant": "2 modes", "unfixed": "2 modes"}
        return {
            "name": name,
            "verdict": "ok: killed" if killed_by else "ok: accepted",
            "witness": {**witness, "fix": "one mode"} if killed_by else None,
            "wrong": bool(killed_by),
            "killed_by_upstream_class": killed_by,
        }

    table = {
        "executorch": "9.9.9",
        "variants": [
            row("a", ["test_x"]),
            row("b", ["test_x", "test_y"]),
            row("c", []),
        ],
    }
    shown = markdown(table).splitlines()

    assert "| `test_x` | a (only this); b |" in shown
    assert "| `test_y` | b |" in shown
    assert "| c | ok: accepted | none: acceptable | - |" in shown


def test_a_file_that_is_not_a_record_is_refused(tmp_path: Path) -> None:
    for text in ("not json", json.dumps({"stdout": "{}"}), json.dumps([1])):
        (tmp_path / "bad.json").write_text(text)
        done = _mutants("--from", str(tmp_path / "bad.json"))

        assert done.returncode == 2, done
        assert done.stdout == ""
        assert len(done.stderr.splitlines()) == 2, done.stderr  # and the probe
        assert "not a record of mutants --json" in done.stderr
