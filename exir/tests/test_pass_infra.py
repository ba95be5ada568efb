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
from typing import Any, Callable

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
    _ExportPassBase,
    Argument,
    ExportPass,
    NodeMetadata,
    ProxyValue,
)
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


class _ScalingPass(ExportPass):
    # Scales the first output by a constant it makes itself.
    def output(self, results: list[Argument], meta: NodeMetadata) -> ProxyValue:
        args = (results[0], torch.tensor(3.0))
        first = self.call_operator(torch.ops.aten.mul.Tensor, args, {}, meta)
        return super().output([first, *results[1:]], meta)


def _in_compile_backend(run: Callable[[], None]) -> None:
    # torch.compile calls a backend in a TracingContext of its own fake mode.
    def backend(gm: torch.fx.GraphModule, _: object) -> Callable[..., object]:
        run()
        return gm.forward

    torch.compiler.reset()
    torch.compile(lambda x: x + 1, backend=backend, fullgraph=True)(torch.ones(1))


class TestExportPassFakeModeOfConstantInputs(unittest.TestCase):
    """The fake modes of ExportPass's result (#22309):
    1. If the placeholders' FakeTensors (lifted constants too) share one mode
       M, every FakeTensor of the result (placeholders, values computed or
       made by the pass, outputs) is in M, whatever the pass ran before, in
       no active mode, another FakeTensorMode or a torch.compile backend.
    2. A graph without FakeTensor placeholders is traced in one new mode.
    3. Placeholders of two modes: the values the pass computes take a plain
       (non-constant) FakeTensor input's mode, constants of another retraced
       into it; constants alone in two modes raise or take one of theirs.
    4. The graph the pass is given keeps its vals.
    """

    def _constant(self, mode: FakeTensorMode) -> FakeTensor:
        # A lifted constant's val, built by hand: a FakeTensorMode keeps
        # .constant only on one-element tensors, from_tensor never sets it.
        meta = torch.empty((), device="meta")
        return FakeTensor(mode, meta, torch.device("cpu"), constant=torch.tensor(2.0))

    def _graph(self, layout: str) -> tuple[torch.fx.GraphModule, FakeTensorMode]:
        # A placeholder per letter: c constant, x plain FakeTensor (R: also a
        # real meta["args"]), C constant of another mode, i int, s SymInt, r
        # real tensor, u unread constant, n val-less, o constant returned. It
        # returns arange (val of another mode) times each read one; and M.
        mode, other = FakeTensorMode(shape_env=ShapeEnv()), FakeTensorMode()  # strict
        assert mode.shape_env is not None
        x, s = mode.from_tensor(torch.ones(())), mode.shape_env.create_unbacked_symint()
        vals = {"C": self._constant(other), "x": x, "R": x, "i": 3, "s": s}
        vals["r"] = torch.tensor(2.0)
        graph = torch.fx.Graph()
        mul, arange = torch.ops.aten.mul.Tensor, torch.ops.aten.arange.start
        product = graph.call_function(arange, (0.0, 4.0))
        product.meta["val"] = other.from_tensor(torch.arange(4.0))
        for i, letter in enumerate(layout):
            with graph.inserting_before(product):
                node = graph.placeholder(f"p{i}")
            if letter != "n":
                node.meta["val"] = vals.get(letter, self._constant(mode))
            if letter not in "uno":
                product = graph.call_function(mul, (product, node))
        nodes = zip(graph.find_nodes(op="placeholder"), layout)
        graph.output((product, *[node for node, letter in nodes if letter == "o"]))
        graph_module = torch.fx.GraphModule(torch.nn.Module(), graph)
        if "R" in layout:  # inputs() then takes these, not the vals
            graph_module.meta["args"] = [torch.ones(()) for _ in layout]
        return graph_module, mode

    def _results(self, layouts: str) -> list[tuple[str, FakeTensorMode, object, Any]]:
        # (case, M, result, error or "changed" where the graph given lost its
        # vals, the graph given) through _ScalingPass and _ExportPassBase (one
        # instance each for all graphs, as transform() runs one over methods).
        results: list[tuple[str, FakeTensorMode, object, Any]] = []

        def run() -> None:
            for case, export_pass, (graph_module, mode) in cases:
                vals = [n.meta.get("val") for n in graph_module.graph.nodes]
                try:
                    got: object = export_pass(graph_module)
                except Exception as error:
                    got = error
                now = [n.meta.get("val") for n in graph_module.graph.nodes]
                got = got if all(a is b for a, b in zip(vals, now)) else "changed"
                results.append((case, mode, got, graph_module))

        for context in ("directly", "in a fake mode", "compiling"):
            cases = [
                (f"{layout} {type(p).__name__} {context}", p, self._graph(layout))
                for p in (_ScalingPass(), _ExportPassBase())
                for layout in layouts.split()
                if "n" not in layout or type(p) is _ExportPassBase
            ]
            if context == "compiling":
                _in_compile_backend(run)
            else:
                with FakeTensorMode() if context != "directly" else nullcontext():
                    run()
        return results

    def _modes(self, result: object, skip: str = "") -> set[object]:
        # The fake modes of a result's (or a graph's) vals, but of op skip.
        graph_module = getattr(result, "graph_module", result)
        assert isinstance(graph_module, torch.fx.GraphModule), result
        vals = [n.meta.get("val") for n in graph_module.graph.nodes if n.op != skip]
        leaves = [v for val in vals for v in (val if isinstance(val, tuple) else [val])]
        return {v.fake_mode for v in leaves if isinstance(v, FakeTensor)}

    def test_placeholders_of_one_fake_mode_keep_it(self) -> None:
        # Every FakeTensor of the result is in the placeholders' one mode.
        for case, mode, result, _ in self._results("cc xc cis sci isc iu no R"):
            with self.subTest(case=case):
                self.assertEqual(self._modes(result), {mode})

    def test_graph_without_fake_tensors_gets_a_new_fake_mode(self) -> None:
        # A graph without FakeTensor placeholders is traced in one new mode.
        seen: set[object] = set()
        for case, _, result, given in self._results("rn i r"):
            with self.subTest(case=case):
                modes = self._modes(result)
                old = seen | self._modes(given)  # earlier calls', the graph's own
                self.assertTrue(len(modes) == 1 and not modes & old, modes)
                seen |= modes

    def test_placeholders_of_two_fake_modes(self) -> None:
        # A plain input's mode is taken; else one of the constants' modes.
        for case, mode, result, given in self._results("xC Cx cC"):
            with self.subTest(case=case):
                if "x" in case.split()[0]:
                    self.assertEqual(self._modes(result, "placeholder"), {mode})
                elif not isinstance(result, Exception):
                    modes = self._modes(result, "placeholder")
                    self.assertTrue(len(modes) == 1 and modes < self._modes(given))

    def test_placeholder_overrides_receive_the_constants_values(self) -> None:
        # placeholder() overrides get the real values of lifted constants.
        args: list[Argument] = []

        class Recorder(ExportPass):
            def placeholder(
                self, name: str, arg: Argument, meta: NodeMetadata
            ) -> ProxyValue:
                args.append(arg)
                return super().placeholder(name, arg, meta)

        Recorder()(self._graph("cc")[0])
        torch.testing.assert_close(args, [torch.tensor(2.0)] * 2)

    def test_partitioned_constant_subgraph_lowers(self) -> None:
        # #22309's model lowers with one delegate, and its program matches eager.
        x = torch.randn(4, 128)
        edge = exir.to_edge_transform_and_lower(
            export(_SineFrequencies(), (x,)), partitioner=[_ConstantsPartitioner()]
        )
        program = edge.exported_program()
        self.assertEqual(len(get_lowered_submodules(program.graph_module)), 1)
        torch.testing.assert_close(program.module()(x), _SineFrequencies()(x))
