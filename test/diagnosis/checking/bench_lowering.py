"""Benchmark: lowering end to end with the unfixed vs the fixed ``call``.

Run ``python test/diagnosis/checking/bench_lowering.py``. For pairs of this project's models and
partitioners that lower either way, ``to_edge_transform_and_lower`` then
``to_executorch`` is timed in rounds, in one process, as in
``bench_export_pass.py``: each round runs the unfixed call, the fixed call
and the unfixed call again, in an order that rotates; printed are the median
fixed/unfixed ratio and the unfixed-again/unfixed A/A control (the noise
floor). For pairs that lower only with the fix, the fixed times alone.
"""

import logging
import statistics
import sys
from pathlib import Path

import torch

# Its timing helpers live beside the pass benchmark, in test/backport.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "backport"))
from bench_export_pass import median_ratio, time_rounds  # noqa: E402
from executorch.exir import pass_base, to_edge_transform_and_lower
from exportpass_fix.backport import replace_call as backport
from exportpass_fix.diagnosis.checking.partitioners import construct, why_not
from exportpass_fix.diagnosis.models.catalog import build

BOTH_WAYS = (
    ("detr-sine", "xnnpack"),
    ("rope-attention", "xnnpack"),
    ("dinov2-interpolated", "xnnpack"),
    ("t5-relative-bias", "xnnpack"),
    ("conv-control", "vulkan"),
    ("buffer-table-control", "vulkan"),
    ("detr-sine", "native"),
)
FIXED_ONLY = (
    ("issue-reduced", "vulkan"),
    ("detr-sine", "vulkan"),
    ("dinov2-interpolated", "vulkan"),
    ("detr-sine", "webgpu"),
)
ROUNDS = 7


def lower(model_name: str, partitioner: str) -> int:
    model, args = build(model_name)
    program = torch.export.export(model, args)
    edge = to_edge_transform_and_lower(program, partitioner=[construct(partitioner)])
    return len(edge.to_executorch().buffer)


def main() -> None:
    logging.disable(logging.WARNING)
    original = pass_base._ExportPassBase.__dict__["call"]
    fixed = backport.fixed_call(pass_base)
    calls = {"unfixed": original, "fixed": fixed, "unfixed again": original}
    print(
        f"{'model':<22} {'partitioner':<12} {'unfixed s':>10} {'fixed s':>8}"
        f" {'fixed/unfixed':>14} {'A/A control':>12}"
    )
    ratios, controls = [], []
    try:
        for model, partitioner in BOTH_WAYS:
            if why_not(partitioner) is not None:
                continue
            samples = time_rounds(
                calls, lambda m=model, p=partitioner: lower(m, p), ROUNDS
            )
            ratio = median_ratio(samples["fixed"], samples["unfixed"])
            control = median_ratio(samples["unfixed again"], samples["unfixed"])
            ratios.append(ratio)
            controls.append(control)
            print(
                f"{model:<22} {partitioner:<12}"
                f" {statistics.median(samples['unfixed']):>10.3f}"
                f" {statistics.median(samples['fixed']):>8.3f}"
                f" {ratio:>14.3f} {control:>12.3f}",
                flush=True,
            )
        print(
            f"median over pairs: fixed/unfixed {statistics.median(ratios):.3f},"
            f" A/A control {statistics.median(controls):.3f}"
        )
        print("\nlower only with the fix (fixed call, CPU seconds, median):")
        for model, partitioner in FIXED_ONLY:
            if why_not(partitioner) is not None:
                continue
            samples = time_rounds(
                {"fixed": fixed}, lambda m=model, p=partitioner: lower(m, p), 3
            )
            print(
                f"{model:<22} {partitioner:<12}"
                f" {statistics.median(samples['fixed']):>10.3f}",
                flush=True,
            )
    finally:
        pass_base._ExportPassBase.call = original


if __name__ == "__main__":
    main()
