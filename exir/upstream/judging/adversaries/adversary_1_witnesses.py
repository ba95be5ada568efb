"""Witnesses written by adversary-1, a fresh reviewer of #38 who had not read
the tests: graphs on which a variant of ``call`` shows a user a failure.
Each returns ``one mode`` (the result holds the expected mode only), or what
a user sees: ``N modes``, ``mode not M`` (another mode, or for a graph
without FakeTensors the mode of an earlier call), ``raises ...``, ``wrong
values``. Kept as the adversary wrote them (/work/notes/adversary-1), but
for the imports. Importing this module imports torch and executorch.
"""

# flake8: noqa
import torch
from executorch.exir.pass_base import _ExportPassBase, ExportPass
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.utils import _pytree as pytree


# --------------------------------------------------------------------------
# graph helpers
# --------------------------------------------------------------------------


def const_fake(mode, value):
    """A FakeTensor of ``mode`` carrying its real value (a lifted constant)."""
    real = torch.tensor(value)
    return FakeTensor(
        mode,
        torch.empty(real.shape, dtype=real.dtype, device="meta"),
        torch.device("cpu"),
        constant=real,
    )


def plain_fake(mode, shape):
    with mode:
        return torch.empty(shape)


def _gm(graph):
    return torch.fx.GraphModule(torch.nn.Module(), graph)


def const_graph(mode, names=("c_lhs", "c_rhs"), values=(2.0, 3.0)):
    """The issue's repro: mul of two lifted constants, nothing else."""
    g = torch.fx.Graph()
    a = g.placeholder(names[0])
    b = g.placeholder(names[1])
    a.meta["val"] = const_fake(mode, values[0])
    b.meta["val"] = const_fake(mode, values[1])
    m = g.call_function(torch.ops.aten.mul.Tensor, (a, b))
    with mode:
        m.meta["val"] = torch.ops.aten.mul.Tensor(a.meta["val"], b.meta["val"])
    out = g.output((m,))
    out.meta["val"] = (m.meta["val"],)
    return _gm(g)


def plain_graph(mode):
    """x * 2 with x a plain FakeTensor of ``mode``."""
    g = torch.fx.Graph()
    x = g.placeholder("x")
    x.meta["val"] = plain_fake(mode, (3,))
    m = g.call_function(torch.ops.aten.mul.Tensor, (x, 2.0))
    with mode:
        m.meta["val"] = x.meta["val"] * 2.0
    g.output((m,))
    return _gm(g)


def modes_of(gm):
    out = []
    for n in gm.graph.nodes:
        for leaf in pytree.tree_leaves(n.meta.get("val")):
            if isinstance(leaf, FakeTensor) and all(
                leaf.fake_mode is not m for m in out
            ):
                out.append(leaf.fake_mode)
    return out


def verdict(gm, expected=None, forbidden=()):
    ms = modes_of(gm)
    if len(ms) > 1:
        return f"{len(ms)} modes"
    if not ms:
        return "no fake tensor"
    if expected is not None and ms[0] is not expected:
        return "mode not M"
    if any(ms[0] is f for f in forbidden):
        return "mode not M"  # an earlier call's mode, not a new one
    return "one mode"


# --------------------------------------------------------------------------
# passes used by witnesses
# --------------------------------------------------------------------------


class AddHalfPass(ExportPass):
    """A pass that creates a tensor itself: after every mul it adds a new
    constant 0.5, which the tracer lifts into a get_attr node."""

    def call_operator(self, op, args, kwargs, meta):
        res = super().call_operator(op, args, kwargs, meta)
        if op == torch.ops.aten.mul.Tensor:
            half = torch.tensor(0.5)
            res = super().call_operator(
                torch.ops.aten.add.Tensor, (res, half), {}, meta
            )
        return res


class RecordingPass(ExportPass):
    """placeholder() override that reads the constants' real values."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def placeholder(self, name, arg, meta):
        self.seen.append(arg)
        return super().placeholder(name, arg, meta)


class BasePass(_ExportPassBase):
    """A pass built on the base class (no placeholder meta restore)."""


# --------------------------------------------------------------------------
# witnesses
# --------------------------------------------------------------------------


def w_issue_repro():
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    return verdict(ExportPass()(const_graph(mode)).graph_module, mode)


def w_const_only_export_mode():
    # torch.export's own mode has allow_non_fake_inputs=False; the graph
    # makes a tensor (like the issue's arange) and combines it with the
    # constants, so the real constant values meet a fake tensor
    mode = FakeTensorMode()
    g = torch.fx.Graph()
    c = g.placeholder("_lifted_tensor_constant0")
    c.meta["val"] = const_fake(mode, 2.0)
    f = g.call_function(torch.ops.aten.full.default, ([4], 1.0))
    m = g.call_function(torch.ops.aten.mul.Tensor, (f, c))
    g.output((m,))
    return verdict(ExportPass()(_gm(g)).graph_module, mode)


def w_const_and_int():
    # a lifted constant beside an int placeholder (e.g. a size argument)
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    g = torch.fx.Graph()
    c = g.placeholder("_lifted_tensor_constant0")
    n = g.placeholder("n")
    c.meta["val"] = const_fake(mode, [1.0, 2.0, 3.0])
    n.meta["val"] = 3
    m = g.call_function(torch.ops.aten.mul.Tensor, (c, n))
    g.output((m,))
    return verdict(ExportPass()(_gm(g)).graph_module, mode)


def w_const_and_valless_placeholder():
    # an unused placeholder without meta (inputs() gives None for it)
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    gm = const_graph(mode)
    first = next(iter(gm.graph.nodes))
    with gm.graph.inserting_before(first):
        gm.graph.placeholder("unused")
    gm.recompile()
    # on the base class: ExportPass's placeholder-meta restore needs "val"
    return verdict(BasePass()(gm).graph_module, mode)


def w_const_and_symint():
    # a lifted constant beside a SymInt placeholder of the same program
    from torch._dynamo.source import ConstantSource
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    shape_env = ShapeEnv()
    mode = FakeTensorMode(shape_env=shape_env, allow_non_fake_inputs=True)
    sym = shape_env.create_symintnode(
        shape_env.create_symbol(4, ConstantSource("s0")), hint=4
    )
    g = torch.fx.Graph()
    c = g.placeholder("_lifted_tensor_constant0")
    n = g.placeholder("s0")
    c.meta["val"] = const_fake(mode, 2.0)
    n.meta["val"] = sym
    f = g.call_function(torch.ops.aten.full.default, ([n], 1.0))
    m = g.call_function(torch.ops.aten.mul.Tensor, (f, c))
    g.output((m,))
    return verdict(ExportPass()(_gm(g)).graph_module, mode)


def w_meta_args_real_values():
    # inputs() returns graph_module.meta["args"] when present; here the
    # recorded args are real tensors while the placeholder's meta["val"]
    # is a plain FakeTensor of M
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    g = torch.fx.Graph()
    x = g.placeholder("x")
    x.meta["val"] = plain_fake(mode, (3,))
    m = g.call_function(torch.ops.aten.mul.Tensor, (x, 2.0))
    g.output((m,))
    gm = _gm(g)
    gm.meta["args"] = (torch.ones(3),)
    return verdict(ExportPass()(gm).graph_module, mode)


def w_unused_constant_only_carrier():
    # the only FakeTensor is a constant the graph never reads; the graph
    # makes its own tensor (full) - it must still be in the constant's mode
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    g = torch.fx.Graph()
    c = g.placeholder("_lifted_tensor_constant0")
    c.meta["val"] = const_fake(mode, 1.0)
    f = g.call_function(torch.ops.aten.full.default, ([2], 1.0))
    g.output((f,))
    return verdict(ExportPass()(_gm(g)).graph_module, mode)


def w_reused_plain_then_const():
    # one instance over two programs of different modes
    a = FakeTensorMode(allow_non_fake_inputs=True)
    b = FakeTensorMode(allow_non_fake_inputs=True)
    p = ExportPass()
    p(plain_graph(a))
    return verdict(p(const_graph(b)).graph_module, b)


def w_reused_plain_then_nofake():
    # C2: a graph with no FakeTensor is traced in a new mode, not the
    # mode of an earlier call
    a = FakeTensorMode(allow_non_fake_inputs=True)
    p = ExportPass()
    p(plain_graph(a))
    g = torch.fx.Graph()
    x = g.placeholder("x")
    x.meta["val"] = torch.ones(3)
    m = g.call_function(torch.ops.aten.mul.Tensor, (x, 2.0))
    g.output((m,))
    return verdict(p(_gm(g)).graph_module, None, forbidden=(a,))


def w_two_instances_nofake():
    # C2 across instances: each no-fake graph gets its own new mode
    def nofake():
        g = torch.fx.Graph()
        x = g.placeholder("x")
        x.meta["val"] = torch.ones(3)
        m = g.call_function(torch.ops.aten.add.Tensor, (x, x))
        g.output((m,))
        return _gm(g)

    first = modes_of(ExportPass()(nofake()).graph_module)
    return verdict(ExportPass()(nofake()).graph_module, None, forbidden=first)


def w_nofake_real_values():
    # upstream fallback: real-valued placeholders traced under a fresh
    # FakeTensorMode(allow_non_fake_inputs=True)
    g = torch.fx.Graph()
    x = g.placeholder("x")
    y = g.placeholder("y")
    x.meta["val"] = torch.ones(3)
    y.meta["val"] = torch.ones(3)
    m = g.call_function(torch.ops.aten.mul.Tensor, (x, y))
    g.output((m,))
    return verdict(ExportPass()(_gm(g)).graph_module)


def w_pass_creates_constant():
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    return verdict(AddHalfPass()(const_graph(mode)).graph_module, mode)


def w_pass_creates_constant_reused():
    a = FakeTensorMode(allow_non_fake_inputs=True)
    b = FakeTensorMode(allow_non_fake_inputs=True)
    p = AddHalfPass()
    p(plain_graph(a))
    return verdict(p(const_graph(b)).graph_module, b)


def w_under_unrelated_mode():
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    gm = const_graph(mode)
    with FakeTensorMode():
        res = ExportPass()(gm)
    return verdict(res.graph_module, mode)


def w_under_tracing_context():
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    gm = const_graph(mode)
    ctx = torch._guards.TracingContext(FakeTensorMode())
    with torch._guards.tracing(ctx):
        res = ExportPass()(gm)
    return verdict(res.graph_module, mode)


def w_plain_and_const_of_other_mode():
    # C3: plain input of A, constant of B (listed first); A is used and the
    # constant retraced into it
    a = FakeTensorMode(allow_non_fake_inputs=True)
    b = FakeTensorMode(allow_non_fake_inputs=True)
    g = torch.fx.Graph()
    c = g.placeholder("_lifted_tensor_constant0")
    x = g.placeholder("x")
    c.meta["val"] = const_fake(b, 2.0)
    x.meta["val"] = plain_fake(a, (3,))
    m = g.call_function(torch.ops.aten.mul.Tensor, (x, c))
    g.output((m,))
    return verdict(BasePass()(_gm(g)).graph_module, a)


def w_stale_computed_vals():
    # a graph as upstream's bug leaves it: placeholders in M, computed
    # values in another mode; the pass retraces everything into M
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    other = FakeTensorMode(allow_non_fake_inputs=True)
    gm = const_graph(mode)
    for n in gm.graph.nodes:
        if n.op == "call_function":
            n.meta["val"] = plain_fake(other, ())
        if n.op == "output":
            n.meta["val"] = (plain_fake(other, ()),)
    return verdict(ExportPass()(gm).graph_module, mode)


def w_placeholder_override_values():
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    p = RecordingPass()
    res = p(const_graph(mode))
    got = [None if isinstance(v, FakeTensor) else float(v) for v in p.seen]
    if got != [2.0, 3.0]:
        return "wrong values"
    return verdict(res.graph_module, mode)


def w_constants_named_by_tracer():
    # constants whose placeholder names follow no lifting convention
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    gm = const_graph(mode, names=("arg0_1", "arg1_1"))
    return verdict(ExportPass()(gm).graph_module, mode)


def w_input_graph_untouched():
    # the pass must not change the caller's graph: the constants'
    # FakeTensors still carry their values afterwards
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    gm = const_graph(mode)
    res = ExportPass()(gm)
    for n in gm.graph.nodes:
        if n.op == "placeholder" and n.meta["val"].constant is None:
            return "wrong values"
    return verdict(res.graph_module, mode)


WITNESSES = [
    ("issue_repro", w_issue_repro),
    ("const_only_export_mode", w_const_only_export_mode),
    ("const_and_int", w_const_and_int),
    ("const_and_valless_placeholder", w_const_and_valless_placeholder),
    ("unused_constant_only_carrier", w_unused_constant_only_carrier),
    ("const_and_symint", w_const_and_symint),
    ("meta_args_real_values", w_meta_args_real_values),
    ("reused_plain_then_const", w_reused_plain_then_const),
    ("reused_plain_then_nofake", w_reused_plain_then_nofake),
    ("two_instances_nofake", w_two_instances_nofake),
    ("nofake_real_values", w_nofake_real_values),
    ("pass_creates_constant", w_pass_creates_constant),
    ("pass_creates_constant_reused", w_pass_creates_constant_reused),
    ("under_unrelated_mode", w_under_unrelated_mode),
    ("under_tracing_context", w_under_tracing_context),
    ("plain_and_const_of_other_mode", w_plain_and_const_of_other_mode),
    ("stale_computed_vals", w_stale_computed_vals),
    ("placeholder_override_values", w_placeholder_override_values),
    ("constants_named_by_tracer", w_constants_named_by_tracer),
    ("input_graph_untouched", w_input_graph_untouched),
]
