"""``prove`` shows progress while its minutes of pytest run: a line as each
pytest run of the ``exir/tests`` differential starts and as it ends, with
what it counted (the command puts the seconds so far before each line)."""

from pathlib import Path
from typing import List

from exportpass_fix.upstream.proving.differential import run_differential


def _tree(root: Path, test: str) -> Path:
    tests = root / "executorch" / "exir" / "tests"
    tests.mkdir(parents=True)
    (tests / "test_small.py").write_text(test)
    return root


def test_the_differential_says_a_line_as_each_pytest_run_starts_and_ends(
    tmp_path: Path,
) -> None:
    passing = "def test_one():\n    pass\n"
    unpatched = _tree(tmp_path / "unpatched", passing)
    patched = _tree(tmp_path / "patched", passing + "\n\ndef test_two():\n    pass\n")
    said: List[str] = []

    differential = run_differential(unpatched, patched, [], "", said.append, "[HEAD] ")

    assert len(differential.patched.passed) == 2
    assert sorted(said) == [
        "[HEAD] pytest exir/tests in patched: 2 passed, 0 failed/errored",
        "[HEAD] pytest exir/tests in patched: started",
        "[HEAD] pytest exir/tests in unpatched: 1 passed, 0 failed/errored",
        "[HEAD] pytest exir/tests in unpatched: started",
    ]
    assert said.index("[HEAD] pytest exir/tests in patched: started") < said.index(
        "[HEAD] pytest exir/tests in patched: 2 passed, 0 failed/errored"
    )
