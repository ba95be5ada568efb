"""Witnesses along the dimensions of the contract the tests state (#38),
written by the 38 helper: a reused instance, the context ``call`` runs in,
a pass that makes a constant, the graph's edges, placeholders of two modes
(graphs without FakeTensors: ``nofake_witnesses``). ``one mode`` means what
the contract promises.

Where the placeholders share a mode M, a result holding another mode is a
failure a user sees: ExportPass puts the placeholders' own vals back, so the
result holds M and that mode, and ``detect_fake_mode`` refuses it (#22309).
Importing this module imports torch and executorch.
"""

from typing import Callable, List, Set

import torch
from executorch.exir.pass_base import Argument, ExportPass, NodeMetadata, ProxyValue
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

from ....shared.repro import constant_fake
from ..witnesses import _constants, _through, OK, Witness


def _modes(graph_module: torch.fx.GraphModule, skip: str = "") -> Set[int]:
    modes: Set[int] = set()
    for node in graph_module.graph.nodes:
        if node.op != skip:
            for val in torch.utils._pytree.tree_leaves(node.meta.get("val")):
                if isinstance(val, FakeTensor):
                    modes.add(id(val.fake_mode))
    return modes


def _in(mode: FakeTensorMode, result: object, raised: str, skip: str = "") -> str:
    """``one mode`` when every FakeTensor of the result (but nodes ``skip``)
    is in ``mode``."""
    if raised:
        return raised
    modes = _modes(result, skip)  # type: ignore[arg-type]
    if modes == {id(mode)}:
        return OK
    return f"{len(modes)} modes" if len(modes) > 1 else "another mode"


def _strict() -> FakeTensorMode:
    return FakeTensorMode()


class _MakesAConstant(ExportPass):
    """Scales the first output by a constant it makes itself."""

    def output(self, results: List[Argument], meta: NodeMetadata) -> ProxyValue:
        args = (results[0], torch.tensor(3.0))
        first = self.call_operator(torch.ops.aten.mul.Tensor, args, {}, meta)
        return super().output([first, *results[1:]], meta)


def _made_constant() -> str:
    mode = _strict()
    return _in(mode, *_through(_constants(mode), _MakesAConstant()))


def _reused(export_pass: ExportPass) -> str:
    _through(_constants(_strict()), export_pass)
    mode = _strict()
    return _in(mode, *_through(_constants(mode), export_pass))


def _beside_full(letter: str) -> str:
    """A constant unread (``u``) or returned as it is (``o``), beside full()."""
    mode = _strict()
    graph = torch.fx.Graph()
    constant = graph.placeholder("c")
    constant.meta["val"] = constant_fake(2.0, mode)
    full = graph.call_function(torch.ops.aten.full.default, ([2], 1.0))
    graph.output((full, constant) if letter == "o" else (full,))
    return _in(mode, *_through(torch.fx.GraphModule(torch.nn.Module(), graph)))


def _plain_after_other_constant() -> str:
    mode, other = _strict(), _strict()
    graph = torch.fx.Graph()
    constant, x = graph.placeholder("c"), graph.placeholder("x")
    constant.meta["val"] = constant_fake(2.0, other)
    x.meta["val"] = mode.from_tensor(torch.ones(3))
    graph.output((graph.call_function(torch.ops.aten.mul.Tensor, (x, constant)),))
    graph_module = torch.fx.GraphModule(torch.nn.Module(), graph)
    return _in(mode, *_through(graph_module), skip="placeholder")


def _in_compile_backend(run: Callable[[], str]) -> str:
    """What ``run`` says when torch.compile calls it as a backend, in a
    TracingContext of its own fake mode."""
    seen = []

    def backend(gm: torch.fx.GraphModule, _: object) -> Callable[..., object]:
        seen.append(run())
        return gm.forward

    torch.compiler.reset()
    torch.compile(lambda x: x + 1, backend=backend, fullgraph=True)(torch.ones(1))
    return seen[0]


def _constants_in_compile_backend() -> str:
    mode = _strict()
    return _in_compile_backend(lambda: _in(mode, *_through(_constants(mode))))


WITNESSES: List[Witness] = [
    Witness(
        "constant-only graphs of two modes, one instance",
        "an ExportPass over a constant-only graph, then one of another mode",
        lambda: _reused(ExportPass()),
    ),
    Witness(
        "a pass that makes a constant",
        "a pass whose output() multiplies by a new constant, on #22309's graph",
        _made_constant,
    ),
    Witness(
        "a pass that makes a constant, reused",
        "the same pass over two constant-only graphs of two modes",
        lambda: _reused(_MakesAConstant()),
    ),
    Witness(
        "an unread constant beside a computed value",
        "the only FakeTensor is a constant nothing reads; full() is computed",
        lambda: _beside_full("u"),
    ),
    Witness(
        "a constant returned as it is beside a computed value",
        "the graph returns the constant itself and a full()",
        lambda: _beside_full("o"),
    ),
    Witness(
        "a plain input after a constant of another mode",
        "the values the pass computes are in the plain input's mode, no raise",
        _plain_after_other_constant,
    ),
    Witness(
        "a constant-only graph in a torch.compile backend",
        "#22309's graph through ExportPass inside a torch.compile backend",
        _constants_in_compile_backend,
    ),
]
