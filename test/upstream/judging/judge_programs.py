"""The programs and passes the witnesses run: #22309's model and its
partitioner, models a user exports, and ``ExportPass`` subclasses written
with the class's public API (``placeholder``, ``output``), as upstream's
passes and users' are. Importing this module imports torch and executorch.
"""

from typing import List

import torch
from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec
from executorch.exir.backend.partitioner import (
    DelegationSpec,
    Partitioner,
    PartitionResult,
)
from executorch.exir.backend.utils import tag_constant_data
from executorch.exir.dialects._ops import ops as exir_ops
from executorch.exir.pass_base import Argument, ExportPass, NodeMetadata, ProxyValue
from torch.export import ExportedProgram


class Sine(torch.nn.Module):
    """#22309's reduced model: a table that depends on no input's values."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = torch.arange(x.shape[1], dtype=torch.float32)
        table = 10000.0 ** (2 * torch.floor(t / 2) / 128)
        return x + table.unsqueeze(0)  # a reshape, for NXP's pass to convert


class Table(torch.nn.Module):
    """A method without inputs: only lifted constants."""

    def forward(self) -> torch.Tensor:
        return torch.tensor([1.0, 2.0]) * torch.tensor([3.0, 4.0])


class IntInput(torch.nn.Module):
    """A method whose only tensor input, once ExecuTorch lifts the scalar,
    is that constant, beside an int input."""

    def forward(self, n: int) -> torch.Tensor:
        return torch.arange(4, dtype=torch.float32) * 2.5


class IntInputUnsqueezed(torch.nn.Module):
    """The same, with a reshape for NXP's pass to convert."""

    def forward(self, n: int) -> torch.Tensor:
        return (torch.arange(4, dtype=torch.float32) * 2.5).unsqueeze(0)


class Ones(torch.nn.Module):
    """A method without any tensor input, constants included."""

    def forward(self) -> torch.Tensor:
        return torch.ones(3) * 2


class Tripling(ExportPass):
    """Multiplies the first output by a tensor it makes, as FuseBatchNormPass
    makes the fused weights."""

    def output(self, results: List[Argument], meta: NodeMetadata) -> ProxyValue:
        mul = exir_ops.edge.aten.mul.Tensor
        first = self.call_operator(mul, (results[0], torch.tensor(3.0)), {}, meta)
        return super().output([first, *results[1:]], meta)


class Recorder(ExportPass):
    """Records what its ``placeholder()`` receives."""

    def __init__(self) -> None:
        super().__init__()
        self.received: List[Argument] = []

    def placeholder(self, name: str, arg: Argument, meta: NodeMetadata) -> ProxyValue:
        self.received.append(arg)
        return super().placeholder(name, arg, meta)


# The delegates the backend was given, in order.
CAPTURED: List[ExportedProgram] = []


class CapturingBackend(BackendDetails):
    """Keeps the delegate a backend's preprocess is given, over which
    Vulkan's and WebGPU's run FuseBatchNormPass."""

    @staticmethod
    def preprocess(
        edge_program: ExportedProgram, compile_specs: List[CompileSpec]
    ) -> PreprocessResult:
        CAPTURED.append(edge_program)
        return PreprocessResult(processed_bytes=b"")


class ConstantsPartitioner(Partitioner):
    """Delegates every op that does not read the first user input: in
    ``Sine``, the ops that compute the table. Untagged (``tag_constants``
    False), the constants come after a SymInt input among the delegate's;
    without ``casts``, the constants' dtype casts stay out, as a partitioner
    that does not take them leaves them: the delegate gets what they make,
    named for them, after the SymInt."""

    def __init__(self, tag_constants: bool = True, casts: bool = True) -> None:
        super().__init__()
        self.tag_constants = tag_constants
        self.casts = casts

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        x = exported_program.graph_signature.user_inputs[0]
        cast = exir_ops.edge.dim_order_ops._to_dim_order_copy.default
        for node in exported_program.graph_module.graph.nodes:
            if node.target == cast and not self.casts:
                continue
            if node.op == "call_function" and x not in map(str, node.all_input_nodes):
                node.meta["delegation_tag"] = "constants"
        if self.tag_constants:
            tag_constant_data(exported_program)
        spec = DelegationSpec(CapturingBackend.__name__, [])
        return PartitionResult(exported_program, {"constants": spec})
