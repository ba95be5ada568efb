"""Benchmark: what ``check`` costs against one import of ExecuTorch.

Run ``python test/diagnosis/checking/bench_check.py [ROUNDS]`` (default 3).
Each round runs, as whole processes timed from outside, in an order that
rotates: A, ``exportpass-fix check --model builtin:detr-sine --partitioner
webgpu``; B, the yardstick, ``python -c 'import executorch.exir; from
executorch.backends.vulkan...vulkan_partitioner import VulkanPartitioner'``;
and A again, the A/A control. Wall time, and CPU time of the process and
every process it waited for (``RUSAGE_CHILDREN``). Printed: each round's
A/B and A-again/A, then their median, min and max, and the load average
before and after (the machine is shared).
"""

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Tuple

EXPORTPASS_FIX = str(Path(sys.executable).with_name("exportpass-fix"))
COMMANDS = {
    "A": [
        EXPORTPASS_FIX,
        "check",
        "--model",
        "builtin:detr-sine",
        "--partitioner",
        "webgpu",
    ],
    "B": [
        sys.executable,
        "-c",
        "import executorch.exir; from executorch.backends.vulkan.partitioner"
        ".vulkan_partitioner import VulkanPartitioner",
    ],
}
ORDERS = (("A", "B", "A again"), ("B", "A again", "A"), ("A again", "A", "B"))


def timed(command: List[str]) -> Tuple[float, float]:
    """Wall and CPU seconds of one whole process and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def spread(values: List[float]) -> str:
    return (
        f"median {statistics.median(values):.2f}"
        f" (min {min(values):.2f}, max {max(values):.2f})"
    )


def main(rounds: int) -> None:
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    ratios: Dict[str, List[float]] = {
        "A/B wall": [],
        "A/B CPU": [],
        "A again/A wall": [],
        "A again/A CPU": [],
    }
    for index in range(rounds):
        seconds = {}
        for name in ORDERS[index % len(ORDERS)]:
            seconds[name] = timed(COMMANDS[name.split()[0]])
        for k, kind in enumerate(("wall", "CPU")):
            a, b, again = (seconds[n][k] for n in ("A", "B", "A again"))
            ratios[f"A/B {kind}"].append(a / b)
            ratios[f"A again/A {kind}"].append(again / a)
        print(
            f"round {index + 1}: "
            + ", ".join(
                f"{n} {w:.1f} s wall {c:.1f} s CPU" for n, (w, c) in seconds.items()
            ),
            flush=True,
        )
    for name, values in ratios.items():
        print(f"{name:<15} {spread(values)}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
