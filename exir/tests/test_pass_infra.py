# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# pyre-strict

# What this project adds to upstream's exir/tests/test_pass_infra.py: the
# test class below, appended at the end of the file. The imports above it are
# ones upstream's file already has; the class keeps its other imports local so
# the patch does not touch upstream's import block.

import unittest

import torch
from executorch.exir.pass_base import ExportPass


class TestExportPassFakeModeOfConstantInputs(unittest.TestCase):
    """
    ExportPass must retrace under the graph's own FakeTensorMode when every
    placeholder is a lifted constant (pytorch/executorch#22309).
    """

    def setUp(self) -> None:
        from torch._subclasses.fake_tensor import FakeTensorMode

        self.mode = FakeTensorMode(allow_non_fake_inputs=True)

    def _constant_fake(
        self, value: float, mode: "torch._subclasses.FakeTensorMode"
    ) -> torch.Tensor:
        # A FakeTensor carrying its real value, as constant propagation makes.
        from torch._subclasses.fake_tensor import FakeTensor

        real = torch.tensor(value)
        with mode:
            meta = torch.empty(real.shape, dtype=real.dtype, device="meta")
        return FakeTensor(mode, meta, torch.device("cpu"), constant=real)

    def _mul_graph(
        self, lhs_val: torch.Tensor, rhs_val: torch.Tensor
    ) -> torch.fx.GraphModule:
        graph = torch.fx.Graph()
        lhs = graph.placeholder("c_lhs")
        rhs = graph.placeholder("c_rhs")
        lhs.meta["val"] = lhs_val
        rhs.meta["val"] = rhs_val
        mul = graph.call_function(torch.ops.aten.mul.Tensor, (lhs, rhs))
        with self.mode:
            mul.meta["val"] = torch.ops.aten.mul.Tensor(lhs_val, rhs_val)
        out = graph.output((mul,))
        out.meta["val"] = (mul.meta["val"],)
        return torch.fx.GraphModule(torch.nn.Module(), graph)

    def _node_vals(self, graph_module: torch.fx.GraphModule) -> list[object]:
        vals = []
        for node in graph_module.graph.nodes:
            val = node.meta.get("val")
            vals.extend(val if isinstance(val, (list, tuple)) else [val])
        return vals

    def _fake_mode_ids(self, graph_module: torch.fx.GraphModule) -> set[int]:
        from torch._subclasses.fake_tensor import FakeTensor

        return {
            id(val.fake_mode)
            for val in self._node_vals(graph_module)
            if isinstance(val, FakeTensor)
        }

    def test_constant_only_inputs_keep_the_graph_fake_mode(self) -> None:
        from torch._guards import detect_fake_mode

        graph_module = self._mul_graph(
            self._constant_fake(2.0, self.mode), self._constant_fake(3.0, self.mode)
        )

        result = ExportPass()(graph_module).graph_module

        self.assertEqual(
            self._fake_mode_ids(result),
            {id(self.mode)},
            "ExportPass retraced a constant-only graph under a new FakeTensorMode",
        )
        self.assertIs(detect_fake_mode(self._node_vals(result)), self.mode)
        (output_val,) = result.graph.output_node().meta["val"]
        self.assertIsNotNone(output_val.constant)
        torch.testing.assert_close(output_val.constant, torch.tensor(6.0))

    def test_constant_and_fake_inputs_keep_the_graph_fake_mode(self) -> None:
        with self.mode:
            plain_fake = torch.empty(())

        graph_module = self._mul_graph(self._constant_fake(2.0, self.mode), plain_fake)

        result = ExportPass()(graph_module).graph_module

        self.assertEqual(self._fake_mode_ids(result), {id(self.mode)})

    def test_inputs_without_fake_tensors_use_a_new_fake_mode(self) -> None:
        graph_module = self._mul_graph(torch.tensor(2.0), torch.tensor(3.0))

        export_pass = ExportPass()
        result = export_pass(graph_module).graph_module

        self.assertIsNot(export_pass.fake_tensor_mode, self.mode)
        self.assertTrue(export_pass.fake_tensor_mode.allow_non_fake_inputs)
        self.assertEqual(
            self._fake_mode_ids(result), {id(export_pass.fake_tensor_mode)}
        )

    def test_constant_inputs_of_two_fake_modes_are_rejected(self) -> None:
        from torch._subclasses.fake_tensor import FakeTensorMode

        other_mode = FakeTensorMode(allow_non_fake_inputs=True)
        graph_module = self._mul_graph(
            self._constant_fake(2.0, self.mode),
            self._constant_fake(3.0, other_mode),
        )

        with self.assertRaisesRegex(
            AssertionError, "Multiple fake tensor mode detected."
        ):
            ExportPass()(graph_module)
