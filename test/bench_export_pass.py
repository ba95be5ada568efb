"""Benchmark: ``ExportPass()(gm)`` with the unfixed vs the fixed ``call``.

Run ``python test/bench_export_pass.py``. Graphs of about 10, 1 000 and
10 000 nodes, three kinds (every placeholder a constant; one constant and
one plain FakeTensor; no fake tensor at all), timed unpatched and patched
interleaved in one process, alternating which goes first. Prints the median
times and their ratio (patched / unpatched), the cost of ``apply()``, and
the interpreter start-up with and without ``EXPORTPASS_FIX=1``.
"""

import os
import statistics
import subprocess
import sys
import time
from typing import Callable, Dict, List, Tuple

import torch
from executorch.exir import pass_base
from executorch.exir.pass_base import ExportPass
from exportpass_fix import backport
from exportpass_fix.repro import constant_fake
from torch._subclasses.fake_tensor import FakeTensorMode

SIZES: Tuple[Tuple[int, int], ...] = ((10, 300), (1_000, 11), (10_000, 3))
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


def time_interleaved(
    calls: Dict[str, Callable[..., object]], graph: torch.fx.GraphModule, reps: int
) -> Dict[str, float]:
    samples: Dict[str, List[float]] = {name: [] for name in calls}
    names = list(calls)
    for rep in range(reps):
        for name in names if rep % 2 == 0 else names[::-1]:
            pass_base._ExportPassBase.call = calls[name]
            started = time.perf_counter()
            ExportPass()(graph)
            samples[name].append(time.perf_counter() - started)
    return {name: statistics.median(times) for name, times in samples.items()}


def apply_cost(cycles: int = 200) -> Tuple[float, float]:
    """The first ``apply()`` and the median of apply-after-revert, in ms."""
    backport.revert()
    started = time.perf_counter()
    backport.apply()
    first = time.perf_counter() - started
    times = []
    for _ in range(cycles):
        backport.revert()
        started = time.perf_counter()
        backport.apply()
        times.append(time.perf_counter() - started)
    backport.revert()
    return first * 1e3, statistics.median(times) * 1e3


def startup_ms(env_value: str, reps: int = 20) -> float:
    env = dict(os.environ, EXPORTPASS_FIX=env_value)
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e3


def main() -> None:
    original = pass_base._ExportPassBase.__dict__["call"]
    calls = {"unpatched": original, "patched": backport.fixed_call(pass_base)}
    print(f"{'nodes':>6} {'kind':<14} {'unpatched ms':>13} {'patched ms':>11} ratio")
    try:
        for nodes, reps in SIZES:
            for kind in KINDS:
                graph = chain_graph(nodes, kind)
                medians = time_interleaved(calls, graph, reps)
                ratio = medians["patched"] / medians["unpatched"]
                print(
                    f"{nodes:>6} {kind:<14} {medians['unpatched'] * 1e3:>13.2f}"
                    f" {medians['patched'] * 1e3:>11.2f} {ratio:.3f}",
                    flush=True,
                )
    finally:
        pass_base._ExportPassBase.call = original

    first, median = apply_cost()
    print(f"\napply(): first call {first:.2f} ms, then median {median:.2f} ms")
    unset, on = [], []
    for _ in range(3):
        unset.append(startup_ms(""))
        on.append(startup_ms("1"))
    print(
        f"python -c pass: EXPORTPASS_FIX unset {statistics.median(unset):.1f} ms,"
        f" EXPORTPASS_FIX=1 {statistics.median(on):.1f} ms"
        f" (ratio {statistics.median(on) / statistics.median(unset):.3f})"
    )


if __name__ == "__main__":
    main()
