"""The README and docs/: links resolve, every command and flag shown exists
in ``--help``, every command of ``--help`` is shown, every pasted output is
under a marker and equals its source's, every record is made from today's
files (and the quick ones print the same today), docs/tests.md names every
test file and module, and the docs stay short, in sentences of at most 40
words. The checker's own tests plant each kind of mistake."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import docs_check

import pytest
import record_output
import record_sources
from conftest import git, git_repo

pytestmark = pytest.mark.once

MAX_README_LINES = 150
MAX_DOCS_LINES = 1250  # README.md and docs/*.md together, but GENERATED
# Pages rendered whole from a record, a row per model, kept out of the line
# budget: their marked block is held to the record like any other, and
# the few lines outside it are counted.
GENERATED = ("survey.md",)
MAX_UNMARKED_GENERATED_LINES = 6


def _texts() -> dict:
    return {page.name: page.read_text(encoding="utf-8") for page in docs_check.pages()}


def test_every_relative_link_resolves() -> None:
    problems = [
        problem
        for page in docs_check.pages()
        for problem in docs_check.bad_links(page, page.read_text(encoding="utf-8"))
    ]
    assert problems == []


def test_every_command_and_flag_shown_exists() -> None:
    problems = [
        problem
        for name, text in _texts().items()
        for problem in docs_check.bad_commands(name, text)
    ]
    assert problems == []


def test_every_command_of_help_is_shown_in_the_docs() -> None:
    assert len(docs_check.commands()) >= 7  # test_public_api.py names them
    assert docs_check.unshown_commands(_texts()) == []


def test_every_pasted_output_is_marked_and_is_what_its_source_gives() -> None:
    problems = [
        problem
        for page in docs_check.pages()
        for problem in docs_check.marker_problems(
            str(page.relative_to(docs_check.REPO)), page.read_text(encoding="utf-8")
        )
    ]
    assert problems == []


def test_every_record_is_whole_and_read_by_a_marker_or_a_shown_record() -> None:
    sources = " ".join(
        block.source
        for page in docs_check.pages()
        for block in docs_check.parse(page.name, page.read_text(encoding="utf-8"))[0]
    )
    records = docs_check.records()

    shown = [p for p in record_sources.SOURCES if p in sources]
    inputs = {name for p in shown for name in record_sources.SOURCES[p].files}

    assert records, "docs/records holds at least the partitioners record"
    for record in records:
        path = str(record.relative_to(docs_check.REPO))
        record_output.load(path)  # raises Refused, saying why, if not whole
        assert path in sources or path in inputs, f"{path}: no marker reads it"


def _record(path: str, root: Path = docs_check.REPO) -> dict:
    if path == record_output.TABLE or record_sources.SOURCES[path].own_form:
        return json.loads((root / path).read_text(encoding="utf-8"))
    return record_output.load(path, root)


def test_every_record_is_made_from_todays_files() -> None:
    problems = [
        record_sources.stale(path, _record(path)) for path in record_sources.SOURCES
    ]
    made = {str(p.relative_to(docs_check.REPO)) for p in docs_check.records()}

    assert sorted(made - set(record_sources.SOURCES)) == []
    stale = "\n".join(problem for problem in problems if problem)
    assert not stale, f"stale records:\n{stale}"


def _skip_unless_made_over_the_installed_release(path: str) -> None:
    release = record_sources.SOURCES[path].release
    if release != record_output.versions()["executorch"]:
        pytest.skip(f"{path} is made over ExecuTorch {release}")


@pytest.mark.parametrize(
    "path", [path for path, s in record_sources.SOURCES.items() if s.live]
)
def test_a_record_made_in_seconds_is_what_its_command_prints_today(path: str) -> None:
    record = _record(path)
    _skip_unless_made_over_the_installed_release(path)

    done = record_output.run(record["command"])

    remake = record_sources.remake(path, record["command"])
    assert (done.stdout, done.returncode) == (
        record["stdout"],
        record["exit_status"],
    ), f"{path} is not what its command prints today; make it again: {remake}"


@pytest.mark.parametrize(
    "path", [path for path, s in record_sources.SOURCES.items() if s.tree]
)
def test_a_body_made_on_a_tree_is_what_patch_writes_today(
    path: str, tmp_path: Path
) -> None:
    checkout = os.environ.get("EXPORTPASS_FIX_ET_CHECKOUT")
    if not checkout:
        pytest.skip("EXPORTPASS_FIX_ET_CHECKOUT names no ExecuTorch checkout")
    record = _record(path)
    _skip_unless_made_over_the_installed_release(path)
    tree = record_sources.tree_of(
        checkout, record_sources.SOURCES[path].tree, tmp_path / "et"
    )

    done = record_output.run(record["command"].replace("ET_TREE", str(tree)))

    remake = record_sources.remake(path, record["command"])
    assert (done.stdout, done.returncode) == (
        record["stdout"],
        record["exit_status"],
    ), f"{path} is not what patch writes today; make it again: {remake}"


def test_the_checker_finds_a_record_whose_files_changed(tmp_path: Path) -> None:
    path = "docs/records/partitioners.json"
    scope = record_sources.files_of(record_sources.SOURCES[path].files)
    for name in scope:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes((docs_check.REPO / name).read_bytes())
    record = {
        "command": "exportpass-fix partitioners",
        "versions": {"executorch": record_sources.RELEASE},
        "made_from": record_sources.made_from(path, tmp_path),
    }
    fresh = record_sources.stale(path, record, tmp_path)
    with open(tmp_path / scope[0], "a") as changed:
        changed.write("# a reason reworded\n")
    (tmp_path / scope[1]).unlink()
    older = {**record, "versions": {"executorch": "1.4.1"}}

    assert fresh is None
    assert record_sources.stale(path, record, tmp_path) == (
        f"{path} is stale: {scope[0]}, {scope[1]} changed since it was made;"
        " make it again: python test/record_output.py"
        f" {path} -- exportpass-fix partitioners (over ExecuTorch"
        f" {record_sources.RELEASE})"
    )
    assert "made over ExecuTorch 1.4.1, not" in record_sources.stale(
        path, {**older, "made_from": record_sources.made_from(path, tmp_path)}, tmp_path
    )
    assert "does not say what it is made from" in record_sources.stale(
        "docs/records/new.json", record
    )


def test_a_timing_record_made_from_other_files_is_stale() -> None:
    path = "docs/records/bench_export_pass_apply.json"
    record = _record(path)
    timed = record_sources.files_of(record_sources.SOURCES[path].files)
    files = record["made_from"]["files"]
    other_code = {**record, "made_from": {"files": {**files, timed[0]: "0" * 16}}}
    other_release = {**record, "versions": {"executorch": "1.4.1"}}
    script = record_sources.SOURCES[path].bench

    assert record_sources.stale(path, record) is None
    assert f"{timed[0]} changed since it was made" in record_sources.stale(
        path, other_code
    )
    assert "made over ExecuTorch 1.4.1" in record_sources.stale(path, other_release)
    for not_it in (
        {**record, "command": "python test/diagnosis/checking/bench_check.py 3"},
        {**record, "exit_status": 1},
    ):
        assert record_sources.stale(path, not_it).startswith(
            f"{path} is not the output of python {script} run to its end;"
        )


def test_digests_of_files_a_scope_no_longer_names_are_not_compared() -> None:
    path = "docs/records/partitioners.json"
    record = {
        "command": "exportpass-fix partitioners",
        "versions": {"executorch": record_sources.RELEASE},
        "made_from": record_sources.made_from(path),
    }
    files = record["made_from"]["files"]
    dropped = {"files": {**files, "exir/diagnosis/checking/text.py": "0" * 16}}
    gone = {"files": {**files, "exir/diagnosis/checking/partitioners.py": "0" * 16}}

    assert record_sources.stale(path, {**record, "made_from": dropped}) is None
    assert "partitioners.py changed" in record_sources.stale(
        path, {**record, "made_from": gone}
    )


def test_a_record_without_made_from_is_stamped_from_its_commit(tmp_path: Path) -> None:
    path = "docs/records/partitioners.json"
    scope = record_sources.files_of(record_sources.SOURCES[path].files)
    texts = {name: (docs_check.REPO / name).read_text() for name in scope}
    record = {"command": "exportpass-fix partitioners", "stdout": "x\n"}
    git_repo(tmp_path, {**texts, path: json.dumps(record)})
    (tmp_path / scope[0]).write_text(texts[scope[0]] + "# changed later\n")
    assert git(tmp_path, "commit", "-qam", "later").returncode == 0

    made = record_sources.made_from_its_commit(path, tmp_path)

    assert made == record_sources.made_from(path, docs_check.REPO)
    stamped = {**record, "made_from": made, "versions": {"executorch": "1.5.1"}}
    assert f"{scope[0]} changed since it was made" in record_sources.stale(
        path, stamped, tmp_path
    )


def test_every_test_file_is_described_in_tests_md() -> None:
    described = (docs_check.REPO / "docs" / "tests.md").read_text(encoding="utf-8")
    files = sorted((docs_check.REPO / "test").rglob("test_*.py"))

    assert len(files) >= 20
    assert [
        f.name for f in files if not re.search(rf"`([\w/]+/)?{f.name}`", described)
    ] == []


def test_every_module_of_the_package_is_named_in_where_things_are() -> None:
    tests_md = (docs_check.REPO / "docs" / "tests.md").read_text(encoding="utf-8")
    where = tests_md.split("## Where things are", 1)[1].split("\n## ", 1)[0]
    modules = [
        path
        for path in sorted((docs_check.REPO / "exir").rglob("*.py"))
        if path.name != "__init__.py"
    ]

    assert len(modules) >= 40
    unnamed = [
        str(path.relative_to(docs_check.REPO))
        for path in modules
        if f"`{path.stem}`" not in where and f"/{path.name}`" not in where
    ]
    assert unnamed == []


def test_the_docs_are_short_and_the_readme_leads_to_every_docs_page() -> None:
    lines = {p.name: len(p.read_text().splitlines()) for p in docs_check.pages()}
    assert lines["README.md"] <= MAX_README_LINES
    budgeted = {name: n for name, n in lines.items() if name not in GENERATED}
    assert sum(budgeted.values()) <= MAX_DOCS_LINES, budgeted
    text = (docs_check.REPO / "README.md").read_text(encoding="utf-8")
    for page in sorted((docs_check.REPO / "docs").glob("*.md")):
        assert f"(docs/{page.name})" in text, page.name


@pytest.mark.parametrize("name", GENERATED)
def test_a_generated_page_is_one_marked_block_and_a_few_lines(name: str) -> None:
    text = (docs_check.REPO / "docs" / name).read_text(encoding="utf-8")
    (block,), problems = docs_check.parse(name, text)
    outside = len(text.splitlines()) - (block.end - block.start + 1)

    assert problems == []
    assert outside <= MAX_UNMARKED_GENERATED_LINES


def test_no_sentence_of_the_docs_is_over_40_words() -> None:
    long = [
        problem
        for name, text in _texts().items()
        for problem in docs_check.long_sentences(name, text)
    ]
    assert long == []


def test_the_checker_finds_a_long_sentence_in_prose_and_table_cells() -> None:
    words = " ".join(["word"] * 40)
    text = (
        f"# Title\n\n{words}. Short `a b c` one.\n\n"  # 40 words: passes
        f"A paragraph\nof {words} wrapped.\n\n"  # 44 words over two lines
        f"- an item of {words}\n"  # 43
        f"| key | {words} and `x y`. Then short. |\n"  # 42, a code span one word
        "| --- | --- |\n"
        f"```sh\n{words} {words}\n```\n"  # code: not prose
        f"<!-- output of: docs/records/r.json -->\n{words} {words}\n"
        "<!-- end of output -->\n"
    )

    problems = docs_check.long_sentences("p.md", text)

    assert [p.split(": ", 2)[:2] for p in problems] == [
        ["p.md:5", "44 words"],
        ["p.md:8", "43 words"],
        ["p.md:9", "42 words"],
    ]


def test_help_names_the_docs_page_of_each_job() -> None:
    for page in ("docs/check.md", "docs/backport.md", "docs/upstream.md"):
        assert page in docs_check.help_text()
        assert (docs_check.REPO / page).is_file()


def test_the_checker_finds_a_planted_bad_link(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "there.md").write_text("# A heading\n")
    text = "[ok](there.md#a-heading) [gone](missing.md) [no](there.md#nope)\n"

    problems = docs_check.bad_links(page, text)

    assert problems == [
        "page.md: link to missing.md: no such file",
        "page.md: link to there.md#nope: no such heading",
    ]


def test_the_checker_finds_an_unknown_command_and_flag() -> None:
    text = (
        "`exportpass-fix check --model m.pt2 --partitioner vulkan`\n"
        "`python -m exportpass_fix frobnicate --json`\n"
        "`exportpass-fix patch --tests-only --for-pr 22310 --no-such-flag`\n"
    )

    problems = docs_check.bad_commands("page.md", text)

    assert problems == [
        "page.md: unknown command 'frobnicate'",
        "page.md: patch has no flag --no-such-flag",
    ]
    shown_only_check = {"page.md": "`exportpass-fix check`"}
    assert "patch" in docs_check.unshown_commands(shown_only_check)


RELEASES = "exportpass-fix releases --summary"


def _releases_summary() -> str:
    return record_output.stdout_of(RELEASES)


def test_a_marked_block_equal_to_its_command_or_record_passes(tmp_path: Path) -> None:
    (tmp_path / "docs" / "records").mkdir(parents=True)
    record = {
        "command": "exportpass-fix partitioners",
        "date": "2026-12-05",
        "versions": record_output.versions(),
        "exit_status": 1,
        "stdout": "a\n\nb\n",
        "made_from": {"files": {"exir/shared/report.py": "0123abcd"}},
    }
    (tmp_path / "docs/records/r.json").write_text(json.dumps(record))
    text = (
        f"<!-- output of: {RELEASES} -->\n{_releases_summary()}\n<!-- end of output -->\n"
        "<!-- output of: docs/records/r.json -->\n```text\na\n\nb\n```\n"
        "<!-- end of output -->\n```sh\nexportpass-fix releases\n```\n"
    )

    assert docs_check.marker_problems("p.md", text, tmp_path) == []


def test_the_checker_finds_a_block_that_differs_from_its_source() -> None:
    stale = _releases_summary().replace("lowers", "fails", 1)
    text = f"<!-- output of: {RELEASES} -->\n{stale}\n<!-- end of output -->\n"

    (problem,) = docs_check.marker_problems("p.md", text)

    assert problem.startswith(f"p.md:1: differs from {RELEASES}: line 3 of the block")


def test_the_checker_finds_a_marker_whose_source_is_missing(tmp_path: Path) -> None:
    imports_executorch = tmp_path / "heavy.py"
    imports_executorch.write_text("import executorch\n")
    sources = [
        "docs/records/gone.json",
        "records/gone.json",
        "ls -l",
        "exportpass-fix releases --no-such-flag",
        f"python {imports_executorch}",
    ]
    text = "".join(
        f"<!-- output of: {source} -->\nx\n<!-- end of output -->\n"
        for source in sources
    )

    problems = docs_check.marker_problems("p.md", text, tmp_path)

    assert [p.split(": ", 1)[0] for p in problems] == [
        f"p.md:{line}" for line in (1, 4, 7, 10, 13)
    ]
    assert "no such record: docs/records/gone.json" in problems[0]
    assert "a record is docs/records/NAME.json" in problems[1]
    assert "a command is exportpass-fix ..., python -m MODULE" in problems[2]
    assert "exited 2: " in problems[3]
    assert "it imports executorch: record it" in problems[4]


def test_the_checker_refuses_a_record_that_is_not_one(tmp_path: Path) -> None:
    (tmp_path / "docs" / "records").mkdir(parents=True)
    good = {
        "command": "exportpass-fix partitioners",
        "date": "2026-12-05",
        "versions": record_output.versions(),
        "exit_status": 0,
        "stdout": "x\n",
        "made_from": {"files": {"exir/shared/report.py": "0123abcd"}},
    }
    planted = {
        "keys": {key: good[key] for key in ("command", "stdout")},
        "date": {**good, "date": "today"},
        "versions": {**good, "versions": {"torch": "2.13.0"}},
        "command": {**good, "command": "bash .ci/run"},
        "made_from": {**good, "made_from": {"files": {}}},
        "mirror": {**good, "command": "exportpass-fix prove --checkout /work/m"},
        "tree": {**good, "stdout": "wrote /tmp/tmpab12/0001.patch\n"},
    }
    for name, record in planted.items():
        (tmp_path / f"docs/records/{name}.json").write_text(json.dumps(record))
    (tmp_path / "docs/records/text.json").write_text("x")

    def problem(name: str) -> str:
        text = (
            f"<!-- output of: docs/records/{name}.json -->\nx\n<!-- end of output -->"
        )
        (found,) = docs_check.marker_problems("p.md", text, tmp_path)
        return found

    assert "its keys must be command, date, versions" in problem("keys")
    assert "a wrong date" in problem("date")
    assert "a wrong versions" in problem("versions")
    assert "'bash .ci/run': a command is exportpass-fix" in problem("command")
    assert "a wrong made_from" in problem("made_from")
    assert "a path of the machine it was made on: /work/" in problem("mirror")
    assert "a path of the machine it was made on: /tmp/" in problem("tree")
    assert "not JSON" in problem("text")


def test_the_checker_finds_broken_markers_and_unmarked_outputs() -> None:
    text = (
        "<!-- generated by: exportpass-fix releases -->\n"  # 1: the old form
        "<!-- end of output -->\n"  # 2: no marker before it
        "```\nbare\n```\n"  # 3: an unmarked output
        "~~~text\nout\n~~~\n"  # 6
        "```sh\n$ exportpass-fix releases\n```\n"  # 10: a prompt
        "```python\nprint(1)\n```\n"
        "```` ```text ```` is a code span, not a fence\n"
        "<!-- output of: exportpass-fix releases -->\n"  # 16
        "<!-- output of: exportpass-fix releases -->\n"  # 17: nested
        "x\n"
    )

    problems = docs_check.parse("p.md", text)[1]

    assert [p.split(": ", 1)[0] for p in problems] == [
        f"p.md:{line}" for line in (1, 2, 3, 6, 10, 17, 16)
    ]
    assert "not a marker" in problems[0]
    assert "without a marker before it" in problems[1]
    assert "a ``` block outside a marker" in problems[2]
    assert "a ~~~text block outside a marker" in problems[3]
    assert "a $ prompt in a sh block" in problems[4]
    assert "a marker inside the marker of line 16" in problems[5]
    assert "marker never ends" in problems[6]


def test_update_rewrites_a_stale_block_from_its_source(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text(
        f"# P\n<!-- output of: {RELEASES} -->\n```text\nold\n```\n"
        "<!-- end of output -->\ntail\n"
    )

    assert record_output.update(page, tmp_path) == []

    text = page.read_text()
    assert docs_check.marker_problems("p.md", text) == []
    assert text.startswith(f"# P\n<!-- output of: {RELEASES} -->\n```text\n")
    assert text.endswith("```\n<!-- end of output -->\ntail\n")


def test_record_output_writes_what_the_command_printed(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    script = str(docs_check.REPO / "test" / "record_output.py")
    name = "docs/records/partitioners.json"

    def record_output_py(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, script, *args], capture_output=True, text=True
        )

    done = record_output_py(name, "--to", str(target), "--", *RELEASES.split())
    refused = [
        record_output_py(str(tmp_path / "s.json"), "ls"),
        record_output_py("docs/records/new.json", "--", *RELEASES.split()),
    ]

    assert done.returncode == 0, done.stderr
    record = json.loads(target.read_text())
    assert sorted(record) == sorted(record_output.KEYS)
    assert record["command"] == RELEASES
    assert record["exit_status"] == 0
    assert record["stdout"] == _releases_summary() + "\n"
    assert record["made_from"] == record_sources.made_from(name)
    assert sorted(record["versions"]) == [
        "executorch",
        "exportpass_fix",
        "python",
        "torch",
    ]
    assert [r.returncode for r in refused] == [2, 2]
    assert refused[0].stderr.startswith("record_output.py: usage:")
    assert "does not say what it is made from" in refused[1].stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_record_output_keeps_a_path_of_this_machine_as_its_placeholder() -> None:
    args = ["prove", "--checkout", "/work/.mirror/et/repo", "--ref", "main"]
    paths = record_output.normalised(args)

    assert paths == {"/work/.mirror/et/repo": "ET_CHECKOUT"}
    assert record_output._placed(" ".join(args), paths) == (
        "prove --checkout ET_CHECKOUT --ref main"
    )
