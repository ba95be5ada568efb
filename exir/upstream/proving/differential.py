"""ExecuTorch's own ``exir/tests``, unpatched vs patched, side by side.

Both runs go at once (one per core), skipping what the ref's own
``pytest.ini`` tells upstream's CI to ignore under ``exir/``, so the counts
are what ``python -m pytest exir/tests`` prints in that checkout. A test
that fails only in the patched run is rerun there once, so a flaky upstream
test is told apart from a regression. The baseline is measured every time,
never listed.
"""

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Set

from ..making.trees import PytestRun, run_pytest

SUITE = ["exir/tests"]
# Some shipped test modules need packages the wheel does not depend on
# (torchvision) or bindings it does not ship; collect the rest regardless.
SUITE_ARGS = ["--continue-on-collection-errors", "-p", "no:warnings"]


@dataclass
class Differential:
    unpatched: PytestRun
    patched: PytestRun
    new_failures: Set[str]
    flaky: Set[str]

    def summary(self) -> str:
        return (
            f"unpatched {len(self.unpatched.passed)} passed,"
            f" {len(self.unpatched.failed)} failed/errored; patched"
            f" {len(self.patched.passed)} passed, {len(self.patched.failed)}"
            f" failed/errored; new failures {len(self.new_failures)}"
            f" (flaky on rerun {len(self.flaky)})"
        )


def ignored_under_exir(pytest_ini: str) -> List[str]:
    """The ``--ignore`` options of a ``pytest.ini`` that name ``exir/``
    paths (a linked tree runs its tests from ``exir/`` at its root, too)."""
    found = re.findall(r"^\s*(--ignore(?:-glob)?)=(exir/\S+)", pytest_ini, re.M)
    return [f"{option}={path}" for option, path in found]


def _run_suite(
    tree: Path,
    ignores: List[str],
    pytest_path: str,
    say: Callable[[str], None],
    prefix: str,
) -> PytestRun:
    say(f"{prefix}pytest exir/tests in {tree.name}: started")
    run = run_pytest(
        tree, SUITE, SUITE_ARGS + ignores, timeout=1500, pytest_path=pytest_path
    )
    say(
        f"{prefix}pytest exir/tests in {tree.name}: {len(run.passed)} passed,"
        f" {len(run.failed)} failed/errored"
    )
    return run


def node_id(tree: Path, test_id: str) -> str:
    """``exir.tests.mod.Cls::name`` -> a pytest node id in ``tree``."""
    dotted, _, name = test_id.partition("::")
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        module = tree.joinpath(*parts[:split]).with_suffix(".py")
        if module.exists():
            return "::".join([str(module), *parts[split:], *([name] if name else [])])
    return str(tree.joinpath(*parts))


def run_differential(
    unpatched_tree: Path,
    patched_tree: Path,
    ignores: List[str],
    pytest_path: str,
    say: Callable[[str], None] = lambda line: None,
    prefix: str = "",
) -> Differential:
    """Both trees' suites at once, under the pytest in ``pytest_path`` ('':
    this environment's); each new failure run again alone. ``say`` gets a
    line, starting ``prefix``, as each pytest run starts and ends."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        unpatched, patched = pool.map(
            lambda tree: _run_suite(tree, ignores, pytest_path, say, prefix),
            [unpatched_tree, patched_tree],
        )
    new_failures = patched.failed - unpatched.failed
    flaky: Set[str] = set()
    if new_failures:
        ids = sorted(new_failures)
        say(
            f"{prefix}pytest: the {len(ids)} new failure(s) in {patched_tree.name} again"
        )
        rerun = run_pytest(
            patched_tree,
            [],
            SUITE_ARGS + [node_id(patched_tree, i) for i in ids],
            pytest_path=pytest_path,
        )
        flaky = new_failures & rerun.passed
        new_failures -= flaky
    return Differential(unpatched, patched, new_failures, flaky)
