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
from contextlib import nullcontext
from typing import Callable

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
from executorch.exir.pass_base import (
    Argument,
    ExportPass,
    ExportPassBaseError,
    NodeMetadata,
    ProxyValue,
)
from torch import fx
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.export import Dim, export, ExportedProgram


class _SineFrequencies(torch.nn.Module):
    # #22309's reduced model: frequencies that depend on no input's values.
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = torch.arange(x.shape[1], dtype=torch.float32)
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
    # Delegates every op that does not read the user input x: in
    # _SineFrequencies, all the ops that compute the frequencies.
    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        x = exported_program.graph_signature.user_inputs[0]
        for node in exported_program.graph_module.graph.nodes:
            if node.op == "call_function" and x not in map(str, node.all_input_nodes):
                node.meta["delegation_tag"] = "constants"
        tag_constant_data(exported_program)
        spec = DelegationSpec(_ExportPassBackend.__name__, [])
        return PartitionResult(exported_program, {"constants": spec})


class _ScalingPass(ExportPass):
    # Scales the first output by a tensor it makes itself.
    def output(self, results: list[Argument], meta: NodeMetadata) -> ProxyValue:
        args = (results[0], torch.tensor(3.0))
        first = self.call_operator(torch.ops.aten.mul.Tensor, args, {}, meta)
        return super().output([first, *results[1:]], meta)


def _constant(mode: FakeTensorMode) -> FakeTensor:
    # A lifted constant's val, built by hand: a FakeTensorMode keeps .constant
    # only on one-element tensors, and from_tensor never sets it.
    meta = torch.empty((), device="meta")
    return FakeTensor(mode, meta, torch.device("cpu"), constant=torch.tensor(2.0))


def _graph(read: tuple[object, ...], unread: tuple[object, ...] = ()) -> fx.GraphModule:
    # A placeholder per val, after an arange (its val stale, of another mode:
    # no mode to take), as a partitioner's subgraph may start. It returns the
    # arange times each read one, then the unread ones but the first.
    graph = fx.Graph()
    product = graph.call_function(torch.ops.aten.arange.start, (0.0, 4.0))
    product.meta["val"] = FakeTensorMode().from_tensor(torch.arange(4.0))
    nodes = [graph.placeholder(f"p{i}") for i in range(len(read + unread))]
    for node, val in zip(nodes, read + unread):
        node.meta["val"] = val
    for node in nodes[: len(read)]:
        product = graph.call_function(torch.ops.aten.mul.Tensor, (product, node))
    graph.output((product, *nodes[len(read) + 1 :]))
    return fx.GraphModule(torch.nn.Module(), graph)


def _modes(result: object, skip: str = "") -> set[FakeTensorMode]:
    # The fake modes of a result's (or graph's) vals, outputs' too, but op skip's.
    graph_module = getattr(result, "graph_module", result)
    assert isinstance(graph_module, fx.GraphModule), result  # else what call raised
    vals = [n.meta.get("val") for n in graph_module.graph.nodes if n.op != skip]
    leaves = [v for val in vals for v in (val if isinstance(val, tuple) else [val])]
    return {v.fake_mode for v in leaves if isinstance(v, FakeTensor)}


class TestExportPassFakeModeOfConstantInputs(unittest.TestCase):
    """ExportPass's fake modes (#22309), one instance run over several graphs,
    directly and in a torch.compile backend. Placeholders' FakeTensors (lifted
    constants too) in one mode: all of the result's are in it, also in another
    active FakeTensorMode. Two modes: computed values take the plain input's;
    constants alone may raise. No FakeTensor: a new mode each. The graph given
    keeps its vals."""

    def _run(
        self, graphs: dict[str, Callable[[], fx.GraphModule]], *contexts: str
    ) -> list[tuple[str, fx.GraphModule, object]]:
        # (case, graph given, result or error), one pass instance per context.
        results: list[tuple[str, fx.GraphModule, object]] = []

        def run(export_pass: ExportPass) -> None:
            for case, gm in cases:
                vals = [node.meta.get("val") for node in gm.graph.nodes]
                try:
                    result: object = export_pass(gm)
                except Exception as error:
                    result = error
                kept = all(n.meta.get("val") is v for n, v in zip(gm.graph.nodes, vals))
                results.append((case, gm, result if kept else "the graph lost vals"))

        def backend(gm: fx.GraphModule, _: object) -> Callable[..., object]:
            run(ExportPass())  # tensors a pass makes: the other contexts test them
            return gm.forward

        for context in ("directly", *contexts):
            cases = [(f"{name}, {context}", build()) for name, build in graphs.items()]
            if context == "compiling":
                torch.compiler.reset()
                torch.compile(lambda x: x + 1, backend=backend)(torch.ones(1))
            else:
                with FakeTensorMode() if context != "directly" else nullcontext():
                    run(_ScalingPass())
        return results

    def test_placeholders_of_one_fake_mode_keep_it(self) -> None:
        # Every FakeTensor of the result is in the placeholders' one mode.
        mode, other = FakeTensorMode(), FakeTensorMode()  # graphs of either
        c, x = lambda: _constant(mode), mode.from_tensor(torch.ones(()))
        graphs = {
            "two constants": lambda: _graph((c(), c())),
            "a plain input and a constant": lambda: _graph((x, c())),
            "two ints, then a constant": lambda: _graph((3, 4, _constant(other))),
            "a constant, then an int": lambda: _graph((c(), 3)),
            "an int, a constant unread": lambda: _graph((3,), (_constant(other),)),
            "an int, constants unread, returned": lambda: _graph((3,), (c(), c())),
        }
        for case, given, result in self._run(graphs, "in a fake mode", "compiling"):
            with self.subTest(case=case):
                self.assertEqual(_modes(result), _modes(given, "call_function"))

    def test_graph_without_fake_tensors_gets_a_new_fake_mode(self) -> None:
        # Each such graph is traced in one mode that no earlier call used.
        # Not in another FakeTensorMode, whose mode may take over, fixed or not.
        graphs = {
            "a real tensor": lambda: _graph((torch.tensor(2.0),)),
            "an int": lambda: _graph((3,)),
            "a real tensor, an int unread": lambda: _graph((torch.tensor(2.0),), (3,)),
        }
        seen: set[FakeTensorMode] = set()
        for case, given, result in self._run(graphs, "compiling"):
            with self.subTest(case=case):
                modes = _modes(result)
                self.assertEqual(len(modes), 1)
                self.assertFalse(modes & (seen | _modes(given)), "an older mode")
                seen |= modes

    def test_two_fake_modes_keep_the_plain_inputs_mode(self) -> None:
        # Computed values take the plain input's mode; constants alone may raise.
        mode, other = FakeTensorMode(), FakeTensorMode()
        x = mode.from_tensor(torch.ones(()))
        graphs = {
            "a plain input first": lambda: _graph((x, _constant(other))),
            "a plain input last": lambda: _graph((_constant(other), x)),
            "constants alone": lambda: _graph((_constant(mode), _constant(other))),
        }
        for case, _, result in self._run(graphs, "in a fake mode", "compiling"):
            with self.subTest(case=case):
                if not case.startswith("constants alone"):
                    self.assertEqual(_modes(result, "placeholder"), {mode})
                elif isinstance(result, Exception):  # one of ExportPass's own
                    self.assertIsInstance(result, (AssertionError, ExportPassBaseError))
                else:
                    self.assertIn(_modes(result, "placeholder"), [{mode}, {other}])

    def test_placeholder_overrides_receive_the_constants_values(self) -> None:
        # placeholder() overrides get the real values of lifted constants.
        args: list[Argument] = []

        class Recorder(ExportPass):
            def placeholder(
                self, name: str, arg: Argument, meta: NodeMetadata
            ) -> ProxyValue:
                args.append(arg)
                return super().placeholder(name, arg, meta)

        Recorder()(_graph((_constant(FakeTensorMode()),) * 2))
        torch.testing.assert_close(args, [torch.tensor(2.0)] * 2)

    def test_partitioned_constant_subgraph_lowers(self) -> None:
        # #22309's model lowers with one delegate, and its program matches eager.
        # The delegate's inputs: the lifted constants and a SymInt, x's size.
        x, dims = torch.randn(4, 128), {"x": {1: Dim("n")}}
        program = exir.to_edge_transform_and_lower(
            export(_SineFrequencies(), (x,), dynamic_shapes=dims),
            partitioner=[_ConstantsPartitioner()],
        ).exported_program()
        self.assertEqual(len(get_lowered_submodules(program.graph_module)), 1)
        x = torch.randn(4, 64)
        torch.testing.assert_close(program.module()(x), _SineFrequencies()(x))
