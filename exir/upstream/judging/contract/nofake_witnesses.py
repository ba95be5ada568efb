"""Witnesses of the contract's graphs without FakeTensor placeholders
(#38), written by the 38 helper. ``one mode`` means what the contract
promises: each such graph traced in one new mode.

A graph without FakeTensors traced in the mode of an earlier call (one
instance's earlier graph, the mode of the caller's tracing context) ties the
two graphs' values to one mode and its shape environment: a constant a pass
adds then gets sizes symbolic in the earlier graph's environment where a new
mode keeps them static. Importing this module imports torch and executorch.
"""

from typing import Callable, List, Set

import torch
from executorch.exir.pass_base import ExportPass

from ..witnesses import _constants, _through, OK, Witness
from .witnesses import _in_compile_backend, _modes, _strict


def _without_fakes() -> torch.fx.GraphModule:
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    x.meta["val"] = torch.ones(3)
    graph.output((graph.call_function(torch.ops.aten.mul.Tensor, (x, 2.0)),))
    return torch.fx.GraphModule(torch.nn.Module(), graph)


def _new_each_time(runs: List[Callable[[], object]]) -> str:
    """``one mode`` when each run's result is in one mode none before had."""
    seen: Set[int] = set()
    for run in runs:
        result, raised = run()  # type: ignore[misc]
        if raised:
            return raised
        modes = _modes(result)
        if len(modes) != 1:
            return f"{len(modes)} modes"
        if modes & seen:
            return "an earlier call's mode"
        seen |= modes
    return OK


def _nofake_in_one_compile_backend() -> str:
    # Not inside a FakeTensorMode: there torch 2.9 fails such graphs, fixed or not.
    first, second = _without_fakes(), _without_fakes()  # real vals: made outside
    runs = [lambda: _through(first), lambda: _through(second)]
    return _in_compile_backend(lambda: _new_each_time(runs))  # type: ignore


def _nofake_after_plain() -> str:
    export_pass = ExportPass()
    mode = _strict()
    plain = _constants(mode)
    for node in plain.graph.find_nodes(op="placeholder"):
        node.meta["val"] = mode.from_tensor(torch.ones(()))
    runs = [lambda: _through(plain, export_pass)]
    return _new_each_time(runs + [lambda: _through(_without_fakes(), export_pass)])


WITNESSES: List[Witness] = [
    Witness(
        "graphs without FakeTensors in one compile backend",
        "two such graphs through two instances inside one torch.compile backend",
        _nofake_in_one_compile_backend,
    ),
    Witness(
        "a graph without FakeTensors after a plain one, one instance",
        "an ExportPass over a plain graph, then over one of real tensors",
        _nofake_after_plain,
    ),
    Witness(
        "graphs without FakeTensors through two instances",
        "two such graphs, each through a new ExportPass",
        lambda: _new_each_time([lambda: _through(_without_fakes())] * 2),
    ),
]
