"""Benchmark: ``ExportPass()(gm)`` with the unfixed vs the fixed ``call``.

Run ``python test/backport/bench_export_pass.py`` (``--apply-only``: only
the cost of ``apply()`` and start-up, a few minutes). Graphs of about 10, 1 000 and
10 000 nodes, three kinds (every placeholder a constant; one constant and
one plain FakeTensor; no fake tensor at all), each timed in rounds: one round
runs the unfixed call, the fixed call and the unfixed call again, in an order
that rotates from round to round. Times are process CPU time (this machine is
shared), with a garbage collection before each round and none during it.
Printed: median times, the median over rounds of fixed / unfixed, and the
same for unfixed-again / unfixed, the A/A control that shows the noise floor.
Then the cost of ``apply()``: its first call in fresh processes (the check of
what it installs included: the issue's graph through ``ExportPass``, run once
per process), in this warm one, and after ``revert()``; the check alone; and
the interpreter start-up (``python -c pass``): unset, ``EXPORTPASS_FIX=1``,
unset again (the A/A control) and the ``.pth`` line run once more, side by
side in rounds of interleaved starts whose order rotates, with the median,
min and max over rounds of each / unset, once with bytecode cached (in a
pycache prefix of the run's own, written by a warm-up) and once as the
environment is; then the modules the hook adds at start-up. ``apply()``,
the check and start-up are timed in CPU time too (a child's, for
start-up). The load average before and after is printed last.
"""

import gc
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import torch
from executorch.exir import pass_base
from executorch.exir.pass_base import ExportPass
from exportpass_fix.backport import replace_call as backport
from exportpass_fix.backport.identify import check_installed
from exportpass_fix.shared.repro import constant_fake
from torch._subclasses.fake_tensor import FakeTensorMode

SIZES: Tuple[Tuple[int, int], ...] = ((10, 150), (1_000, 15), (10_000, 5))
KINDS = ("constant-only", "mixed", "no-fake")


def chain_graph(nodes: int, kind: str) -> torch.fx.GraphModule:
    """Two placeholders and a chain of ``nodes`` alternating mul/add."""
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    if kind == "constant-only":
        values = [constant_fake(2.0, mode), constant_fake(0.5, mode)]
    elif kind == "mixed":
        with mode:
            values = [constant_fake(2.0, mode), torch.empty(())]
    else:
        values = [torch.tensor(2.0), torch.tensor(0.5)]
    graph = torch.fx.Graph()
    placeholders = []
    for index, value in enumerate(values):
        placeholder = graph.placeholder(f"p{index}")
        placeholder.meta["val"] = value
        placeholders.append(placeholder)
    last = placeholders[0]
    for index in range(nodes):
        op = torch.ops.aten.mul.Tensor if index % 2 else torch.ops.aten.add.Tensor
        other = placeholders[1]
        node = graph.call_function(op, (last, other))
        with mode if kind != "no-fake" else torch.no_grad():
            node.meta["val"] = op(last.meta["val"], other.meta["val"])
        last = node
    output = graph.output((last,))
    output.meta["val"] = (last.meta["val"],)
    return torch.fx.GraphModule(torch.nn.Module(), graph)


def time_rounds(
    calls: Dict[str, Callable[..., object]], work: Callable[[], object], rounds: int
) -> Dict[str, List[float]]:
    """CPU seconds of ``work()`` with each ``call`` installed, a sample a round."""
    samples: Dict[str, List[float]] = {name: [] for name in calls}
    names = list(calls)
    for index in range(rounds):
        shift = index % len(names)
        gc.collect()
        gc.disable()
        for name in names[shift:] + names[:shift]:
            pass_base._ExportPassBase.call = calls[name]
            started = time.process_time()
            work()
            samples[name].append(time.process_time() - started)
        gc.enable()
    return samples


def median_ratio(numerator: List[float], denominator: List[float]) -> float:
    return statistics.median(n / d for n, d in zip(numerator, denominator))


FIRST_APPLY = """\
import time
import executorch.exir.pass_base
import exportpass_fix
started = time.process_time()
assert exportpass_fix.apply() == "applied"
print((time.process_time() - started) * 1e3)
"""


def first_apply_ms(processes: int = 3) -> float:
    """The median over fresh processes of their first ``apply()``, in ms."""
    env = {k: v for k, v in os.environ.items() if k != "EXPORTPASS_FIX"}
    times = []
    for _ in range(processes):
        run = subprocess.run(
            [sys.executable, "-c", FIRST_APPLY],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        times.append(float(run.stdout.split()[-1]))
    return statistics.median(times)


def check_ms(runs: int = 30) -> float:
    """The median of the check alone, the fix installed, in ms."""
    backport.apply()
    times = []
    for _ in range(runs):
        started = time.process_time()
        assert check_installed(pass_base) is None
        times.append(time.process_time() - started)
    backport.revert()
    return statistics.median(times) * 1e3


def apply_cost(cycles: int = 200) -> Tuple[float, float]:
    """This process's first ``apply()`` (the check included) and the median
    of apply-after-revert (checked already), in ms."""
    backport.revert()
    started = time.process_time()
    backport.apply()
    first = time.process_time() - started
    times = []
    for _ in range(cycles):
        backport.revert()
        started = time.process_time()
        backport.apply()
        times.append(time.process_time() - started)
    backport.revert()
    return first * 1e3, statistics.median(times) * 1e3


PTH_LINE = (Path(__file__).resolve().parents[2] / "exportpass_fix.pth").read_text()
# Start-ups timed side by side: (code, EXPORTPASS_FIX). "-c <the .pth line>"
# runs the line a second time, so that start minus a plain one is its cost.
STARTS = {
    "unset": ("pass", ""),
    "EXPORTPASS_FIX=1": ("pass", "1"),
    "unset again (A/A)": ("pass", ""),  # the A/A control
    ".pth line run again": (PTH_LINE, ""),
}
SHOW_MODULES = "import sys; print(' '.join(sorted(sys.modules)))"


def _start(code: str, env: Dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )


def startup_rounds(
    settings: Dict[str, str], rounds: int, reps: int
) -> Dict[str, List[float]]:
    """CPU seconds of each start-up of ``STARTS`` under the environment
    ``settings`` change, a sample a round: the mean of its ``reps`` starts,
    interleaved with the others' in an order that rotates from round to
    round, after one start of each not counted."""
    names = list(STARTS)
    env = {k: v for k, v in os.environ.items() if k not in settings} | {
        k: v for k, v in settings.items() if v
    }
    envs = {name: dict(env, EXPORTPASS_FIX=STARTS[name][1]) for name in names}
    for name in names:  # the warm-up: writes the bytecode, where it is written
        _start(STARTS[name][0], envs[name])
    samples: Dict[str, List[float]] = {name: [] for name in names}
    for index in range(rounds):
        shift = index % len(names)
        totals = dict.fromkeys(names, 0.0)
        for _ in range(reps):
            for name in names[shift:] + names[:shift]:
                started = _children_cpu()
                _start(STARTS[name][0], envs[name])
                totals[name] += _children_cpu() - started
        for name in names:
            samples[name].append(totals[name] / reps)
    return samples


def spread(times: List[float], unset: List[float]) -> str:
    """The median, min and max over rounds of ``times`` / ``unset``."""
    ratios = [t / u for t, u in zip(times, unset)]
    return f"{statistics.median(ratios):.3f}" f" ({min(ratios):.3f}, {max(ratios):.3f})"


def _children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    before = os.getloadavg()[0]
    if "--apply-only" not in sys.argv[1:]:
        pass_table()
    apply_and_startup()
    print(f"load average: {before:.1f} before, {os.getloadavg()[0]:.1f} after")


def pass_table() -> None:
    original = pass_base._ExportPassBase.__dict__["call"]
    calls = {
        "unfixed": original,
        "fixed": backport.fixed_call(pass_base),
        "unfixed again": original,
    }
    print(
        f"{'nodes':>6} {'kind':<14} {'unfixed ms':>11} {'fixed ms':>9}"
        f" {'fixed/unfixed':>14} {'A/A control':>12}"
    )
    try:
        for nodes, rounds in SIZES:
            for kind in KINDS:
                graph = chain_graph(nodes, kind)
                samples = time_rounds(calls, lambda g=graph: ExportPass()(g), rounds)
                print(
                    f"{nodes:>6} {kind:<14}"
                    f" {statistics.median(samples['unfixed']) * 1e3:>11.2f}"
                    f" {statistics.median(samples['fixed']) * 1e3:>9.2f}"
                    f" {median_ratio(samples['fixed'], samples['unfixed']):>14.3f}"
                    f" {median_ratio(samples['unfixed again'], samples['unfixed']):>12.3f}",
                    flush=True,
                )
    finally:
        pass_base._ExportPassBase.call = original
    print()


def apply_and_startup() -> None:
    fresh = first_apply_ms()
    first, median = apply_cost()
    print(
        f"apply(): first call {fresh:.2f} ms in a fresh process (median of 3),"
        f" {first:.2f} ms in this warm one;\n  after revert() median"
        f" {median:.2f} ms; the check alone (in the first call) median"
        f" {check_ms():.2f} ms"
    )
    rounds, reps = 40, 5  # a noisy shared machine: the median of many
    as_is = os.environ.get("PYTHONDONTWRITEBYTECODE")
    as_is = f"PYTHONDONTWRITEBYTECODE={as_is}" if as_is else "bytecode written"
    with tempfile.TemporaryDirectory(prefix="bench-pycache-") as prefix:
        cached = {"PYTHONPYCACHEPREFIX": prefix, "PYTHONDONTWRITEBYTECODE": ""}
        columns = {
            "bytecode cached": startup_rounds(cached, rounds, reps),
            f"as here, {as_is}": startup_rounds({}, rounds, reps),
        }
    print(
        f"python -c pass, child CPU ms (median of {rounds} rounds of {reps}"
        " interleaved starts); / unset: median (min, max)"
    )
    print(f"{'':<21}" + "".join(f"{column:<30}" for column in columns).rstrip())
    for name in STARTS:
        cells = []
        for samples in columns.values():
            cell = f"{statistics.median(samples[name]) * 1e3:.1f}"
            if name != "unset":
                cell += f"  {spread(samples[name], samples['unset'])}"
            cells.append(f"{cell:<30}")
        print(f"{name:<21}" + "".join(cells).rstrip())
    plain, hooked = (
        set(_start(SHOW_MODULES, dict(os.environ, EXPORTPASS_FIX=v)).stdout.split())
        for v in ("", "1")
    )
    extra = sorted(hooked - plain)
    print(f"modules EXPORTPASS_FIX=1 adds to start-up: {len(extra)}", *extra, sep=", ")


if __name__ == "__main__":
    main()
