"""Property tests: generated FX graphs of the shapes partitioners and passes
produce, through ExportPass and real ExecuTorch passes, with the fix applied.

Hypothesis runs derandomized (a fixed seed per test), so a failure found in
CI is found again by the same command; it prints the failing example.
"""

from dataclasses import dataclass
from typing import Callable, Dict, Iterator, List, Optional, Tuple

import exportpass_fix
import pytest
import torch
from exportpass_fix.shared.repro import constant_fake, fake_modes, node_values
from hypothesis import given, HealthCheck, settings, strategies as st
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

pass_base = pytest.importorskip("executorch.exir.pass_base")
exir = pytest.importorskip("executorch.exir")
ExportPass = pass_base.ExportPass
ScalarToTensorPass = pytest.importorskip("executorch.exir.passes").ScalarToTensorPass

GRAPH_EXAMPLES = 200
EDGE_EXAMPLES = 20
PROPERTY_SETTINGS = {
    "derandomize": True,
    "deadline": None,
    "print_blob": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}

DTYPES = (torch.float32, torch.float16, torch.int64, torch.bool)
SHAPES = ((), (1,), (3,), (2, 3))
ROUNDING = (None, "floor", "trunc")
OPS = (
    "arange", "mul", "add", "div", "pow", "sin", "cos",
    "cat", "unsqueeze", "view", "where",
)  # fmt: skip


@pytest.fixture(autouse=True, scope="module")
def fixed() -> Iterator[None]:
    # apply()/revert() rather than applied(): _to_edge_error_unfixed must be
    # able to take the fix off, which no revert() can inside an open block.
    exportpass_fix.apply()
    yield
    assert exportpass_fix.revert()


@dataclass
class GeneratedGraph:
    graph_module: torch.fx.GraphModule
    mode: FakeTensorMode
    real_inputs: List[torch.Tensor]
    all_constant: bool

    def __repr__(self) -> str:
        return (
            f"GeneratedGraph(all_constant={self.all_constant},"
            f" inputs={[(t.dtype, tuple(t.shape)) for t in self.real_inputs]},"
            f"\n{self.graph_module.code})"
        )


def _real_value(dtype: torch.dtype, shape: Tuple[int, ...]) -> torch.Tensor:
    if dtype == torch.bool:
        return torch.rand(shape) > 0.5
    if dtype == torch.int64:
        return torch.randint(-3, 4, shape)
    return (torch.randn(shape) * 2).to(dtype)


def _is_float(node: torch.fx.Node) -> bool:
    return node.meta["val"].dtype.is_floating_point


def _op_call(
    draw: Callable, kind: str, pool: List[torch.fx.Node]
) -> Optional[Tuple[object, tuple, dict]]:
    """(target, args, kwargs) for one op on nodes drawn from ``pool``, or None
    when the pool has no operand the op accepts."""
    aten = torch.ops.aten
    floats = [node for node in pool if _is_float(node)]
    bools = [node for node in pool if node.meta["val"].dtype == torch.bool]

    def pick(nodes: List[torch.fx.Node]) -> torch.fx.Node:
        return draw(st.sampled_from(nodes))

    def div() -> Tuple[object, tuple, dict]:
        rounding = draw(st.sampled_from(ROUNDING))
        args = (pick(pool), pick(floats))
        if rounding is None:
            return aten.div.Tensor, args, {}
        return aten.div.Tensor_mode, args, {"rounding_mode": rounding}

    builders: Dict[str, Callable[[], Optional[Tuple[object, tuple, dict]]]] = {
        "arange": lambda: (
            aten.arange.start_step,
            (0, draw(st.integers(1, 6))),
            {"dtype": torch.float32},
        ),
        "mul": lambda: (aten.mul.Tensor, (pick(pool), pick(pool)), {}),
        "add": lambda: (aten.add.Tensor, (pick(pool), pick(pool)), {}),
        # Integer division by zero and integers to negative powers raise in
        # eager mode, so divisors and bases are floating point.
        "div": lambda: div() if floats else None,
        "pow": lambda: (
            (aten.pow.Tensor_Tensor, (pick(floats), pick(pool)), {}) if floats else None
        ),
        "sin": lambda: (aten.sin.default, (pick(pool),), {}),
        "cos": lambda: (aten.cos.default, (pick(pool),), {}),
        "cat": lambda: (aten.cat.default, ([pick(pool), pick(pool)],), {}),
        "unsqueeze": lambda: (aten.unsqueeze.default, (pick(pool), 0), {}),
        "view": lambda: (aten.view.default, (pick(pool), [-1]), {}),
        "where": lambda: (
            (aten.where.self, (pick(bools), pick(pool), pick(pool)), {})
            if bools
            else None
        ),
    }
    return builders[kind]()


def _vals(args: object) -> object:
    return torch.fx.node.map_arg(args, lambda node: node.meta["val"])


@st.composite
def graphs(draw: Callable) -> GeneratedGraph:
    torch.manual_seed(draw(st.integers(0, 2**16)))
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    shape = draw(st.sampled_from(SHAPES))
    all_constant = draw(st.booleans())
    graph = torch.fx.Graph()
    pool: List[torch.fx.Node] = []
    real_inputs = []
    for index in range(draw(st.integers(1, 8))):
        real = _real_value(draw(st.sampled_from(DTYPES)), shape)
        placeholder = graph.placeholder(f"p{index}")
        if all_constant or draw(st.booleans()):
            placeholder.meta["val"] = constant_fake(real, mode)
        else:
            with mode:
                placeholder.meta["val"] = torch.empty(shape, dtype=real.dtype)
        pool.append(placeholder)
        real_inputs.append(real)
    for _ in range(draw(st.integers(1, 10))):
        call = _op_call(draw, draw(st.sampled_from(OPS)), pool)
        if call is None:
            continue
        target, args, kwargs = call
        try:
            # Values are made under the graph's mode, as torch.export does.
            with mode:
                val = target(*_vals(args), **_vals(kwargs))
        except (RuntimeError, TypeError, IndexError, ValueError):
            continue  # an invalid combination (shapes, dtypes): not emitted
        node = graph.call_function(target, args, kwargs)
        node.meta["val"] = val
        pool.append(node)
    output = graph.output((pool[-1],))
    output.meta["val"] = (pool[-1].meta["val"],)
    graph_module = torch.fx.GraphModule(torch.nn.Module(), graph)
    return GeneratedGraph(graph_module, mode, real_inputs, all_constant)


def _shapes_and_dtypes(graph_module: torch.fx.GraphModule) -> list:
    return [
        (tuple(v.shape), v.dtype) if isinstance(v, torch.Tensor) else type(v)
        for v in node_values(graph_module)
    ]


def _evaluate(graph_module: torch.fx.GraphModule, inputs: list) -> torch.Tensor:
    (result,) = graph_module(*inputs)
    return result


@settings(max_examples=GRAPH_EXAMPLES, **PROPERTY_SETTINGS)
@given(graphs())
def test_export_pass_keeps_the_graph_mode_and_is_stable(
    example: GeneratedGraph,
) -> None:
    first = ExportPass()(example.graph_module).graph_module
    # Every FakeTensor of the result is of the input mode.
    assert fake_modes(first) == {id(example.mode)}
    # Running the pass again changes nothing further.
    second = ExportPass()(first).graph_module
    assert second.code == first.code
    assert fake_modes(second) == {id(example.mode)}
    assert _shapes_and_dtypes(second) == _shapes_and_dtypes(first)
    if example.all_constant:
        torch.testing.assert_close(
            _evaluate(first, example.real_inputs),
            _evaluate(example.graph_module, example.real_inputs),
            rtol=0,
            atol=0,
            equal_nan=True,
        )


@settings(max_examples=GRAPH_EXAMPLES // 2, **PROPERTY_SETTINGS)
@given(graphs())
def test_scalar_to_tensor_pass_keeps_the_graph_mode(example: GeneratedGraph) -> None:
    result = ScalarToTensorPass()(example.graph_module)

    assert result is not None
    assert fake_modes(result.graph_module) == {id(example.mode)}


def _to_edge_error_unfixed(model: torch.nn.Module) -> str:
    assert exportpass_fix.revert(), "the fix must be off for the unfixed run"
    try:
        exir.to_edge(torch.export.export(model, ()))
    except Exception as error:
        return str(error)
    finally:
        exportpass_fix.apply()
    return "no error"


CONSTANT_OPS = {
    "mul": lambda a, b: a * b,
    "add": lambda a, b: a + b,
    "div": lambda a, b: torch.div(a, b + 10.0, rounding_mode="floor"),
    "pow": lambda a, b: 1.5 ** (a / 8),
    "sin": lambda a, b: torch.sin(a),
    "cos": lambda a, b: torch.cos(b),
    "cat": lambda a, b: torch.cat([a, b])[: a.shape[0]],
    "where": lambda a, b: torch.where(a > b, a, b),
}


class ConstantOnly(torch.nn.Module):
    """A module whose output depends on no input: literals through ``ops``."""

    def __init__(self, ops: List[str], length: int) -> None:
        super().__init__()
        self.ops = ops
        self.length = length

    def forward(self) -> torch.Tensor:
        a = torch.arange(self.length, dtype=torch.float32)
        b = torch.tensor([0.5] * self.length)
        for name in self.ops:
            a, b = CONSTANT_OPS[name](a, b), a
        return a


@settings(max_examples=EDGE_EXAMPLES, **PROPERTY_SETTINGS)
@given(
    st.lists(st.sampled_from(sorted(CONSTANT_OPS)), min_size=1, max_size=6),
    st.integers(1, 8),
)
def test_to_edge_of_a_constant_only_program_keeps_one_mode(
    ops: List[str], length: int
) -> None:
    model = ConstantOnly(ops, length)
    try:
        edge = exir.to_edge(torch.export.export(model, ()))
    except Exception as error:
        # to_edge has failures of its own on some of these programs (e.g. a
        # verifier SpecViolationError on lifted-constant names for two floor
        # divisions); the fix must not be the cause: unfixed, it fails alike.
        assert str(error) == _to_edge_error_unfixed(model), "the fix broke to_edge"
        return

    graph_module = edge.exported_program().graph_module
    fakes = [v for v in node_values(graph_module) if isinstance(v, FakeTensor)]
    assert len({id(v.fake_mode) for v in fakes}) == 1
    torch.testing.assert_close(
        edge.exported_program().module()(), model(), equal_nan=True
    )
