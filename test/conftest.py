import subprocess
from pathlib import Path
from typing import Dict

import pytest

from exportpass_fix.shared.fix_source import TEST_PASS_INFRA
from trees import executorch_dir, linked_tree, patched_texts

REPO = Path(__file__).resolve().parent.parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--long",
        action="store_true",
        help="also run the long suites (differential, mutants, matrix, survey), which"
        " pyproject.toml's -m deselects by default",
    )
    parser.addoption(
        "--line",
        action="store_true",
        help="the fast suites without the tests marked once (those meant not"
        " to change between releases; CI runs them on 1.5.1 only)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--long") and config.getoption("--line"):
        raise pytest.UsageError("--long and --line: choose one")
    if config.getoption("--long"):
        config.option.markexpr = ""
    if config.getoption("--line"):
        chosen = config.option.markexpr
        config.option.markexpr = f"({chosen}) and not once" if chosen else "not once"


@pytest.fixture(scope="session")
def patched() -> dict:
    """Relative path -> patched text, for the installed wheel."""
    return patched_texts()


@pytest.fixture(scope="session")
def patched_tree(tmp_path_factory: pytest.TempPathFactory, patched: dict) -> Path:
    """The installed executorch, linked, with the fix and the test swapped in."""
    return linked_tree(tmp_path_factory.mktemp("patched"), patched)


@pytest.fixture(scope="session")
def unfixed_tree(tmp_path_factory: pytest.TempPathFactory, patched: dict) -> Path:
    """The installed executorch, linked, with the new test but not the fix."""
    return linked_tree(
        tmp_path_factory.mktemp("unfixed"),
        {TEST_PASS_INFRA: patched[TEST_PASS_INFRA]},
    )


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", "-c", "user.name=CI", "-c", "user.email=ci@invalid", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
    )


def git_repo(root: Path, texts: Dict[str, str]) -> Path:
    """A git repository at ``root`` whose first commit holds ``texts``
    (relative path -> text)."""
    for relative, text in texts.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    for args in (("init", "-q"), ("add", "-A"), ("commit", "-q", "-m", "base")):
        assert git(root, *args).returncode == 0
    return root


@pytest.fixture
def wheel_exir_repo(tmp_path: Path) -> Path:
    """A git repository whose first commit is the wheel's exir/ .py files."""
    repo = tmp_path / "et"
    source = executorch_dir() / "exir"
    for path in source.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        target = repo / "exir" / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    for args in (("init", "-q"), ("add", "-A"), ("commit", "-q", "-m", "wheel")):
        assert git(repo, *args).returncode == 0
    return repo
