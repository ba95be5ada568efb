# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# pyre-strict

# What this project adds to upstream's exir/tests/test_pass_infra.py. The
# patch maker merges the import block below into upstream's (adding only the
# names that file lacks) and appends everything after it at the end of the
# file. Each test says in its first comment what behaviour it pins.

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
from executorch.exir.dialects._ops import ops as exir_ops
from executorch.exir.pass_base import Argument, ExportPass, NodeMetadata, ProxyValue
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.export import Dim, export, ExportedProgram


class _SineFrequencies(torch.nn.Module):  # like #22309's model: a table of x's size
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = torch.arange(x.shape[1], dtype=torch.float32)
        return x + 10000.0 ** (2 * torch.floor(t / 2) / 128)


class _Scaled(torch.nn.Module):  # placeholders: a lifted constant, and n if given
    def forward(self, n: int = 0) -> torch.Tensor:
        return torch.tensor([1.0, 2.0]).unsqueeze(0) * 2.5


class _PassesBackend(BackendDetails):  # runs a pass, as Vulkan's FuseBatchNormPass
    @staticmethod
    def preprocess(
        edge_program: ExportedProgram, compile_specs: list[CompileSpec]
    ) -> PreprocessResult:
        exir.EdgeProgramManager(edge_program).transform([_Recording()])
        return PreprocessResult(processed_bytes=b"")


class _TablePartitioner(Partitioner):
    # Delegates the ops that read neither x nor a lifted constant: the delegate's
    # inputs are x's size and the casts, whose vals hold the constants' values.
    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        (x,) = exported_program.graph_signature.user_inputs
        cast = exir_ops.edge.dim_order_ops._to_dim_order_copy.default
        for node in exported_program.graph_module.graph.nodes:
            reads_x = x in [arg.name for arg in node.all_input_nodes]
            if node.op == "call_function" and node.target != cast and not reads_x:
                node.meta["delegation_tag"] = "table"
        spec = DelegationSpec(_PassesBackend.__name__, [])
        return PartitionResult(exported_program, {"table": spec})


class _Recording(ExportPass):
    # Keeps what placeholder() gets, the mode held and a tensor made in output().
    def __init__(self) -> None:
        super().__init__()
        self.received: list[Argument] = []
        self.held: list[FakeTensorMode | None] = []
        self.made: list[torch.Tensor] = []
        self.real = torch.tensor(3.0)  # output() scales by it, as FuseBatchNormPass

    def placeholder(self, name: str, arg: Argument, meta: NodeMetadata) -> ProxyValue:
        self.received.append(arg)
        self.held.append(self.fake_tensor_mode)
        return super().placeholder(name, arg, meta)

    def output(self, results: list[Argument], meta: NodeMetadata) -> ProxyValue:
        self.made.append(torch.tensor(3.0))
        args = (results[0], self.real)
        first = self.call_operator(exir_ops.edge.aten.mul.Tensor, args, {}, meta)
        return super().output([first, *results[1:]], meta)


def _modes(gm: torch.fx.GraphModule, *made: torch.Tensor) -> set[object]:
    # The fake modes of gm's tensor vals and of `made` (None: a real tensor).
    vals = [node.meta.get("val") for node in gm.graph.nodes] + list(made)
    return {getattr(v, "fake_mode", None) for v in vals if isinstance(v, torch.Tensor)}


class TestExportPassFakeModeOfConstantInputs(unittest.TestCase):
    """ExportPass retraces a graph in its placeholders' fake mode, held as
    fake_tensor_mode, even if they are lifted constants (#22309), else in a new one."""

    def test_delegate_of_lifted_constants_lowers(self) -> None:
        # A delegate whose inputs are x's size and casts of lifted constants lowers.
        x = torch.randn(4, 128)
        lowered = exir.to_edge_transform_and_lower(
            export(_SineFrequencies(), (x,), dynamic_shapes={"x": {1: Dim("n")}}),
            partitioner=[_TablePartitioner()],
        )
        module = lowered.exported_program().module()
        torch.testing.assert_close(module(x), _SineFrequencies()(x), msg="lowers")

    def test_placeholder_receives_the_constants_values(self) -> None:
        # placeholder() gets the constants' real values, in two passes in a row.
        program, first, second = export(_Scaled(), (3,)), _Recording(), _Recording()
        second.call(first.call(program.graph_module).graph_module)
        want = [*program.constants.values(), 3]  # the one constant, then n
        for got in (first.received, second.received):
            self.assertEqual([type(a) for a in got], [torch.Tensor, int], "real values")
            torch.testing.assert_close(list(got), want, msg="the constants' values")

    def test_one_constant_graph_retraces_in_its_placeholders_mode(self) -> None:
        # A one-constant graph retraces in its placeholders' mode, not in its ops'.
        gm, recording = export(_Scaled(), ()).graph_module, _Recording()
        own = _modes(gm)
        (last,) = gm.graph.output_node().args[0]  # a foreign val, as NXP's passes set
        last.meta["val"] = FakeTensorMode().from_tensor(torch.empty(1, 2))
        modes = _modes(recording.call(gm).graph_module, *recording.made)
        self.assertEqual(modes, own, "retraced in the placeholders' mode")

    def test_one_pass_instance_retraces_each_graph_in_its_own_mode(self) -> None:
        # One instance retraces each graph in its mode, held in and after call().
        programs = [export(_SineFrequencies(), (torch.randn(4, 128),))]
        programs += [export(_Scaled(), (n,)) for n in (3, 4)]  # each its own mode
        recording = _Recording()
        for gm in [p.graph_module for p in programs]:  # x, then a constant beside n
            modes = _modes(recording.call(gm).graph_module, recording.made[-1])
            modes |= {recording.held[-1], recording.fake_tensor_mode}
            self.assertEqual(modes, _modes(gm), "each graph in its own mode, held")

    def test_graph_without_inputs_retraces_fake(self) -> None:
        # A graph without placeholders retraces fake, in one mode.
        class Ones(torch.nn.Module):
            def forward(self) -> torch.Tensor:
                return torch.ones(1, 4)

        gm, recording = export(Ones(), ()).graph_module, _Recording()
        modes = _modes(recording.call(gm).graph_module, *recording.made)
        self.assertTrue(len(modes) == 1 and None not in modes, "one fake mode")

    def test_pass_that_raises_leaves_no_mode_entered(self) -> None:
        # A pass that raises leaves no fake mode entered: eager tensors stay real.
        recording, gm = _Recording(), export(_Scaled(), ()).graph_module
        recording.real = torch.ones(3)  # so that output()'s mul by it raises
        self.assertRaises(RuntimeError, recording.call, gm)
        self.assertNotIsInstance(torch.ones(1), FakeTensor, "no mode left entered")
