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
from executorch.exir.backend.utils import tag_constant_data
from executorch.exir.dialects._ops import ops as exir_ops
from executorch.exir.lowered_backend_module import LoweredBackendModule
from executorch.exir.pass_base import Argument, ExportPass, NodeMetadata, ProxyValue
from executorch.exir.program import to_edge
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.export import Dim, export, ExportedProgram


class _SineFrequencies(torch.nn.Module):
    # #22309's model, reduced: a table that depends on x's size only.
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = torch.arange(x.shape[1], dtype=torch.float32)
        return x + 10000.0 ** (2 * torch.floor(t / 2) / 128)


class _Tripling(ExportPass):
    # Keeps placeholder() args; triples the output by a tensor it makes and keeps.
    received: tuple[Argument, ...] = ()
    made: tuple[tuple[torch.Tensor, FakeTensorMode | None], ...] = ()

    def placeholder(self, name: str, arg: Argument, meta: NodeMetadata) -> ProxyValue:
        self.received += (arg,)
        return super().placeholder(name, arg, meta)

    def output(self, results: list[Argument], meta: NodeMetadata) -> ProxyValue:
        three = torch.tensor(3.0)
        self.made += ((three, self.fake_tensor_mode),)
        args = (results[0], three)
        first = self.call_operator(exir_ops.edge.aten.mul.Tensor, args, {}, meta)
        return super().output([first, *results[1:]], meta)


class _PassesBackend(BackendDetails):
    # Runs `passes` over its delegate, as Vulkan's runs FuseBatchNormPass.
    passes: list[ExportPass] = []

    @staticmethod
    def preprocess(
        edge_program: ExportedProgram, compile_specs: list[CompileSpec]
    ) -> PreprocessResult:
        exir.EdgeProgramManager(edge_program).transform(_PassesBackend.passes)
        return PreprocessResult(processed_bytes=b"")


class _TablePartitioner(Partitioner):
    # Delegates the ops that do not read x, the constants' casts only if `casts`.
    def __init__(self, casts: bool) -> None:
        super().__init__()
        self.casts = casts

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        (x,) = exported_program.graph_signature.user_inputs
        cast = exir_ops.edge.dim_order_ops._to_dim_order_copy.default
        for node in exported_program.graph_module.graph.nodes:
            if node.target == cast and not self.casts:
                continue
            if node.op == "call_function" and x not in map(str, node.all_input_nodes):
                node.meta["delegation_tag"] = "table"
        tag_constant_data(exported_program)
        spec = DelegationSpec(_PassesBackend.__name__, [])
        return PartitionResult(exported_program, {"table": spec})


class TestExportPassFakeModeOfConstantInputs(unittest.TestCase):
    """ExportPass retraces a graph in its placeholders' fake mode, even if its tensor
    inputs are all lifted constants (#22309; placeholder() gets their values), else in a
    new one (what call() makes is fake), held as fake_tensor_mode in and after it."""

    def _lower(self, passes: list[ExportPass], casts: bool = True) -> ExportedProgram:
        # Lowers _SineFrequencies as eager runs it; returns the table it delegated.
        _PassesBackend.passes = passes
        self.addCleanup(setattr, _PassesBackend, "passes", [])
        x = torch.randn(4, 128)
        program = exir.to_edge_transform_and_lower(
            export(_SineFrequencies(), (x,), dynamic_shapes={"x": {1: Dim("n")}}),
            partitioner=[_TablePartitioner(casts)],
        ).exported_program()
        torch.testing.assert_close(program.module()(x), _SineFrequencies()(x))
        lowered = program.graph_module.lowered_module_0
        assert isinstance(lowered, LoweredBackendModule)
        return lowered.original_module

    def test_delegate_of_lifted_constants_lowers(self) -> None:
        # A delegate of x's size and lifted constants lowers, or of the constants' casts.
        self._lower([ExportPass()], casts=True)
        self._lower([ExportPass()], casts=False)

    def test_placeholder_receives_the_constants_values(self) -> None:
        # placeholder() gets the constants' real values, in two passes in a row.
        first, second = _Tripling(), _Tripling()
        values = list(self._lower([first, second]).state_dict.values())
        for tripling in (first, second):  # x's size aside
            received = [a for a in tripling.received if isinstance(a, torch.Tensor)]
            self.assertEqual([type(a) for a in received], [torch.Tensor] * len(values))
            torch.testing.assert_close(received, values)

    def test_one_pass_instance_retraces_each_method_in_its_own_mode(self) -> None:
        # One instance retraces each method in its own mode, held in and after call().
        class ScaledRange(torch.nn.Module):  # n keeps a placeholder: 2.5 is lifted
            def forward(self, n: int) -> torch.Tensor:
                return (torch.arange(4, dtype=torch.float32) * 2.5).unsqueeze(0)

        class Ones(torch.nn.Module):  # no placeholder
            def forward(self) -> torch.Tensor:
                return torch.ones(1, 4)

        methods = {  # exported apart: each has its own fake mode
            "scaled": export(ScaledRange(), (3,)),
            "sine": export(_SineFrequencies(), (torch.randn(4, 128),)),
            "ones": export(Ones(), ()),
            "scaled_again": export(ScaledRange(), (4,)),
        }
        edge, tripling = to_edge(methods), _Tripling()
        for name in methods:  # one pass instance over them all, in turn
            gm = edge.exported_program(name).graph_module
            inputs = [p.meta["val"] for p in gm.graph.find_nodes(op="placeholder")]
            own = {v.fake_mode for v in inputs if isinstance(v, FakeTensor)}
            last_op = list(gm.graph.nodes)[-2]
            with FakeTensorMode():  # as NXP's passes leave one: not the graph's mode
                last_op.meta["val"] = torch.empty(last_op.meta["val"].shape)
            vals = [n.meta["val"] for n in tripling.call(gm).graph_module.graph.nodes]
            three, held = tripling.made[-1]  # made while retracing: fake, in that mode
            modes = {getattr(three, "fake_mode", None), held, tripling.fake_tensor_mode}
            modes |= {v.fake_mode for v in vals if isinstance(v, FakeTensor)}
            self.assertEqual(modes, {held} if not own else own, name)
