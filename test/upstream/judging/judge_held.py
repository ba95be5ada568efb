"""Witnesses of the fake mode a pass holds and runs in, and of a delegate
whose constants come in named for the casts that made them: passes a backend or
a user writes that use ``self.fake_tensor_mode`` (during the retrace and
after it), or add an op that has only a fake kernel, as a backend adds
its device's ops (Arm's TOSA ops: upstream's #16222 made ``call`` retrace a
graph without inputs fake for them). Run over #22309's delegate and over
methods a user exports, under whatever ``_ExportPassBase.call`` is
installed. Importing this module registers that op.
"""

from typing import Dict, List

import torch
from executorch.exir import EdgeProgramManager
from executorch.exir.dialects._ops import ops as exir_ops
from executorch.exir.pass_base import Argument, ExportPass, NodeMetadata, ProxyValue
from judge_witnesses import (
    _equal,
    _inputs,
    _raised,
    delegate,
    edge_methods,
    Flow,
    METHODS,
    OK,
)
from torch._subclasses.fake_tensor import FakeTensor
from torch.fx.passes.infra.pass_base import PassResult

# A stand-in for a device's op: a kernel for fake tensors only, none on the
# host (calling it for real raises NotImplementedError).
torch.library.define("judge::device_only", "(Tensor x) -> Tensor")


@torch.library.register_fake("judge::device_only")
def _device_only_fake(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


class DeviceOnly(ExportPass):
    """Puts the first output through the device's op, as a backend's
    preprocess swaps an op for its own."""

    def output(self, results: List[Argument], meta: NodeMetadata) -> ProxyValue:
        op = exir_ops.edge.judge.device_only.default
        first = self.call_operator(op, (results[0],), {}, meta)
        return super().output([first, *results[1:]], meta)


class ModeUser(ExportPass):
    """Uses the mode it holds as its subclasses may: makes each constant
    ``placeholder()`` receives fake in it, and after the retrace doubles
    the first output with a node whose val it computes in it."""

    def placeholder(self, name: str, arg: Argument, meta: NodeMetadata) -> ProxyValue:
        if isinstance(arg, torch.Tensor) and not isinstance(arg, FakeTensor):
            self.fake_tensor_mode.from_tensor(arg)
        return super().placeholder(name, arg, meta)

    def call(self, graph_module: torch.fx.GraphModule) -> PassResult:
        result = super().call(graph_module)
        graph = result.graph_module.graph
        output = graph.output_node()
        first, *rest = output.args[0]
        with graph.inserting_before(output):
            doubled = graph.call_function(exir_ops.edge.aten.add.Tensor, (first, first))
        with self.fake_tensor_mode:
            doubled.meta["val"] = first.meta["val"] + first.meta["val"]
        output.args = ((doubled, *rest),)
        result.graph_module.recompile()
        return result


def _static(program: torch.export.ExportedProgram) -> bool:
    vals = [node.meta.get("val") for node in program.graph.nodes]
    tensors = [v for v in vals if isinstance(v, torch.Tensor)]
    return all(isinstance(d, int) for t in tensors for d in t.shape)


DELEGATE = "#22309's delegate (x static) in a backend's preprocess, through"
D_MODE = f"{DELEGATE} a pass using the mode it holds"
D_DEVICE = f"{DELEGATE} a pass adding the device's op"
D_STATIC = f"{DELEGATE} ExportPass, its shapes kept static"


def _delegate_passes() -> Dict[str, str]:
    program = delegate(False, True)
    args, _ = _inputs(program)
    (before,) = program.module()(*args)
    shown = {}
    for name, passes, check in (
        (D_MODE, [ModeUser()], "twice"),
        (D_DEVICE, [DeviceOnly()], "traced"),
        (D_STATIC, [ExportPass()], "static"),
    ):
        try:
            done = EdgeProgramManager(program).transform(passes).exported_program()
            got = None if check == "traced" else done.module()(*args)[0]
        except Exception as error:
            shown[name] = _raised(error)
            continue
        if check == "twice":
            shown[name] = OK if _equal(got, before * 2) else "wrong values"
        elif check == "static":
            shown[name] = OK if _static(done) else "symbolic shapes"
        else:
            shown[name] = OK
    return shown


ORDER = ("int", "ones", "int again")
BY_ONE_INSTANCE = (
    "one instance of a pass using the mode it holds over a constant beside an"
    " int, one without placeholders, another constant beside an int"
)
ONES_DEVICE = "a pass adding the device's op to a method without placeholders"


def _methods_passes() -> Dict[str, str]:
    edge = edge_methods()
    args = {name: args for name, _, args in METHODS if name in ORDER}
    shown = {}
    try:
        programs = {name: edge.exported_program(name) for name in ORDER}
        after = EdgeProgramManager(programs).transform([ModeUser()])
        after.to_executorch()
        right = all(
            _equal(
                after.exported_program(name).module()(*args[name]),
                2 * edge.exported_program(name).module()(*args[name]),
            )
            for name in ORDER
        )
        shown[BY_ONE_INSTANCE] = OK if right else "wrong values"
    except Exception as error:
        shown[BY_ONE_INSTANCE] = _raised(error)
    try:
        ones = EdgeProgramManager({"ones": edge.exported_program("ones")})
        ones.transform([DeviceOnly()])
        shown[ONES_DEVICE] = OK
    except Exception as error:
        shown[ONES_DEVICE] = _raised(error)
    return shown


CASTS_OUT = (
    "#22309's delegate, x's size dynamic, the constants' casts left out (its"
    " inputs named for them), through ExportPass"
)


def _casts_left_out() -> Dict[str, str]:
    program = delegate(True, True, casts=False)
    args, _ = _inputs(program)
    (before,) = program.module()(*args)
    try:
        done = EdgeProgramManager(program).transform([ExportPass()])
        (got,) = done.exported_program().module()(*args)
    except Exception as error:
        return {CASTS_OUT: _raised(error)}
    return {CASTS_OUT: OK if _equal(got, before) else "wrong values"}


HELD_FLOWS: List[Flow] = [
    Flow(
        "to_edge_transform_and_lower, a partitioner that leaves dtype casts out",
        (CASTS_OUT,),
        _casts_left_out,
    ),
    Flow(
        "to_edge_transform_and_lower, a backend's passes using the fake mode",
        (D_MODE, D_DEVICE, D_STATIC),
        _delegate_passes,
    ),
    Flow(
        "EdgeProgramManager.transform, passes using the fake mode",
        (BY_ONE_INSTANCE, ONES_DEVICE),
        _methods_passes,
    ),
]
