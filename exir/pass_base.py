# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# pyre-strict

# What this project changes in upstream's exir/pass_base.py: the method
# _ExportPassBase.call, nothing else. The patch maker splices the method below
# over upstream's, and the backport compiles the same lines in the namespace of
# the installed executorch.exir.pass_base. The class here only holds the
# method; it is never used as a pass itself.

from contextlib import nullcontext

from executorch.exir.pass_base import ExportPassBaseError
from torch import fx
from torch._dispatch.python import enable_python_dispatcher
from torch._subclasses import FakeTensorMode
from torch._subclasses.fake_tensor import FakeTensor
from torch.fx.passes.infra.pass_base import PassResult


class _ExportPassBase:
    def call(self, graph_module: fx.GraphModule) -> PassResult:
        if not getattr(self, "_initialized", False):
            raise ExportPassBaseError(
                "ExportPass is not initialized with __init__().",
            )

        inputs = self.inputs(graph_module)

        # inputs() unwraps lifted constants to real tensors, so a graph of only
        # constants shows no FakeTensor there (#22309): take the mode from the
        # placeholders' meta["val"] rather than opening a second one.
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = [
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
            ]

        fake_tensor_mode = None
        for i in vals:
            if isinstance(i, FakeTensor):
                assert (
                    fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                ), "Multiple fake tensor mode detected."
                fake_tensor_mode = i.fake_mode
        if fake_tensor_mode is None:
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)
            dispatcher_mode = nullcontext()  # type: ignore[assignment]
        else:
            fake_tensor_mode.allow_non_fake_inputs = True
            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]
        self.tracer.fake_tensor_mode = fake_tensor_mode
        self.fake_tensor_mode = fake_tensor_mode

        with fake_tensor_mode, dispatcher_mode:  # type: ignore[assignment, union-attr]
            result = self.call_submodule(graph_module, tuple(inputs))

        return result
