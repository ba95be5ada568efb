"""The issue's repro as a library: a graph whose placeholders are all lifted
constants, a count of the FakeTensorModes in a graph's values, and the
issue's reduced model.

Used by ``is_fixed``, ``apply()``'s check of what it installed, ``python -m
exportpass_fix check`` and the benchmark. Importing it imports torch.
"""

from typing import Any, Callable, List, Optional, Set, Union

import torch
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode


def constant_fake(
    value: Union[float, torch.Tensor], mode: FakeTensorMode
) -> FakeTensor:
    """A FakeTensor carrying its real value, as constant propagation makes."""
    real = value if isinstance(value, torch.Tensor) else torch.tensor(value)
    # The issue makes the meta tensor inside ``mode``; torch 2.9 fakes it
    # there already and refuses to wrap it again, so it is made outside.
    meta = torch.empty(real.shape, dtype=real.dtype, device="meta")
    return FakeTensor(mode, meta, torch.device("cpu"), constant=real)


def constant_mul_graph(mode: FakeTensorMode) -> torch.fx.GraphModule:
    """``c_lhs * c_rhs`` where both placeholders are constants of ``mode``."""
    graph = torch.fx.Graph()
    lhs = graph.placeholder("c_lhs")
    rhs = graph.placeholder("c_rhs")
    lhs.meta["val"] = constant_fake(2.0, mode)
    rhs.meta["val"] = constant_fake(3.0, mode)
    mul = graph.call_function(torch.ops.aten.mul.Tensor, (lhs, rhs))
    with mode:
        mul.meta["val"] = torch.ops.aten.mul.Tensor(lhs.meta["val"], rhs.meta["val"])
    out = graph.output((mul,))
    out.meta["val"] = (mul.meta["val"],)
    return torch.fx.GraphModule(torch.nn.Module(), graph)


def node_values(graph_module: torch.fx.GraphModule) -> List[object]:
    """Every node's ``meta["val"]``, tuples and lists flattened one level."""
    values: List[object] = []
    for node in graph_module.graph.nodes:
        value = node.meta.get("val")
        values.extend(value if isinstance(value, (list, tuple)) else [value])
    return values


def fake_modes(graph_module: torch.fx.GraphModule) -> Set[int]:
    """The ids of the FakeTensorModes that the graph's values belong to."""
    return {
        id(value.fake_mode)
        for value in node_values(graph_module)
        if isinstance(value, FakeTensor)
    }


def modes_after_export_pass(export_pass: Optional[type] = None) -> int:
    """How many FakeTensorModes ``export_pass`` (the installed ``ExportPass``
    when not given) leaves in the issue's graph."""
    if export_pass is None:
        from executorch.exir.pass_base import ExportPass as export_pass

    graph_module = constant_mul_graph(FakeTensorMode(allow_non_fake_inputs=True))
    return len(fake_modes(export_pass()(graph_module).graph_module))


def modes_after_call(call: Callable[..., Any]) -> int:
    """How many FakeTensorModes ``call`` (some ``_ExportPassBase.call``, not
    necessarily the class's own) leaves in the issue's graph, run as the
    method of an ``ExportPass``."""
    from executorch.exir.pass_base import ExportPass

    graph_module = constant_mul_graph(FakeTensorMode(allow_non_fake_inputs=True))
    return len(fake_modes(call(ExportPass(), graph_module).graph_module))


class SineFrequencies(torch.nn.Module):
    """The issue's reduced model: ``x + 10000 ** (2 * floor(t / 2) / 128)``,
    an input-independent subgraph (a sine embedding's frequencies) that a
    partitioner splits out with its operands as lifted constants."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = torch.arange(128, dtype=torch.float32)
        t = 10000.0 ** (2 * torch.div(t, 2, rounding_mode="floor") / 128)
        return x + t
