"""Witnesses: graphs on which a variant of ``_ExportPassBase.call`` shows a
user a failure. Each runs the graph through ``ExportPass`` under whatever
``call`` is installed and says what a user would see: ``one mode`` (the
pass's result holds the graph's one FakeTensorMode and its work is intact),
or ``N modes``, ``raises ...``, ``changed ...``.

A variant is wrong only where some witness shows a failure under it while
this project's fix shows ``one mode`` (``mutants``). Importing this module
imports torch and executorch.
"""

import io
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Callable, ContextManager, List, Optional, Tuple

import torch
from executorch.exir.pass_base import Argument, ExportPass, NodeMetadata, ProxyValue
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv

from ...shared.repro import constant_fake

OK = "one mode"


@dataclass(frozen=True)
class Witness:
    name: str
    what: str
    run: Callable[[], str]


def _product_graph(vals: List[object]) -> torch.fx.GraphModule:
    """One placeholder per val; their product, the last one first."""
    graph = torch.fx.Graph()
    nodes = [graph.placeholder(f"p{i}") for i in range(len(vals))]
    for node, val in zip(nodes, vals):
        node.meta["val"] = val
    product = nodes[-1]
    for node in reversed(nodes[:-1]):
        product = graph.call_function(torch.ops.aten.mul.Tensor, (product, node))
    graph.output((product,))
    return torch.fx.GraphModule(torch.nn.Module(), graph)


def _constants(mode: FakeTensorMode, *others: object) -> torch.fx.GraphModule:
    """#22309's graph, ``c_lhs * c_rhs``, after the ``others`` inputs."""
    return _product_graph([*others, constant_fake(2.0, mode), constant_fake(3.0, mode)])


def _modes(graph_module: torch.fx.GraphModule) -> str:
    modes: List[int] = []
    for node in graph_module.graph.nodes:
        for val in torch.utils._pytree.tree_leaves(node.meta.get("val")):
            if isinstance(val, FakeTensor) and id(val.fake_mode) not in modes:
                modes.append(id(val.fake_mode))
    return OK if len(modes) == 1 else f"{len(modes)} modes"


def _through(
    graph_module: torch.fx.GraphModule,
    export_pass: Optional[ExportPass] = None,
    ambient: Optional[ContextManager[object]] = None,
) -> Tuple[Optional[torch.fx.GraphModule], str]:
    """The pass's result, or None and what it raised."""
    try:
        with ambient or nullcontext():
            result = (export_pass or ExportPass())(graph_module)
    except Exception as error:
        return None, f"raises {type(error).__name__}"
    assert result is not None
    return result.graph_module, ""


def _observed(
    graph_module: torch.fx.GraphModule,
    ambient: Optional[ContextManager[object]] = None,
) -> str:
    result, raised = _through(graph_module, ambient=ambient)
    return raised or _modes(result)  # type: ignore[arg-type]


def _after_int() -> str:
    return _observed(_constants(FakeTensorMode(allow_non_fake_inputs=True), 3))


def _laid_out(layout: str) -> Callable[[], str]:
    """A graph of constants (``c``) and int inputs (``3``) in ``layout``'s order."""

    def run() -> str:
        mode = FakeTensorMode(allow_non_fake_inputs=True)
        vals = [constant_fake(2.0, mode) if k == "c" else 3 for k in layout]
        return _observed(_product_graph(vals))

    return run


def _after_symint() -> str:
    mode = FakeTensorMode(allow_non_fake_inputs=True, shape_env=ShapeEnv())
    assert mode.shape_env is not None
    return _observed(_constants(mode, mode.shape_env.create_unbacked_symint()))


def _strict_mode() -> str:
    # FakeTensorMode()'s default lets no real tensor in.
    mode = FakeTensorMode()
    graph = torch.fx.Graph()
    table = graph.placeholder("table")
    table.meta["val"] = constant_fake(torch.arange(4.0), mode)
    arange = graph.call_function(torch.ops.aten.arange.start, (0.0, 4.0))
    graph.output((graph.call_function(torch.ops.aten.mul.Tensor, (arange, table)),))
    return _observed(torch.fx.GraphModule(torch.nn.Module(), graph))


def _second_mode_left() -> str:
    graph_module = _constants(FakeTensorMode(allow_non_fake_inputs=True))
    with FakeTensorMode():
        graph_module.graph.output_node().args[0][0].meta["val"] = torch.empty(())
    return _observed(graph_module)


class _ConstantSaver(ExportPass):
    """Saves each value its ``placeholder()`` receives, as a pass that
    serialises constant data would."""

    def __init__(self) -> None:
        super().__init__()
        self.saved: List[bytes] = []

    def placeholder(self, name: str, arg: Argument, meta: NodeMetadata) -> ProxyValue:
        buffer = io.BytesIO()
        torch.save(arg, buffer)
        self.saved.append(buffer.getvalue())
        return super().placeholder(name, arg, meta)


def _saved_by_the_next_pass() -> str:
    first, raised = _through(_constants(FakeTensorMode(allow_non_fake_inputs=True)))
    if first is None:
        return raised
    saver = _ConstantSaver()
    second, raised = _through(first, saver)
    if second is None:
        return raised
    values = [
        torch.load(io.BytesIO(saved), weights_only=True).tolist()
        for saved in saver.saved
    ]
    # Not the values themselves: a variant that drops the data leaves memory
    # no two runs read alike, and the kill table's record is compared run to run.
    return _modes(second) if values == [2.0, 3.0] else "changed values"


WITNESSES: List[Witness] = [
    Witness(
        "constant-only graph",
        "#22309's graph: two constants of one mode, multiplied",
        lambda: _observed(_constants(FakeTensorMode(allow_non_fake_inputs=True))),
    ),
    Witness(
        "constant-only graph inside another fake mode",
        "the same, with the pass run inside an unrelated FakeTensorMode",
        lambda: _observed(
            _constants(FakeTensorMode(allow_non_fake_inputs=True)), FakeTensorMode()
        ),
    ),
    Witness("constants after an int input", "an int placeholder first", _after_int),
    *(
        Witness(name, f"placeholders {', '.join(layout)}", _laid_out(layout))
        for name, layout in (
            ("constants before an int input", "cc3"),
            ("an int input between constants", "c3c"),
            ("a constant before int inputs", "c33"),
            ("a constant after int inputs", "33c"),
        )
    ),
    Witness(
        "constants after a SymInt input",
        "a SymInt placeholder of the constants' shape env first",
        _after_symint,
    ),
    Witness(
        "a strict mode's constant times a computed value",
        "FakeTensorMode()'s default, which refuses real tensors",
        _strict_mode,
    ),
    Witness(
        "a graph a second mode was left in",
        "an inner val of another mode, as a retrace under a second mode leaves",
        _second_mode_left,
    ),
    Witness(
        "constants saved by the next pass",
        "ExportPass, then a pass whose placeholder() saves the values it gets",
        _saved_by_the_next_pass,
    ),
]
