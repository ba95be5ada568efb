"""Benchmark: what the added tests cost upstream's CI beside the rest of
their file.

Run ``python test/upstream/making/bench_added_tests.py [ROUNDS]`` (default 3).
Two trees are linked over the installed ExecuTorch (as ``prove`` lays one):
patched (its ``exir/tests/test_pass_infra.py`` and ``exir/pass_base.py``
as the patch leaves them) and unpatched (the installed files). Each round
runs three whole pytest processes, in an order that rotates: A, the
patched file run whole; A again, the same (the A/A control); C, the
unpatched file collected only. A plugin runs the unpatched file's imports
before the collection, then times each test's setup, call and teardown,
and the collection. Per run of the patched file:

- added: the added tests' setup + call + teardown, plus what they add to
  the collection (the patched file's collection time less C's);
- others: the file's other tests' setup + call + teardown.

Printed: each round's sums and added/others for A and A again, then the
median, min and max of added/others (both runs), and of A again/A for each
sum (the A/A control), and the load average before and after (the machine
is shared). Progress goes to stderr.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

from exportpass_fix.shared.fix_source import PASS_BASE, TEST_CLASS, TEST_PASS_INFRA
from exportpass_fix.shared.installed import environ_without_hook
from exportpass_fix.upstream.making.patch import planned_changes
from exportpass_fix.upstream.making.trees import executorch_dir, linked_tree

# Loaded by pytest in each run (``-p``): runs the unpatched file's imports
# first ($BENCH_IMPORTS), so that the collection times only what the file
# itself costs (importing ExecuTorch takes seconds, and its noise would
# hide the difference); writes, to $BENCH_OUT, each test's setup + call +
# teardown seconds and the collection's seconds.
PLUGIN = """import ast, json, os, time
import pytest
seconds = {}
collection = []

def pytest_configure(config):
    tree = ast.parse(open(os.environ["BENCH_IMPORTS"]).read())
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    exec(compile(ast.Module(imports, []), "imports", "exec"), {})

@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):
    started = time.perf_counter()
    yield
    collection.append(time.perf_counter() - started)

def pytest_runtest_logreport(report):
    seconds[report.nodeid] = seconds.get(report.nodeid, 0.0) + report.duration

def pytest_sessionfinish(session):
    with open(os.environ["BENCH_OUT"], "w") as out:
        json.dump({"tests": seconds, "collection": sum(collection)}, out)
"""
ORDERS = (("A", "A again", "C"), ("A again", "C", "A"), ("C", "A", "A again"))


def trees(root: Path) -> Dict[str, Path]:
    """The patched and unpatched trees, each with the timing plugin."""
    patched = {
        change.path: change.new
        for change in planned_changes(executorch_dir())
        if change.path in (PASS_BASE, TEST_PASS_INFRA)
    }
    made = {
        "patched": linked_tree(root / "patched", patched),
        "unpatched": linked_tree(root / "unpatched", {}),
    }
    for tree in made.values():
        (tree / "bench_timing.py").write_text(PLUGIN, encoding="utf-8")
        (tree / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return made


def run(tree: Path, collect_only: bool) -> Dict:
    """One whole pytest process over the tree's test_pass_infra.py."""
    out = tree / "bench.json"
    env = environ_without_hook()
    env.update(PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1", BENCH_OUT=str(out))
    env["BENCH_IMPORTS"] = str(executorch_dir() / TEST_PASS_INFRA)
    command = [sys.executable, "-m", "pytest", "-c", str(tree / "pytest.ini")]
    command += ["--rootdir", str(tree), "-p", "no:cacheprovider", "-p", "bench_timing"]
    command += ["-q", "-p", "no:randomly"] + (
        ["--collect-only"] if collect_only else []
    )
    command.append(str(tree / "executorch" / TEST_PASS_INFRA))
    subprocess.run(command, cwd=tree, env=env, capture_output=True, check=False)
    return json.loads(out.read_text())


def sums(whole: Dict, collected_unpatched: float) -> Tuple[float, float]:
    """(added, others) of one run of the patched file."""
    added = whole["collection"] - collected_unpatched
    others = 0.0
    for nodeid, seconds in whole["tests"].items():
        if f"::{TEST_CLASS}::" in nodeid:
            added += seconds
        else:
            others += seconds
    return added, others


def spread(values: List[float]) -> str:
    return (
        f"median {statistics.median(values):.2f}"
        f" (min {min(values):.2f}, max {max(values):.2f})"
    )


def main(rounds: int) -> None:
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    ratios: Dict[str, List[float]] = {
        "added/others": [],
        "A again/A added": [],
        "A again/A others": [],
    }
    with tempfile.TemporaryDirectory() as root:
        made = trees(Path(root))
        for index in range(rounds):
            runs = {}
            for name in ORDERS[index % len(ORDERS)]:
                print(f"round {index + 1}: {name} ...", file=sys.stderr, flush=True)
                tree = made["unpatched" if name == "C" else "patched"]
                runs[name] = run(tree, collect_only=name == "C")
            counted = {n: len(runs[n]["tests"]) for n in ("A", "A again")}
            assert min(counted.values()) > 0, f"no test ran: {counted}"
            a, again = (
                sums(runs[n], runs["C"]["collection"]) for n in ("A", "A again")
            )
            ratios["added/others"] += [a[0] / a[1], again[0] / again[1]]
            ratios["A again/A added"].append(again[0] / a[0])
            ratios["A again/A others"].append(again[1] / a[1])
            for name, (added, others) in (("A", a), ("A again", again)):
                print(
                    f"round {index + 1}: {name:<7} added {added:6.2f} s, others"
                    f" {others:6.2f} s, added/others {added / others:.2f}"
                )
            print(
                f"round {index + 1}: collection {runs['A']['collection']:.2f} s"
                f" patched, {runs['C']['collection']:.2f} s unpatched",
                flush=True,
            )
    for name, values in ratios.items():
        print(f"{name:<17} {spread(values)}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
