"""Variants of ``call`` written by adversary-3, the last fresh reviewer of #38,
started after the tests had taken adversary-2's survivors; it had read neither
the tests nor the earlier adversaries' work: 12 it calls wrong (each with the
witness it names, in ``adversary_3_witnesses``) and 3 it calls right. Kept as
written (/work/notes/adversary-3); ``variants`` judges them like every other.
"""

# flake8: noqa


HEAD = """    def call(self, graph_module: fx.GraphModule) -> PassResult:
        if not getattr(self, "_initialized", False):
            raise ExportPassBaseError(
                "ExportPass is not initialized with __init__().",
            )
        inputs = self.inputs(graph_module)
"""
PHS = """        phs = [n.meta.get("val") for n in graph_module.graph.nodes if n.op == "placeholder"]
"""
TAIL_FOUND = """        if fake_tensor_mode is None:
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)
            dispatcher_mode = nullcontext()
        else:
            fake_tensor_mode.allow_non_fake_inputs = True
            dispatcher_mode = enable_python_dispatcher()
        self.tracer.fake_tensor_mode = fake_tensor_mode
        self.fake_tensor_mode = fake_tensor_mode
        with fake_tensor_mode, dispatcher_mode:
            result = self.call_submodule(graph_module, tuple(inputs))
        return result
"""
SCAN = """        fake_tensor_mode = None
        for i in vals:
            if isinstance(i, FakeTensor):
                assert fake_tensor_mode is None or fake_tensor_mode is i.fake_mode, "Multiple fake tensor mode detected."
                fake_tensor_mode = i.fake_mode
"""


def v(name, kind, reason, witness, body):
    d = {"name": name, "kind": kind, "reason": reason, "text": HEAD + body}
    if kind == "wrong":
        d["witness"] = witness
    return d


VARIANTS = [
    v(
        "all_nodes_scan",
        "wrong",
        "falls back to meta['val'] of every node, not just placeholders: a graph without fake "
        "placeholders is retraced into the mode of a stale interior val",
        "w_no_fake_interior_val",
        """        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = [n.meta.get("val") for n in graph_module.graph.nodes]
            vals = [x for v in vals for x in pytree.tree_leaves(v)]
"""
        + SCAN
        + TAIL_FOUND,
    ),
    v(
        "detect_fake_mode",
        "wrong",
        "uses torch._guards.detect_fake_mode on placeholder vals; it also consults the ambient "
        "mode/TracingContext and asserts when the pass runs under another mode",
        "w_const_in_active_mode",
        PHS
        + """        from torch._guards import detect_fake_mode
        fake_tensor_mode = detect_fake_mode([i for i in inputs if isinstance(i, FakeTensor)] or [p for p in phs if isinstance(p, FakeTensor)])
"""
        + TAIL_FOUND,
    ),
    v(
        "ambient_before_placeholders",
        "wrong",
        "when inputs hold no FakeTensor, prefers the currently active FakeTensorMode over the "
        "placeholders' constants: inside another mode the retrace lands in that mode",
        "w_const_in_active_mode",
        PHS
        + """        from torch._subclasses.fake_tensor import maybe_get_fake_mode
        from torch._guards import active_fake_mode
        vals = inputs
        fake_tensor_mode = None
        if not any(isinstance(i, FakeTensor) for i in inputs):
            fake_tensor_mode = active_fake_mode()
            vals = phs if fake_tensor_mode is None else []
"""
        + SCAN.replace("        fake_tensor_mode = None\n", "")
        + TAIL_FOUND,
    ),
    v(
        "always_placeholder_vals",
        "wrong",
        "always scans placeholders' meta['val'] with the single-mode assert: a plain input of "
        "mode A plus a constant of mode B now raises instead of retracing into A",
        "w_mixed_plain_first",
        PHS
        + """        vals = phs
"""
        + SCAN
        + TAIL_FOUND,
    ),
    v(
        "first_fake_placeholder_wins",
        "wrong",
        "takes the mode of the first FakeTensor placeholder (no assert): a constant of mode B "
        "listed before a plain input of A makes the retrace run under B with an A input",
        "w_mixed_const_first",
        PHS
        + """        fake_tensor_mode = next((p.fake_mode for p in phs if isinstance(p, FakeTensor)), None)
"""
        + TAIL_FOUND,
    ),
    v(
        "cache_mode_on_instance",
        "wrong",
        "reuses self.fake_tensor_mode when an earlier call set it; a reused instance "
        "(EdgeProgramManager.transform) retraces the next graph in the previous graph's mode",
        "w_const_after_reuse",
        PHS
        + """        vals = inputs if any(isinstance(i, FakeTensor) for i in inputs) else phs
        fake_tensor_mode = getattr(self, "fake_tensor_mode", None)
        if fake_tensor_mode is None:
            for i in vals:
                if isinstance(i, FakeTensor):
                    assert fake_tensor_mode is None or fake_tensor_mode is i.fake_mode, "Multiple fake tensor mode detected."
                    fake_tensor_mode = i.fake_mode
"""
        + TAIL_FOUND,
    ),
    v(
        "cached_mode_as_fallback",
        "wrong",
        "replaces the fresh-mode fallback with the mode left by the previous call: a graph "
        "without fake placeholders is traced in an earlier graph's mode",
        "w_no_fake_after_reuse",
        PHS
        + """        vals = inputs if any(isinstance(i, FakeTensor) for i in inputs) else phs
"""
        + SCAN
        + """        if fake_tensor_mode is None:
            fake_tensor_mode = getattr(self, "fake_tensor_mode", None)
"""
        + TAIL_FOUND,
    ),
    v(
        "no_allow_non_fake_for_constants",
        "wrong",
        "sets allow_non_fake_inputs only for a mode found among inputs(), not for one found "
        "from constants: a mode made with the default (False) rejects the real constants",
        "w_const_only_strict_mode",
        PHS
        + """        from_consts = not any(isinstance(i, FakeTensor) for i in inputs)
        vals = phs if from_consts else inputs
"""
        + SCAN
        + """        if fake_tensor_mode is None:
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)
            dispatcher_mode = nullcontext()
        else:
            if not from_consts:
                fake_tensor_mode.allow_non_fake_inputs = True
            dispatcher_mode = enable_python_dispatcher()
        self.tracer.fake_tensor_mode = fake_tensor_mode
        self.fake_tensor_mode = fake_tensor_mode
        with fake_tensor_mode, dispatcher_mode:
            result = self.call_submodule(graph_module, tuple(inputs))
        return result
""",
    ),
    v(
        "fakeify_constants_from_tensor",
        "wrong",
        "converts the real constants to FakeTensors of M (from_tensor) before retracing: "
        "placeholder() overrides no longer receive the constants' real values",
        "w_placeholder_gets_real",
        PHS
        + """        vals = inputs if any(isinstance(i, FakeTensor) for i in inputs) else phs
"""
        + SCAN
        + """        if fake_tensor_mode is not None:
            inputs = [fake_tensor_mode.from_tensor(i) if isinstance(i, torch.Tensor) and not isinstance(i, FakeTensor) else i for i in inputs]
"""
        + TAIL_FOUND,
    ),
    v(
        "pass_placeholder_vals",
        "wrong",
        "hands the placeholders' own meta['val'] (constant-carrying FakeTensors) to the "
        "retrace instead of inputs(): placeholder() sees fakes, not the real constants",
        "w_placeholder_gets_real",
        PHS
        + """        vals = inputs if any(isinstance(i, FakeTensor) for i in inputs) else phs
"""
        + SCAN
        + """        if vals is phs and fake_tensor_mode is not None:
            inputs = phs
"""
        + TAIL_FOUND,
    ),
    v(
        "first_placeholder_only",
        "wrong",
        "looks only at the first placeholder's val: a graph starting with a scalar (int) "
        "placeholder followed by constants gets a fresh second mode again",
        "w_first_ph_scalar",
        PHS
        + """        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = phs[:1]
"""
        + SCAN
        + TAIL_FOUND,
    ),
    v(
        "strip_constants_in_place",
        "wrong",
        "makes inputs() see fakes by clearing .constant on the caller's placeholder vals "
        "(replacing them with plain fakes): mutates the input graph and loses real values",
        "w_input_unchanged",
        """        for n in graph_module.graph.nodes:
            val = n.meta.get("val")
            if n.op == "placeholder" and isinstance(val, FakeTensor) and val.constant is not None:
                with val.fake_mode:
                    n.meta["val"] = torch.empty_like(val)
        inputs = self.inputs(graph_module)
"""
        + """        vals = inputs
"""
        + SCAN
        + TAIL_FOUND,
    ),
    # ---- RIGHT ones
    v(
        "right_prefer_plain_then_consts",
        "right",
        "collects plain FakeTensor modes first, constant ones only if there are none; same "
        "assert",
        None,
        PHS
        + """        plain = [i for i in inputs if isinstance(i, FakeTensor)]
        vals = plain if plain else [p for p in phs if isinstance(p, FakeTensor)]
"""
        + SCAN
        + TAIL_FOUND,
    ),
    v(
        "right_pytree_find_nodes",
        "right",
        "uses graph.find_nodes(op='placeholder') and pytree leaves of vals",
        None,
        """        vals = [x for x in pytree.tree_leaves(inputs) if isinstance(x, FakeTensor)]
        if not vals:
            vals = [x for n in graph_module.graph.find_nodes(op="placeholder") for x in pytree.tree_leaves(n.meta.get("val")) if isinstance(x, FakeTensor)]
        modes = []
        for x in vals:
            if not any(x.fake_mode is m for m in modes):
                modes.append(x.fake_mode)
        assert len(modes) <= 1, "Multiple fake tensor mode detected."
        fake_tensor_mode = modes[0] if modes else None
"""
        + TAIL_FOUND,
    ),
    v(
        "right_constants_take_first_mode",
        "right",
        "constant-only graphs in two modes take the first constant's mode instead of raising "
        "(contract 3 allows either)",
        None,
        PHS
        + """"""
        + """        vals = inputs
"""
        + SCAN
        + """        if fake_tensor_mode is None:
            fake_tensor_mode = next((p.fake_mode for p in phs if isinstance(p, FakeTensor)), None)
"""
        + TAIL_FOUND,
    ),
]
