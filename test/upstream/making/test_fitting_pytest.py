"""The pytest the upstream runs use: where this environment's does not satisfy
a tree's pin, one that does is installed for the runs (pip, from the index
this machine has), the runs use it, and this environment keeps its own."""

from importlib import metadata
from pathlib import Path

import pytest
from exportpass_fix.upstream.making.evidence import (
    fitting_pytest,
    pytest_pin,
    PytestUnfit,
)
from exportpass_fix.upstream.making.trees import linked_tree, run_pytest
from packaging.version import Version

pytestmark = pytest.mark.once
OWN = metadata.version("pytest")


def test_a_pin_this_pytest_satisfies_uses_it(tmp_path: Path) -> None:
    said = []
    found = fitting_pytest(f"<={OWN}", "tree", tmp_path, said.append)
    assert (found.version, found.path, said) == (OWN, "", [])
    assert list(tmp_path.iterdir()) == []


def test_a_pin_this_pytest_misses_installs_one_the_runs_use(tmp_path: Path) -> None:
    pin = pytest_pin(f"pytest-xdist\npytest<{Version(OWN).major}.0  # a comment\n")
    said = []
    found = fitting_pytest(pin, "tree", tmp_path / "work", said.append)
    assert Version(found.version) < Version(f"{Version(OWN).major}.0")
    assert found.path and len(said) == 1 and found.version in said[0]
    tree = linked_tree(tmp_path / "tree", {})
    test = tree / "test_version.py"
    test.write_text(
        "import pytest\n\n\ndef test_version():\n"
        f"    assert pytest.__version__ == {found.version!r}\n",
        encoding="utf-8",
    )
    run = run_pytest(tree, ["test_version.py"], pytest_path=found.path)
    assert len(run.passed) == 1 and not run.failed, run.output
    assert metadata.version("pytest") == OWN  # this environment's is unchanged


def test_a_pin_nothing_satisfies_is_unfit(tmp_path: Path) -> None:
    with pytest.raises(PytestUnfit, match=r"installing pytest<1\.0 failed: "):
        fitting_pytest("<1.0", "tree", tmp_path, print)
