# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# pyre-strict

# What this project adds to upstream's exir/tests/test_pass_infra.py. The
# patch maker merges the import block below into upstream's (adding only the
# names that file lacks) and appends everything after it at the end of the
# file.

import unittest
from typing import final

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


class _SineFrequencies(torch.nn.Module):
    # The reduced model of #22309: the frequencies of a sine position
    # embedding, a subgraph that depends on no input.
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = torch.arange(128, dtype=torch.float32)
        t = 10000.0 ** (2 * torch.div(t, 2, rounding_mode="floor") / 128)
        return x + t


@final
class _ExportPassBackend(BackendDetails):
    # Runs an ExportPass over the delegated program, as Vulkan's preprocess
    # runs FuseBatchNormPass.
    @staticmethod
    def preprocess(
        edge_program: ExportedProgram, compile_specs: list[CompileSpec]
    ) -> PreprocessResult:
        exir.EdgeProgramManager(edge_program).transform([ExportPass()])
        return PreprocessResult(processed_bytes=b"_ExportPassBackend")


@final
class _InputIndependentPartitioner(Partitioner):
    # Delegates the nodes that depend on no user input, with the constants
    # they use: the delegated program has placeholders but no user input.
    def __init__(self) -> None:
        super().__init__()
        self.delegation_spec = DelegationSpec(_ExportPassBackend.__name__, [])

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        user_inputs = set(exported_program.graph_signature.user_inputs)
        input_dependent: set[torch.fx.Node] = set()
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


@final
class _PlaceholderRecorder(ExportPass):
    # Records what placeholder() overrides receive, and whether the retrace
    # runs under the python dispatcher.
    def __init__(self) -> None:
        super().__init__()
        self.args: list[Argument] = []
        self.under_python_dispatcher: list[bool] = []

    def placeholder(self, name: str, arg: Argument, meta: NodeMetadata) -> ProxyValue:
        self.args.append(arg)
        self.under_python_dispatcher.append(
            torch._C._dispatch_tls_is_dispatch_key_included(
                torch._C.DispatchKey.PythonDispatcher
            )
        )
        return super().placeholder(name, arg, meta)


class TestExportPassFakeModeOfConstantInputs(unittest.TestCase):
    """
    ExportPass retraces under the graph's own FakeTensorMode when every
    placeholder is a lifted constant (pytorch/executorch#22309).
    """

    def setUp(self) -> None:
        # FakeTensorMode's default, which lets no real tensor in: the pass
        # must allow the constants' values, as it does for fake inputs.
        self.mode = FakeTensorMode()

    def _constant(self, value: float, mode: FakeTensorMode) -> FakeTensor:
        # A FakeTensor made this way carries its real value in .constant, as
        # the lifted constants of an exported program do.
        with mode:
            constant = torch.tensor(value)
        assert isinstance(constant, FakeTensor)
        return constant

    def _mul_graph(
        self, lhs_val: torch.Tensor, rhs_val: torch.Tensor
    ) -> torch.fx.GraphModule:
        # Only the placeholders carry a val: the tests decide which tensors,
        # fake or real, the graph holds before ExportPass retraces it.
        graph = torch.fx.Graph()
        lhs = graph.placeholder("c_lhs")
        rhs = graph.placeholder("c_rhs")
        lhs.meta["val"] = lhs_val
        rhs.meta["val"] = rhs_val
        graph.output((graph.call_function(torch.ops.aten.mul.Tensor, (lhs, rhs)),))
        return torch.fx.GraphModule(torch.nn.Module(), graph)

    def _retrace(
        self, graph_module: torch.fx.GraphModule, export_pass: ExportPass
    ) -> torch.fx.GraphModule:
        result = export_pass(graph_module)
        assert result is not None
        return result.graph_module

    def _fake_modes(self, graph_module: torch.fx.GraphModule) -> list[FakeTensorMode]:
        modes: list[FakeTensorMode] = []
        for node in graph_module.graph.nodes:
            val = node.meta.get("val")
            for v in val if isinstance(val, (list, tuple)) else [val]:
                if isinstance(v, FakeTensor) and v.fake_mode not in modes:
                    modes.append(v.fake_mode)
        return modes

    def test_constant_only_inputs_keep_the_graph_fake_mode(self) -> None:
        lhs = self._constant(2.0, self.mode)
        self.assertIsNotNone(lhs.constant)
        graph_module = self._mul_graph(lhs, self._constant(3.0, self.mode))

        result = self._retrace(graph_module, ExportPass())

        modes = self._fake_modes(result)
        self.assertEqual(len(modes), 1, "ExportPass opened a second FakeTensorMode")
        self.assertIs(modes[0], self.mode)
        (output_val,) = result.graph.output_node().meta["val"]
        torch.testing.assert_close(output_val.constant, torch.tensor(6.0))

    def test_fake_input_decides_the_fake_mode(self) -> None:
        # The constant belongs to another mode: the FakeTensor input, not the
        # constant, decides which mode the graph is retraced under.
        other_mode = FakeTensorMode(allow_non_fake_inputs=True)
        with self.mode:
            plain_fake = torch.empty(())
        graph_module = self._mul_graph(self._constant(2.0, other_mode), plain_fake)

        result = self._retrace(graph_module, ExportPass())

        (output_val,) = result.graph.output_node().meta["val"]
        self.assertIs(output_val.fake_mode, self.mode)

    def test_inputs_without_fake_tensors_use_a_new_fake_mode(self) -> None:
        graph_module = self._mul_graph(torch.tensor(2.0), torch.tensor(3.0))
        self.assertEqual(self._fake_modes(graph_module), [])

        export_pass = ExportPass()
        result = self._retrace(graph_module, export_pass)

        fake_tensor_mode = export_pass.fake_tensor_mode
        assert fake_tensor_mode is not None
        self.assertTrue(fake_tensor_mode.allow_non_fake_inputs)
        self.assertEqual(self._fake_modes(result), [fake_tensor_mode])

    def test_constant_only_inputs_meet_computed_values(self) -> None:
        # A 4-element constant times a value the graph computes (a FakeTensor
        # on retrace), as in a sine embedding's delegate: the graph's mode,
        # which refuses real tensors, must let the constant's value in.
        value = torch.arange(4, dtype=torch.float32)
        with self.mode:
            meta = torch.empty(value.shape, dtype=value.dtype, device="meta")
        graph = torch.fx.Graph()
        constant = graph.placeholder("c_table")
        constant.meta["val"] = FakeTensor(
            self.mode, meta, torch.device("cpu"), constant=value
        )
        arange = graph.call_function(
            torch.ops.aten.arange.start_step, (0, 4), {"dtype": torch.float32}
        )
        graph.output(
            (graph.call_function(torch.ops.aten.mul.Tensor, (arange, constant)),)
        )

        result = self._retrace(
            torch.fx.GraphModule(torch.nn.Module(), graph), ExportPass()
        )

        self.assertEqual(self._fake_modes(result), [self.mode])

    def test_constant_only_inputs_retrace_under_the_python_dispatcher(self) -> None:
        # As every graph with a FakeTensor input is retraced.
        with self.mode:
            plain_fake = torch.empty(())
        for lhs in (self._constant(2.0, self.mode), plain_fake):
            recorder = _PlaceholderRecorder()
            self._retrace(
                self._mul_graph(lhs, self._constant(3.0, self.mode)), recorder
            )
            self.assertEqual(recorder.under_python_dispatcher, [True, True])

    def test_placeholder_overrides_receive_the_constants_values(self) -> None:
        recorder = _PlaceholderRecorder()
        graph_module = self._mul_graph(
            self._constant(2.0, self.mode), self._constant(3.0, self.mode)
        )

        self._retrace(graph_module, recorder)

        for arg, value in zip(recorder.args, (2.0, 3.0), strict=True):
            self.assertNotIsInstance(arg, FakeTensor)
            torch.testing.assert_close(arg, torch.tensor(value))

    def test_placeholders_decide_over_stale_vals_of_other_nodes(self) -> None:
        graph_module = self._mul_graph(
            self._constant(2.0, self.mode), self._constant(3.0, self.mode)
        )
        # A val of another mode, as an earlier retrace under a second mode
        # left it (#22309); the retrace replaces it.
        (mul,) = graph_module.graph.find_nodes(
            op="call_function", target=torch.ops.aten.mul.Tensor
        )
        with FakeTensorMode():
            mul.meta["val"] = torch.empty(())

        result = self._retrace(graph_module, ExportPass())

        self.assertEqual(self._fake_modes(result), [self.mode])

    def test_constant_inputs_of_two_fake_modes_are_rejected(self) -> None:
        # New with the fix: such a graph used to be retraced under a third
        # mode without complaint.
        other_mode = FakeTensorMode(allow_non_fake_inputs=True)
        graph_module = self._mul_graph(
            self._constant(2.0, self.mode), self._constant(3.0, other_mode)
        )

        with self.assertRaisesRegex(
            AssertionError, "Multiple fake tensor mode detected."
        ):
            ExportPass()(graph_module)

    def test_backend_pass_on_a_partitioned_constant_subgraph(self) -> None:
        exported = export(_SineFrequencies(), (torch.randn(4, 128),))

        edge = exir.to_edge_transform_and_lower(
            exported, partitioner=[_InputIndependentPartitioner()]
        )

        ((_, lowered, _),) = get_lowered_submodules(
            edge.exported_program().graph_module
        )
        self.assertEqual(lowered.processed_bytes, b"_ExportPassBackend")
        # The trigger of #22309: the delegated program has placeholders, and
        # each one's val is a FakeTensor carrying its constant, which
        # ExportPass.inputs() unwraps to a real tensor.
        vals = [
            node.meta["val"]
            for node in lowered.original_module.graph.nodes
            if node.op == "placeholder"
        ]
        self.assertGreater(len(vals), 0)
        for val in vals:
            self.assertIsInstance(val, FakeTensor)
            self.assertIsNotNone(val.constant)
