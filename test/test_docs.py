"""The README and docs/: links resolve, every command and flag shown exists
in ``--help``, every command of ``--help`` is shown, and the README stays a
five-minute read. The checker's own tests plant each kind of mistake."""

from pathlib import Path

import docs_check

MAX_README_BYTES = 15 * 1024


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
    assert len(docs_check.commands()) >= 8
    assert docs_check.unshown_commands(_texts()) == []


def test_the_readme_is_short_and_leads_to_every_docs_page() -> None:
    readme = docs_check.REPO / "README.md"
    assert readme.stat().st_size <= MAX_README_BYTES
    text = readme.read_text(encoding="utf-8")
    for page in sorted((docs_check.REPO / "docs").glob("*.md")):
        assert f"(docs/{page.name})" in text, page.name


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
