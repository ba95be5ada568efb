"""Witnesses written by adversary-6, the fresh reviewer of #38 started after
the tests took adversary-4's and two maintainer reviews' survivors; it had
read neither the tests nor the earlier adversaries' work: graphs on which a
variant of ``call`` shows a user a failure. Each returns ``one mode`` for
the correct result, or what a user sees; each gives ``one mode`` with the
fix on ExecuTorch 1.5.1 (torch 2.13) and 1.0.0 (torch 2.9.1). Kept as
written (/work/notes/adversary-6), but for a module-wide warnings filter,
dropped. Importing this module imports torch and executorch.
"""

# flake8: noqa

import torch
from executorch.exir.pass_base import ExportPass
from torch import fx
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.utils import _pytree as pytree

add = torch.ops.aten.add.Tensor
mul = torch.ops.aten.mul.Tensor


def const(mode, real):
    # meta tensor made outside any FakeTensorMode
    return FakeTensor(
        mode,
        torch.empty(real.shape, dtype=real.dtype, device="meta"),
        torch.device("cpu"),
        constant=real,
    )


def build(specs, body):
    g = fx.Graph()
    phs = []
    for name, val in specs:
        p = g.placeholder(name)
        p.meta["val"] = val
        phs.append(p)
    g.output(body(g, phs))
    return fx.GraphModule(torch.nn.Module(), g)


def fakes(gm):
    out = []
    for n in gm.graph.nodes:
        for leaf in pytree.tree_leaves(n.meta.get("val")):
            if isinstance(leaf, FakeTensor):
                out.append(leaf)
    return out


def check(gm, want=None, avoid=(), computed_only=False):
    fs = fakes(gm)
    if computed_only:
        fs = [
            f
            for n in gm.graph.nodes
            if n.op != "placeholder"
            for f in pytree.tree_leaves(n.meta.get("val"))
            if isinstance(f, FakeTensor)
        ]
    modes = {id(f.fake_mode): f.fake_mode for f in fs}
    if len(modes) != 1:
        return f"{len(modes)} modes"
    m = next(iter(modes.values()))
    if want is not None and m is not want:
        return "wrong mode"
    if any(m is a for a in avoid):
        return "stale/reused mode"
    return "one mode"


def guard(f):
    def g():
        try:
            return f()
        except Exception as e:  # noqa
            return f"raises {type(e).__name__}"

    g.__name__ = f.__name__
    return g


def all_const_graph(mode):
    return build(
        [
            ("c0", const(mode, torch.ones(3))),
            ("c1", const(mode, torch.full((3,), 2.0))),
        ],
        lambda g, p: (g.call_function(add, (p[0], p[1])),),
    )


@guard
def basic():
    m = FakeTensorMode(allow_non_fake_inputs=True)
    return check(ExportPass()(all_const_graph(m)).graph_module, want=m)


@guard
def strict_mode():
    # exported programs' modes have allow_non_fake_inputs=False
    m = FakeTensorMode()
    return check(ExportPass()(all_const_graph(m)).graph_module, want=m)


@guard
def int_first():
    m = FakeTensorMode()
    gm = build(
        [("n", 3), ("c0", const(m, torch.ones(3)))],
        lambda g, p: (g.call_function(mul, (p[1], p[1])),),
    )
    return check(ExportPass()(gm).graph_module, want=m)


@guard
def real_then_const():
    m = FakeTensorMode()
    gm = build(
        [("r", torch.ones(3)), ("c0", const(m, torch.ones(3)))],
        lambda g, p: (g.call_function(add, (p[0], p[1])),),
    )
    return check(ExportPass()(gm).graph_module, want=m)


@guard
def unused_const():
    # the only FakeTensor placeholder is an unused constant; the pass computes on a real input
    m = FakeTensorMode()
    gm = build(
        [("c0", const(m, torch.ones(3))), ("r", torch.ones(3))],
        lambda g, p: (g.call_function(add, (p[1], p[1])),),
    )
    return check(ExportPass()(gm).graph_module, want=m)


@guard
def plain_after_foreign_const():
    a, b = FakeTensorMode(), FakeTensorMode()
    gm = build(
        [("c0", const(b, torch.ones(3))), ("x", a.from_tensor(torch.ones(3)))],
        lambda g, p: (g.call_function(add, (p[1], p[0])),),
    )
    return check(ExportPass()(gm).graph_module, want=a, computed_only=True)


@guard
def plain_before_foreign_const():
    a, b = FakeTensorMode(), FakeTensorMode()
    gm = build(
        [("x", a.from_tensor(torch.ones(3))), ("c0", const(b, torch.ones(3)))],
        lambda g, p: (g.call_function(add, (p[0], p[1])),),
    )
    return check(ExportPass()(gm).graph_module, want=a, computed_only=True)


@guard
def reused_then_real():
    # one instance (as EdgeProgramManager.transform) over a constants graph, then a real graph
    m = FakeTensorMode()
    p = ExportPass()
    p(all_const_graph(m))
    gm = build(
        [("r", torch.ones(3))], lambda g, ph: (g.call_function(add, (ph[0], ph[0])),)
    )
    return check(p(gm).graph_module, avoid=(m,))


@guard
def reused_two_modes():
    m1, m2 = FakeTensorMode(), FakeTensorMode()
    p = ExportPass()
    p(all_const_graph(m1))
    return check(p(all_const_graph(m2)).graph_module, want=m2)


@guard
def stale_vals_real_graph():
    s = FakeTensorMode()

    def body(g, ph):
        n = g.call_function(add, (ph[0], ph[0]))
        n.meta["val"] = s.from_tensor(torch.ones(3))
        return (g.call_function(add, (n, n)),)

    gm = build([("r", torch.ones(3))], body)
    return check(ExportPass()(gm).graph_module, avoid=(s,))


@guard
def under_other_active_mode():
    m = FakeTensorMode()
    gm = all_const_graph(m)
    with FakeTensorMode():
        r = ExportPass()(gm).graph_module
    return check(r, want=m)


@guard
def caller_graph_kept():
    m = FakeTensorMode()
    gm = all_const_graph(m)
    before = [
        (n.meta["val"], n.meta["val"].constant)
        for n in gm.graph.nodes
        if n.op == "placeholder"
    ]
    ExportPass()(gm)
    after = [
        (n.meta["val"], n.meta["val"].constant)
        for n in gm.graph.nodes
        if n.op == "placeholder"
    ]
    if any(v1 is not v2 or c1 is not c2 for (v1, c1), (v2, c2) in zip(before, after)):
        return "caller graph changed"
    return "one mode"


class _Recorder(ExportPass):
    def placeholder(self, name, arg, meta):
        self.seen.append(arg)
        return super().placeholder(name, arg, meta)


@guard
def placeholder_gets_real():
    m = FakeTensorMode()
    gm = all_const_graph(m)
    p = _Recorder()
    p.seen = []
    r = p(gm).graph_module
    reals = [n.meta["val"].constant for n in gm.graph.nodes if n.op == "placeholder"]
    if len(p.seen) != len(reals) or any(a is not b for a, b in zip(p.seen, reals)):
        return "placeholder got " + ",".join(type(a).__name__ for a in p.seen)
    return check(r, want=m)


class _Creator(ExportPass):
    # a user's pass that creates a new tensor and adds it to every add
    def call_operator(self, op, args, kwargs, meta):
        if op == add:
            out = super().call_operator(op, args, kwargs, meta)
            z = super().call_operator(
                torch.ops.aten.full.default, ((3,), 0.0), {}, meta
            )
            return super().call_operator(add, (out, z), {}, meta)
        return super().call_operator(op, args, kwargs, meta)


@guard
def exported_constants_only():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c = torch.ones(3)

        def forward(self):
            return self.c + self.c

    ep = torch.export.export(M(), ())
    ph = [n.meta["val"] for n in ep.graph_module.graph.nodes if n.op == "placeholder"]
    assert all(v.constant is not None for v in ph)
    m = ph[0].fake_mode
    return check(_Creator()(ep.graph_module).graph_module, want=m)


WITNESSES = [
    (f.__name__, f)
    for f in [
        basic,
        strict_mode,
        int_first,
        real_then_const,
        unused_const,
        plain_after_foreign_const,
        plain_before_foreign_const,
        reused_then_real,
        reused_two_modes,
        stale_vals_real_graph,
        under_other_active_mode,
        caller_graph_kept,
        placeholder_gets_real,
        exported_constants_only,
    ]
]

if __name__ == "__main__":
    for n, f in WITNESSES:
        print(n, f())
