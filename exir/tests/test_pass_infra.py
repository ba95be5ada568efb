# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# pyre-strict

# What this project adds to upstream's exir/tests/test_pass_infra.py. The
# patch maker merges the import block below into upstream's (adding only the
# names that file lacks) and appends everything after it at the end of the
# file. Each test says in its first comment what behaviour it pins; none
# reads torch internals. Which wrong fixes each one fails is in docs/tests.md.

import unittest

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
from executorch.exir.lowered_backend_module import get_lowered_submodules
from executorch.exir.pass_base import Argument, ExportPass, NodeMetadata, ProxyValue
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.export import export, ExportedProgram
from torch.fx.experimental.symbolic_shapes import ShapeEnv


class _SineFrequencies(torch.nn.Module):
    # #22309's reduced model: frequencies that depend on no input.
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = torch.arange(128, dtype=torch.float32)
        return x + 10000.0 ** (2 * torch.div(t, 2, rounding_mode="floor") / 128)


class _ExportPassBackend(BackendDetails):
    # Runs an ExportPass, as Vulkan's preprocess runs FuseBatchNormPass.
    @staticmethod
    def preprocess(
        edge_program: ExportedProgram, compile_specs: list[CompileSpec]
    ) -> PreprocessResult:
        exir.EdgeProgramManager(edge_program).transform([ExportPass()])
        return PreprocessResult(processed_bytes=b"")


class _ConstantsPartitioner(Partitioner):
    # Delegates every op but the last, the one add that reads the input.
    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        graph = exported_program.graph_module.graph
        ops = [node for node in graph.nodes if node.op == "call_function"]
        for node in ops[:-1]:
            node.meta["delegation_tag"] = "constants"
        tag_constant_data(exported_program)
        spec = DelegationSpec(_ExportPassBackend.__name__, [])
        return PartitionResult(exported_program, {"constants": spec})


class TestExportPassFakeModeOfConstantInputs(unittest.TestCase):
    """ExportPass keeps the graph's fake mode for constant-only inputs (#22309)."""

    def _constant(self, value: torch.Tensor, mode: FakeTensorMode) -> FakeTensor:
        # As #22309 makes them: a FakeTensor that carries its real value.
        meta = torch.empty(value.shape, dtype=value.dtype, device="meta")
        return FakeTensor(mode, meta, torch.device("cpu"), constant=value)

    def _constants(self, mode: FakeTensorMode) -> list[FakeTensor]:
        # #22309's two constants.
        return [self._constant(torch.tensor(v), mode) for v in (2.0, 3.0)]

    def _graph(self, *vals: object) -> torch.fx.GraphModule:
        # One placeholder per val; their product, the last one first.
        graph = torch.fx.Graph()
        nodes = [graph.placeholder(f"p{i}") for i in range(len(vals))]
        for node, val in zip(nodes, vals, strict=True):
            node.meta["val"] = val
        product = nodes[-1]
        for node in reversed(nodes[:-1]):
            product = graph.call_function(torch.ops.aten.mul.Tensor, (product, node))
        graph.output((product,))
        return torch.fx.GraphModule(torch.nn.Module(), graph)

    def _modes_after(
        self, graph_module: torch.fx.GraphModule, export_pass: ExportPass | None = None
    ) -> list[FakeTensorMode]:
        # The fake modes of the graph that the pass returns.
        result = (export_pass or ExportPass())(graph_module)
        assert result is not None
        vals = [node.meta.get("val") for node in result.graph_module.graph.nodes]
        modes = [val.fake_mode for val in vals if isinstance(val, FakeTensor)]
        return [mode for i, mode in enumerate(modes) if mode not in modes[:i]]

    def test_constant_only_graph_keeps_its_fake_mode(self) -> None:
        # Constants alone keep their mode, also inside another active mode.
        mode = FakeTensorMode(allow_non_fake_inputs=True)
        self.assertEqual(self._modes_after(self._graph(*self._constants(mode))), [mode])
        graph_module = self._graph(*self._constants(mode))
        with FakeTensorMode():
            self.assertEqual(self._modes_after(graph_module), [mode])

    def test_constants_beside_a_non_tensor_input_keep_one_fake_mode(self) -> None:
        # A constant keeps its mode wherever it sits among int or SymInt inputs.
        shape_env = ShapeEnv()
        mode = FakeTensorMode(allow_non_fake_inputs=True, shape_env=shape_env)
        for other in (3, shape_env.create_unbacked_symint()):
            for at in range(3):
                vals: list[object] = [other, other]
                vals.insert(at, self._constant(torch.tensor(2.0), mode))
                with self.subTest(input=type(other).__name__, at=at):
                    graph_module = self._graph(*vals)
                    self.assertEqual(self._modes_after(graph_module), [mode])

    def test_constants_of_a_strict_mode_meet_computed_values(self) -> None:
        # A strict mode's constant keeps that mode times a computed value.
        mode = FakeTensorMode()
        graph = torch.fx.Graph()
        table = graph.placeholder("table")
        table.meta["val"] = self._constant(torch.arange(4.0), mode)
        arange = graph.call_function(torch.ops.aten.arange.start, (0.0, 4.0))
        graph.output((graph.call_function(torch.ops.aten.mul.Tensor, (arange, table)),))
        graph_module = torch.fx.GraphModule(torch.nn.Module(), graph)
        self.assertEqual(self._modes_after(graph_module), [mode])

    def test_vals_of_a_second_fake_mode_are_replaced(self) -> None:
        # An inner val of a second mode is retraced into the placeholders' mode.
        mode = FakeTensorMode(allow_non_fake_inputs=True)
        graph_module = self._graph(*self._constants(mode))
        with FakeTensorMode():
            list(graph_module.graph.nodes)[-2].meta["val"] = torch.empty(())
        self.assertEqual(self._modes_after(graph_module), [mode])

    def test_graph_without_fake_tensors_gets_a_new_fake_mode(self) -> None:
        # A graph without FakeTensor vals is still traced in one new mode.
        graph_module = self._graph(torch.tensor(2.0), torch.tensor(3.0))
        self.assertEqual(len(self._modes_after(graph_module)), 1)

    def test_placeholder_overrides_receive_the_constants_values(self) -> None:
        # After a retrace, placeholder() overrides still get the real constants.
        args: list[Argument] = []

        class Recorder(ExportPass):
            def placeholder(
                self, name: str, arg: Argument, meta: NodeMetadata
            ) -> ProxyValue:
                args.append(arg)
                return super().placeholder(name, arg, meta)

        mode = FakeTensorMode(allow_non_fake_inputs=True)
        result = ExportPass()(self._graph(*self._constants(mode)))
        assert result is not None
        self._modes_after(result.graph_module, Recorder())
        for arg, value in zip(args, (2.0, 3.0), strict=True):
            self.assertNotIsInstance(arg, FakeTensor)
            torch.testing.assert_close(arg, torch.tensor(value))

    def test_partitioned_constant_subgraph_lowers(self) -> None:
        # #22309's model lowers with one delegate, and its program matches eager.
        x = torch.randn(4, 128)
        edge = exir.to_edge_transform_and_lower(
            export(_SineFrequencies(), (x,)), partitioner=[_ConstantsPartitioner()]
        )
        program = edge.exported_program()
        self.assertEqual(len(get_lowered_submodules(program.graph_module)), 1)
        torch.testing.assert_close(program.module()(x), _SineFrequencies()(x))
