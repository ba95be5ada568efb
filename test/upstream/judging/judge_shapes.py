"""Three graph shapes a fix of ``call`` can miss, and what the judge's flows
give ``call``.

Two are witnesses a user meets: a delegate whose only input is one lifted
constant (``OneConstantTable`` lowered with x static), and NXP's view
conversion over a method whose first op reshapes a constant (the view it
puts first would get a val of a mode of its own, but ExecuTorch's
``to_edge`` puts a clone of the constant first). ``counting_shapes``
counts, over the calls of ``call`` while the flows run under the fix, the
calls given each shape: one lifted constant as the only placeholder, the
first op's val in another mode, and a placeholder after an op (as torch's
``fuse_as_graphmodule`` leaves one); the judge's record keeps the counts.
"""

import contextlib
import copy
import functools
from typing import Dict, Iterator, List

import torch
from executorch.backends.nxp.edge_passes.convert_reshaping_nodes_to_view import (
    ConvertReshapingNodesToViewPass,
)
from executorch.exir import EdgeProgramManager, to_edge, to_edge_transform_and_lower
from executorch.exir.pass_base import _ExportPassBase, ExportPass
from judge_programs import CAPTURED, ConstantsPartitioner
from judge_witnesses import _equal, _raised, Flow, OK
from torch._subclasses.fake_tensor import FakeTensor
from torch.export import export, ExportedProgram


class OneConstantTable(torch.nn.Module):
    """A table that reads one lifted constant (2.5, once ExecuTorch lifts
    it) and no input: its delegate's only input is that constant."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.arange(4, dtype=torch.float32) * 2.5


class ReshapedFirst(torch.nn.Module):
    """A constant reshaped by the method's first op, then scaled (ExecuTorch
    lifts the scalar too: two constants, no input)."""

    def forward(self) -> torch.Tensor:
        return torch.tensor([1.0, 2.0]).unsqueeze(0) * 2.5


_X = (torch.randn(4),)


@functools.lru_cache(maxsize=None)
def one_constant_delegate() -> ExportedProgram:
    """The delegate a backend's preprocess is given, made once in the
    process the variants fork from (as ``judge_witnesses.delegate``)."""
    CAPTURED.clear()
    to_edge_transform_and_lower(
        export(OneConstantTable(), _X), partitioner=[ConstantsPartitioner()]
    )
    (captured,) = CAPTURED
    return captured


@functools.lru_cache(maxsize=None)
def reshaped_first() -> EdgeProgramManager:
    return to_edge({"reshaped": export(ReshapedFirst(), ())})


ONE_CONSTANT = (
    "a delegate whose only input is one lifted constant (x static), in a"
    " backend's preprocess, through ExportPass"
)
FIRST_OP = (
    "NXP's ConvertReshapingNodesToViewPass: a method reshaping a constant first"
    " (to_edge clones it before)"
)


def _one_constant() -> Dict[str, str]:
    program = one_constant_delegate()
    (before,) = program.module()()
    try:
        done = EdgeProgramManager(program).transform([ExportPass()])
        (got,) = done.exported_program().module()()
    except Exception as error:
        return {ONE_CONSTANT: _raised(error)}
    return {ONE_CONSTANT: OK if _equal(got, before) else "wrong values"}


def _first_op() -> Dict[str, str]:
    # NXP's pass edits the graph it is given: a copy, kept from other runs.
    programs = {
        "reshaped": copy.deepcopy(reshaped_first().exported_program("reshaped"))
    }
    try:
        after = EdgeProgramManager(programs).transform(
            [ConvertReshapingNodesToViewPass()]
        )
        after.to_executorch()
        got = after.exported_program("reshaped").module()()
    except Exception as error:
        return {FIRST_OP: _raised(error)}
    return {FIRST_OP: OK if _equal(got, ReshapedFirst()()) else "wrong values"}


SHAPE_FLOWS: List[Flow] = [
    Flow(
        "to_edge_transform_and_lower, a table of one lifted constant",
        (ONE_CONSTANT,),
        _one_constant,
    ),
    Flow("EdgeProgramManager.transform, NXP's pass first", (FIRST_OP,), _first_op),
]


def programs_made_afresh() -> None:
    """As ``judge_witnesses.programs_made_afresh``, for these flows."""
    for made in (one_constant_delegate, reshaped_first):
        made.cache_clear()
        made()


ONE_CONSTANT_ONLY = "one lifted constant, the only placeholder"
FOREIGN_FIRST_OP = "the first op's val in another mode than the placeholders'"
PLACEHOLDER_AFTER_OP = "a placeholder after an op"
SHAPES = (ONE_CONSTANT_ONLY, FOREIGN_FIRST_OP, PLACEHOLDER_AFTER_OP)


def _shapes_of(graph: torch.fx.Graph) -> List[str]:
    nodes = list(graph.nodes)
    placeholders = [n for n in nodes if n.op == "placeholder"]
    vals = [n.meta.get("val") for n in placeholders]
    modes = {v.fake_mode for v in vals if isinstance(v, FakeTensor)}
    ops = [n for n in nodes if n.op == "call_function"]
    first = ops[0].meta.get("val") if ops else None
    shapes = []
    if len(vals) == 1 and getattr(vals[0], "constant", None) is not None:
        shapes.append(ONE_CONSTANT_ONLY)
    if modes and isinstance(first, FakeTensor) and first.fake_mode not in modes:
        shapes.append(FOREIGN_FIRST_OP)
    last = nodes.index(placeholders[-1]) if placeholders else 0
    if any(n.op != "placeholder" for n in nodes[:last]):
        shapes.append(PLACEHOLDER_AFTER_OP)
    return shapes


@contextlib.contextmanager
def counting_shapes() -> Iterator[Dict[str, int]]:
    """Counts, while it is open, the calls of the installed ``call`` and
    those given each shape."""
    counts = {"calls": 0, **{shape: 0 for shape in SHAPES}}
    installed = _ExportPassBase.call

    def call(self: _ExportPassBase, graph_module: torch.fx.GraphModule) -> object:
        counts["calls"] += 1
        for shape in _shapes_of(graph_module.graph):
            counts[shape] += 1
        return installed(self, graph_module)

    _ExportPassBase.call = call
    try:
        yield counts
    finally:
        _ExportPassBase.call = installed
