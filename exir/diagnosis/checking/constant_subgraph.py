"""The issue's reduced model through a test partitioner, with no backend of
ExecuTorch's involved: every node that depends on no user input is
delegated, with its constants, to a backend whose ``preprocess`` runs an
``ExportPass`` (as Vulkan's runs ``FuseBatchNormPass``). It is the lowering
of upstream's regression test, run on any installed release by the worker.
Importing this module imports torch and executorch.
"""

from typing import List, Set

import executorch.exir as exir
import torch
from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec
from executorch.exir.backend.partitioner import (
    DelegationSpec,
    Partitioner,
    PartitionResult,
)
from executorch.exir.backend.utils import tag_constant_data
from executorch.exir.pass_base import ExportPass
from torch.export import ExportedProgram

from ...shared.repro import SineFrequencies


class ExportPassBackend(BackendDetails):
    @staticmethod
    def preprocess(
        edge_program: ExportedProgram, compile_specs: List[CompileSpec]
    ) -> PreprocessResult:
        exir.EdgeProgramManager(edge_program).transform([ExportPass()])
        return PreprocessResult(processed_bytes=b"")


class InputIndependentPartitioner(Partitioner):
    def __init__(self) -> None:
        super().__init__()
        self.delegation_spec = DelegationSpec(ExportPassBackend.__name__, [])

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        user_inputs = set(exported_program.graph_signature.user_inputs)
        input_dependent: Set[torch.fx.Node] = set()
        for node in exported_program.graph_module.graph.nodes:
            if node.name in user_inputs or input_dependent & set(node.all_input_nodes):
                input_dependent.add(node)
            elif node.op == "call_function":
                node.meta["delegation_tag"] = "input_independent"
        tag_constant_data(exported_program)
        return PartitionResult(
            tagged_exported_program=exported_program,
            partition_tags={"input_independent": self.delegation_spec},
        )


def lower_constant_subgraph() -> int:
    """Lower the reduced model through the test partitioner; the number of
    delegates (raises what the lowering raises)."""
    program = torch.export.export(SineFrequencies(), (torch.randn(4, 128),))
    edge = exir.to_edge_transform_and_lower(
        program, partitioner=[InputIndependentPartitioner()]
    )
    graph = edge.exported_program().graph
    return sum(1 for n in graph.nodes if "executorch_call_delegate" in str(n.target))
