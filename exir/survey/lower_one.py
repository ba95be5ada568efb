"""One model of a zoo, in a process of its own: ``python lower_one.py JOB``.

Run as a file, not imported: unpatched, this process imports nothing of
this project (its last line lists what it did import, to show it). With
``backport`` it applies ``exportpass_fix.apply()`` first and lowers the
program an unpatched run saved. Each line on stdout is JSON: ``{"doing"}``
before a step, then the step's result. A failure is reported as the chain
of its messages; whether it is #22309 is decided by whoever reads them.
Imports only the standard library, torch, executorch and the zoo.
"""

import functools
import hashlib
import json
import sys
import time
import traceback
from typing import Callable, Dict, List

# The tolerance of the comparison with eager: the XNNPACK kernels of a real
# model differ from eager's by accumulation order, far above 1e-5.
RTOL = ATOL = 1e-3
BACKBONED = ("detection", "segmentation")


def say(**line: object) -> None:
    print(json.dumps(line), flush=True)


def messages(error: BaseException) -> List[str]:
    """``Type: message`` of the error and each cause or context under it,
    outermost first, each cut to 400 characters."""
    chain: List[BaseException] = [error]
    while True:
        below = chain[-1].__cause__ or chain[-1].__context__
        if below is None or below in chain:
            break
        chain.append(below)
    return [f"{type(e).__name__}: {e}"[:400] for e in chain]


def step(name: str, action: Callable[[], Dict], **about: object) -> Dict:
    """Runs ``action``; says ``{"doing"}`` before and the result after."""
    say(doing=name, **about)
    started = time.perf_counter()
    try:
        result = {"ok": True, **action()}
    except Exception as error:  # the step's failure is the survey's datum
        result = {"ok": False, "messages": messages(error)}
        traceback.print_exc()
    result["seconds"] = round(time.perf_counter() - started, 1)
    say(done=name, **about, **result)
    return result


def build(job: Dict) -> tuple:
    """The model with random weights and its default input (the job's)."""
    import torch

    torch.manual_seed(0)
    shape = job["input"]
    if job["zoo"] == "timm":
        import timm

        model = timm.create_model(job["name"], pretrained=False)
    else:
        import torchvision

        # No weights at all: a detector's default backbone weights download.
        backbone = {"weights_backbone": None} if job["kind"] in BACKBONED else {}
        # A ViT is built for one size: its default weights' (518 for vit_h_14).
        if job["name"].startswith("vit_"):
            backbone["image_size"] = shape[-1]
        model = torchvision.models.get_model(job["name"], weights=None, **backbone)
    images = [torch.randn(*shape) for _ in range(job.get("images", 1))]
    if job.get("kind") == "detection":  # a list of one image, no batch
        args: tuple = ([images[0][0]],)
    else:
        args = tuple(images)
    return model.eval(), args


def leaves(value: object) -> list:
    import torch

    return [t for t in torch.utils._pytree.tree_leaves(value) if torch.is_tensor(t)]


def lower(job: Dict, program: object, partitioner: str, state: Dict) -> Dict:
    import importlib

    from executorch.exir import to_edge_transform_and_lower

    module, cls = job["partitioners"][partitioner].split(":")
    made = getattr(importlib.import_module(module), cls)()
    edge = to_edge_transform_and_lower(program, partitioner=[made])
    buffer = edge.to_executorch().buffer
    state[partitioner] = buffer
    return {"pte_sha256": hashlib.sha256(buffer).hexdigest(), "bytes": len(buffer)}


def saved(job: Dict) -> object:
    """The exported program, loaded again from its file: lowering through
    Vulkan deletes the buffers it delegates from the program it is given, so
    lowering that program a second time fails on them (a KeyError)."""
    import torch

    return torch.export.load(job["program"])


def lowered(job: Dict, program: object, partitioner: str, state: Dict) -> bool:
    action = functools.partial(lower, job, program, partitioner, state)
    return step("lower", action, p=partitioner)["ok"]


def compare(buffer: bytes, inputs: list, expected: list) -> Dict:
    import torch
    from executorch.extension.pybindings.portable_lib import (
        _load_for_executorch_from_buffer,
    )

    outputs = _load_for_executorch_from_buffer(buffer).forward(tuple(inputs))
    errors = [float((o - e).abs().max()) for o, e in zip(outputs, expected)]
    close = len(outputs) == len(expected) and all(
        torch.allclose(o, e, rtol=RTOL, atol=ATOL) for o, e in zip(outputs, expected)
    )
    return {"equal": close, "max_abs_error": max(errors, default=0.0)}


def unpatched(job: Dict, state: Dict) -> None:
    """Build, export once (saved for a backport run), lower through each of
    the job's partitioners in order; ``then`` ones only if the first fails."""
    import torch

    def built() -> Dict:
        state["model"], state["args"] = build(job)
        return {}

    if not step("build", built)["ok"]:
        return
    model, args = state.pop("model"), state["args"]

    def export() -> Dict:
        program = torch.export.export(model, args)
        with torch.no_grad():
            expected = leaves(model(*args))
        torch.export.save(program, job["program"])
        torch.save({"inputs": leaves(args), "expected": expected}, job["eager"])
        state["program"] = program
        return {}

    if not step("export", export)["ok"]:
        return
    first, *then = job["lowerings"]
    if not lowered(job, state["program"], first, state):
        for name in then:
            lowered(job, saved(job), name, state)


def backport(job: Dict, state: Dict) -> None:
    from exportpass_fix import apply

    step("apply", lambda: {"status": apply()})
    for name in job["lowerings"]:
        lowered(job, saved(job), name, state)


def main(job: Dict) -> None:
    import torch

    torch.set_num_threads(1)  # two shared cores: one lowering at a time
    state: Dict = {}
    (backport if job["backport"] else unpatched)(job, state)
    if "xnnpack" in state:
        eager = torch.load(job["eager"], weights_only=True)
        step("run", lambda: compare(state["xnnpack"], **eager), p="xnnpack")
    ours = sorted(m for m in sys.modules if m.split(".")[0] == "exportpass_fix")
    say(project_modules=ours)


if __name__ == "__main__":
    main(json.loads(sys.argv[-1]))  # after the path, under run.LAUNCH
