"""Graph shapes beyond the issue's repro, each with the behaviour decided.

All run with the fix applied; where the fix changes nothing, the test says so
by comparing with the unfixed ``call`` too.
"""

from typing import Iterator, Set

import exportpass_fix
import pytest
import torch
from exportpass_fix.backport import replace_call
from exportpass_fix.shared.repro import constant_fake, constant_mul_graph, fake_modes
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.export import Dim
from torch.fx.experimental.symbolic_shapes import ShapeEnv

pass_base = pytest.importorskip("executorch.exir.pass_base")
ExportPass = pass_base.ExportPass


@pytest.fixture(autouse=True)
def fixed() -> Iterator[None]:
    with exportpass_fix.applied():
        yield


def all_fake_modes(graph_module: torch.fx.GraphModule) -> Set[int]:
    """Fake modes of the graph and of every nested graph (cond branches...)."""
    modes: Set[int] = set()
    for module in graph_module.modules():
        if isinstance(module, torch.fx.GraphModule):
            modes |= fake_modes(module)
    return modes


def new_mode() -> FakeTensorMode:
    return FakeTensorMode(allow_non_fake_inputs=True)


def test_zero_placeholders_get_a_fresh_mode() -> None:
    # No placeholder, so no mode to recover: the pass opens its own, as
    # upstream always did. One mode in the result all the same.
    graph = torch.fx.Graph()
    arange = graph.call_function(
        torch.ops.aten.arange.start_step, (0, 4), {"dtype": torch.float32}
    )
    arange.meta["val"] = torch.arange(0, 4, dtype=torch.float32)
    graph.output((arange,))
    export_pass = ExportPass()

    result = export_pass(torch.fx.GraphModule(torch.nn.Module(), graph))

    assert fake_modes(result.graph_module) == {id(export_pass.fake_tensor_mode)}


def test_meta_args_of_real_tensors_use_the_placeholders_mode() -> None:
    # graph_module.meta["args"] replaces inputs(); real tensors there carry no
    # mode, so the placeholders' own values decide, as for lifted constants.
    # Unfixed, this graph ended with two modes.
    mode = new_mode()
    graph_module = constant_mul_graph(mode)
    graph_module.meta["args"] = (torch.tensor(2.0), torch.tensor(3.0))

    result = ExportPass()(graph_module).graph_module

    assert fake_modes(result) == {id(mode)}


def test_meta_args_of_fake_tensors_decide_the_mode() -> None:
    # FakeTensors in meta["args"] decide, as before the fix: they are what
    # the graph is retraced with. (ExportPass restores each placeholder's own
    # val afterwards, so callers keep args and placeholders of one mode.)
    args_mode = new_mode()
    graph_module = constant_mul_graph(new_mode())
    with args_mode:
        graph_module.meta["args"] = (torch.empty(()), torch.empty(()))
    export_pass = ExportPass()

    export_pass(graph_module)

    assert export_pass.fake_tensor_mode is args_mode


def _tensor_meta_only_graph(mode: FakeTensorMode) -> torch.fx.GraphModule:
    from torch.fx.passes.shape_prop import _extract_tensor_metadata

    graph_module = constant_mul_graph(mode)
    for node in graph_module.graph.nodes:
        if node.op == "placeholder":
            node.meta["tensor_meta"] = _extract_tensor_metadata(node.meta.pop("val"))
    return graph_module


def _error_of(export_pass: object, graph_module: torch.fx.GraphModule) -> str:
    try:
        export_pass(graph_module)  # type: ignore[operator]
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return "no error"


def test_tensor_meta_only_placeholders_keep_upstream_behaviour() -> None:
    # inputs() builds FakeTensors from tensor_meta in the pass's current mode
    # (asserting on a fresh pass, which has none), so the mode comes from
    # inputs() and the fix is never consulted; ExportPass then fails restoring
    # the missing placeholder vals. Fixed and unfixed fail alike.
    def errors() -> list:
        used = ExportPass()
        used.fake_tensor_mode = new_mode()
        return [
            _error_of(ExportPass(), _tensor_meta_only_graph(new_mode())),
            _error_of(used, _tensor_meta_only_graph(new_mode())),
        ]

    fixed_errors = errors()
    exportpass_fix.revert()
    unfixed_errors = errors()

    assert fixed_errors == unfixed_errors
    assert fixed_errors[0].startswith("AssertionError")
    assert fixed_errors[1] == "KeyError: 'val'"


class ConstantsAndDynamicInput(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = torch.tensor([2.0, 3.0, 4.0])
        return x * scale + torch.arange(3, dtype=torch.float32)


def test_symbolic_input_next_to_constants_keeps_its_symint() -> None:
    # The non-constant input is a FakeTensor with a SymInt dim: it decides
    # the mode (shape env included), as before the fix.
    exported = torch.export.export(
        ConstantsAndDynamicInput(),
        (torch.randn(5, 3),),
        dynamic_shapes={"x": {0: Dim("batch")}},
    )
    graph_module = exported.graph_module
    x_val = [n for n in graph_module.graph.nodes if n.op == "placeholder"][-1].meta[
        "val"
    ]
    assert isinstance(x_val.shape[0], torch.SymInt)

    result = ExportPass()(graph_module).graph_module

    assert fake_modes(result) == {id(x_val.fake_mode)}
    output_val = result.graph.output_node().meta["val"][0]
    assert isinstance(output_val.shape[0], torch.SymInt)


def _constants_beside(other: object, where: int, mode: FakeTensorMode):
    """``c0 * c1`` with a non-tensor placeholder ``n`` at index ``where``."""
    graph = torch.fx.Graph()
    names = ["c0", "c1"]
    names.insert(where, "n")
    nodes = {name: graph.placeholder(name) for name in names}
    nodes["n"].meta["val"] = other
    nodes["c0"].meta["val"] = constant_fake(2.0, mode)
    nodes["c1"].meta["val"] = constant_fake(3.0, mode)
    graph.output(
        (graph.call_function(torch.ops.aten.mul.Tensor, (nodes["c0"], nodes["c1"])),)
    )
    return torch.fx.GraphModule(torch.nn.Module(), graph)


@pytest.mark.parametrize("where", [0, 1, 2])
@pytest.mark.parametrize("kind", ["int", "SymInt"])
def test_an_int_or_symint_beside_constants_gets_the_constants_mode(
    kind: str, where: int
) -> None:
    # A non-tensor placeholder, first, between or last, changes nothing: the
    # constants' mode is recovered. Unfixed, such a graph ends with two modes.
    shape_env = ShapeEnv()
    mode = FakeTensorMode(allow_non_fake_inputs=True, shape_env=shape_env)
    other = 3 if kind == "int" else shape_env.create_unbacked_symint()
    unfixed = replace_call._State.original
    assert unfixed is not None

    fixed = ExportPass()(_constants_beside(other, where, mode)).graph_module
    before = unfixed(ExportPass(), _constants_beside(other, where, mode)).graph_module

    assert fake_modes(fixed) == {id(mode)}
    assert len(fake_modes(before)) == 2


class ConstantCond(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        c = torch.tensor([1.0, 2.0, 3.0])
        return torch.cond(x.sum() > 0, lambda c: c * 2, lambda c: c * 3, (c,)) + x


def _make_placeholders_constant(graph_module: torch.fx.GraphModule) -> int:
    """Give every placeholder's FakeTensor a real value, as const-prop does."""
    mode = None
    for node in graph_module.graph.nodes:
        if node.op == "placeholder":
            val = node.meta["val"]
            val.constant = torch.ones(val.shape, dtype=val.dtype)
            mode = val.fake_mode
    assert mode is not None
    return id(mode)


def test_cond_with_constant_only_branches_and_inputs_keeps_one_mode() -> None:
    # Branches are retraced by call_submodule under the top-level mode, so a
    # constant-only top level (the case the fix recovers) carries into them.
    graph_module = torch.export.export(ConstantCond(), (torch.randn(3),)).graph_module
    mode_id = _make_placeholders_constant(graph_module)

    result = ExportPass()(graph_module).graph_module

    assert all_fake_modes(result) == {mode_id}


def test_map_with_constant_only_body_keeps_one_mode() -> None:
    from torch._higher_order_ops.map import map as control_flow_map

    class ConstantMap(torch.nn.Module):
        def forward(self, xs: torch.Tensor) -> torch.Tensor:
            scale = torch.tensor([2.0, 3.0])
            return control_flow_map(lambda x, s: x * s, xs, scale)

    graph_module = torch.export.export(ConstantMap(), (torch.randn(4, 2),)).graph_module
    mode_id = _make_placeholders_constant(graph_module)

    result = ExportPass()(graph_module).graph_module

    assert all_fake_modes(result) == {mode_id}


def test_a_reused_pass_follows_each_graphs_mode() -> None:
    # The mode is chosen per call, from that graph; nothing from the first
    # graph's mode sticks to the pass instance.
    first_mode, second_mode = new_mode(), new_mode()
    export_pass = ExportPass()

    first = export_pass(constant_mul_graph(first_mode)).graph_module
    second = export_pass(constant_mul_graph(second_mode)).graph_module

    assert fake_modes(first) == {id(first_mode)}
    assert fake_modes(second) == {id(second_mode)}


def test_an_unrelated_active_mode_is_not_used() -> None:
    # The graph's mode is entered inside the ambient one and wins; the
    # ambient mode's tensors never reach the graph.
    mode, ambient = new_mode(), FakeTensorMode()
    graph_module = constant_mul_graph(mode)

    with ambient:
        result = ExportPass()(graph_module).graph_module

    assert fake_modes(result) == {id(mode)}


def test_constant_placeholders_of_two_modes_are_rejected() -> None:
    graph_module = constant_mul_graph(new_mode())
    rhs = [n for n in graph_module.graph.nodes if n.op == "placeholder"][1]
    rhs.meta["val"] = constant_fake(3.0, new_mode())

    with pytest.raises(AssertionError, match="Multiple fake tensor mode detected."):
        ExportPass()(graph_module)


def test_a_plain_fake_input_decides_over_constant_placeholders() -> None:
    # A FakeTensor input picks the mode exactly as before the fix; constant
    # placeholders of another mode do not raise (unfixed behaviour kept).
    mode = new_mode()
    graph_module = constant_mul_graph(new_mode())
    rhs = [n for n in graph_module.graph.nodes if n.op == "placeholder"][1]
    with mode:
        rhs.meta["val"] = torch.empty(())
    export_pass = ExportPass()

    export_pass(graph_module)

    assert export_pass.fake_tensor_mode is mode
    assert isinstance(rhs.meta["val"], FakeTensor)
