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
from executorch.exir.pass_base import Argument, ExportPass, NodeMetadata, ProxyValue
from executorch.exir.program import to_edge
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.export import Dim, export, ExportedProgram
from torch.fx.passes.infra.pass_base import PassResult


class _SineFrequencies(torch.nn.Module):
    # #22309's model, reduced: a table that depends on x's size only.
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = torch.arange(x.shape[1], dtype=torch.float32)
        return x + 10000.0 ** (2 * torch.floor(t / 2) / 128)


class _ScaledRange(torch.nn.Module):
    # n is specialized away: the only tensor input left is the lifted 2.5.
    def forward(self, n: int) -> torch.Tensor:
        return (torch.arange(4, dtype=torch.float32) * 2.5).unsqueeze(0)


class _Tripling(ExportPass):
    # Multiplies the first output by a tensor it makes itself.
    def output(self, results: list[Argument], meta: NodeMetadata) -> ProxyValue:
        args = (results[0], torch.tensor(3.0))
        first = self.call_operator(exir_ops.edge.aten.mul.Tensor, args, {}, meta)
        return super().output([first, *results[1:]], meta)


class _Recording(ExportPass):
    # Keeps what its placeholder() receives (a tuple per instance).
    received: tuple[Argument, ...] = ()

    def placeholder(self, name: str, arg: Argument, meta: NodeMetadata) -> ProxyValue:
        self.received += (arg,)
        return super().placeholder(name, arg, meta)


class _OwnModeView(ExportPass):
    # Gives the last op a val of a new fake mode, as NXP's view conversion does.
    def call(self, graph_module: torch.fx.GraphModule) -> PassResult:
        *_, node, _ = graph_module.graph.nodes
        with FakeTensorMode():
            node.meta["val"] = torch.empty(node.meta["val"].shape)
        return super().call(graph_module)


class _PassesBackend(BackendDetails):
    # Runs `passes` over its delegate, as Vulkan's runs FuseBatchNormPass.
    passes: list[ExportPass] = []
    preprocessed: list[ExportedProgram] = []

    @staticmethod
    def preprocess(
        edge_program: ExportedProgram, compile_specs: list[CompileSpec]
    ) -> PreprocessResult:
        done = exir.EdgeProgramManager(edge_program).transform(_PassesBackend.passes)
        _PassesBackend.preprocessed.append(done.exported_program())
        return PreprocessResult(processed_bytes=b"")


class _TablePartitioner(Partitioner):
    # Delegates the ops that do not read x; untagged, constants come last.
    tag_constants = True

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        x = exported_program.graph_signature.user_inputs[0]
        for node in exported_program.graph_module.graph.nodes:
            if node.op == "call_function" and x not in map(str, node.all_input_nodes):
                node.meta["delegation_tag"] = "table"
        if self.tag_constants:
            tag_constant_data(exported_program)
        spec = DelegationSpec(_PassesBackend.__name__, [])
        return PartitionResult(exported_program, {"table": spec})


class TestExportPassFakeModeOfConstantInputs(unittest.TestCase):
    """ExportPass retraces a graph whose tensor inputs are all lifted constants
    (#22309) in their fake mode and holds it as fake_tensor_mode, so a tensor the
    pass makes joins it: a delegate of constants lowers, placeholder() gets their
    real values, and one pass instance retraces each method in the method's mode."""

    def _lower(self, passes: list[ExportPass], tagged: bool = True) -> ExportedProgram:
        # Lowers _SineFrequencies as eager runs it; what `passes` made of its table.
        _PassesBackend.passes, _PassesBackend.preprocessed = passes, []
        _TablePartitioner.tag_constants = tagged
        x = torch.randn(4, 128)
        program = exir.to_edge_transform_and_lower(
            export(_SineFrequencies(), (x,), dynamic_shapes={"x": {1: Dim("n")}}),
            partitioner=[_TablePartitioner()],
        ).exported_program()
        torch.testing.assert_close(program.module()(x), _SineFrequencies()(x))
        (delegate,) = _PassesBackend.preprocessed
        return delegate

    def test_delegate_of_lifted_constants_lowers(self) -> None:
        # A delegate of lifted constants and x's size, either first, lowers.
        for tagged in (True, False):
            with self.subTest(tagged=tagged):
                self._lower([ExportPass()], tagged)

    def test_placeholder_receives_the_constants_values(self) -> None:
        # placeholder() gets the constants' real values, in a second pass too.
        first, second = _Recording(), _Recording()
        delegate = self._lower([first, second])
        specs, state = delegate.graph_signature.input_specs, delegate.state_dict
        values = [state[s.target] for s in specs if s.target]
        for recording in (first, second):  # x's size aside
            received = [a for a in recording.received if isinstance(a, torch.Tensor)]
            self.assertEqual([type(a) for a in received], [torch.Tensor] * len(values))
            torch.testing.assert_close(received, values)

    def test_one_pass_instance_retraces_each_method_in_its_own_mode(self) -> None:
        # Methods exported on their own run through one instance of each pass:
        # one with a val of another mode in the graph, one that makes a tensor.
        # "scaled again" follows a method whose mode the instance still holds.
        methods = {
            "scaled": (_ScaledRange(), (3,)),
            "sine": (_SineFrequencies(), (torch.randn(4, 128),)),
            "scaled again": (_ScaledRange(), (4,)),
        }
        edge = to_edge({k: export(m, args) for k, (m, args) in methods.items()})
        edge = edge.transform([_OwnModeView(), _Tripling()])
        for name, (module, args) in methods.items():
            got = edge.exported_program(name).module()(*args)
            torch.testing.assert_close(got, module(*args) * 3)
