"""The survey's record as docs show it: the generated page docs/survey.md is
``survey_page.py --markdown`` of the committed record, a row per model
surveyed; the counts docs/check.md shows are the record's, each zoo's share
of the selection said; a partial record says what is left."""

import copy
import subprocess
import sys
from collections import Counter
from pathlib import Path

import docs_check

import pytest
import survey_page as page
from exportpass_fix.survey import outcomes, record as records

HERE = Path(__file__).resolve().parent
RECORD = HERE / "survey.json"
PAGE = HERE.parent.parent / "docs" / "survey.md"
MARKER = "python test/survey/survey_page.py --markdown test/survey/survey.json"


@pytest.fixture(scope="module")
def record() -> dict:
    found = records.load(RECORD)
    assert found is not None, f"{RECORD} is missing"
    return found


def test_the_generated_page_is_the_records_markdown(record: dict) -> None:
    (block,), problems = docs_check.parse("survey.md", PAGE.read_text())

    assert problems == [] and block.source == MARKER
    assert block.text == page.markdown(
        record
    ), "docs/survey.md is not the record's: python test/record_output.py --update"


def _surveyed_rows(text: str) -> str:
    """The section of the page's markdown that has a row per model."""
    return text.split("## Every model surveyed")[1].split("\n## ")[0]


def test_the_page_has_a_row_per_model_surveyed_and_names_the_rest(
    record: dict,
) -> None:
    text = page.markdown(record)
    rows = [line.split(" | ")[0][2:] for line in _surveyed_rows(text).splitlines()]
    left = text.split("## Not yet surveyed\n\n")[1].strip()
    left = [] if left == "None." else left.split(", ")

    assert sorted(k for k in rows if k in record["models"]) == sorted(record["models"])
    assert sorted(left + list(record["models"])) == sorted(records.selected(record))


def test_the_summary_is_the_records_counts_and_coverage(record: dict) -> None:
    shown = page.summary(record)
    said = Counter()
    for line in shown.splitlines()[3:]:
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) != 4:
            continue
        for how, cell in zip(page.HOWS, cells[2:]):
            for part in filter(None, cell.split(", ")):
                if part != "not run":
                    n, short = part.split(" ", 1)
                    said[(cells[0], cells[1], how, short)] += int(n)
    counted = Counter()
    for key, entry in record["models"].items():
        for partitioner, how, outcome in outcomes.outcome_rows(entry):
            counted[(key.split("/")[0], partitioner, how, page.SHORT[outcome])] += 1

    assert said == counted
    n, total = len(record["models"]), len(records.selected(record))
    assert shown.startswith(f"{n} of {total} models surveyed (timm: ")


def test_a_grown_record_renders_its_new_counts(record: dict) -> None:
    grown = copy.deepcopy(record)
    key = records.selected(record)[0]
    del grown["models"][key]  # not surveyed yet; then surveyed, and bitten
    assert key not in _surveyed_rows(page.markdown(grown))
    assert page.summary(grown).startswith(f"{len(record['models']) - 1} of ")
    grown["models"][key] = {
        "export": {"outcome": "exports"},
        "lowerings": {"vulkan": {"unpatched": {"outcome": outcomes.BITTEN}}},
    }

    assert key in _surveyed_rows(page.markdown(grown))
    assert key in records.bitten(grown)
    assert page.summary(grown).startswith(f"{len(record['models'])} of ")


@pytest.mark.parametrize(
    "args, says",
    [
        (["--html", "survey.json"], "usage: --summary|--markdown RECORD"),
        (["--summary", "missing.json"], "no such record: missing.json"),
        (["--markdown", str(PAGE)], "cannot be read as JSON"),
    ],
)
def test_bad_input_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list, says: str
) -> None:
    monkeypatch.chdir(tmp_path)
    done = subprocess.run(
        [sys.executable, str(HERE / "survey_page.py"), *args],
        capture_output=True,
        text=True,
    )

    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []
