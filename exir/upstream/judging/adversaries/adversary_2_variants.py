"""Variants of ``call`` written by adversary-2, a second fresh reviewer of #38
who had read neither the tests nor adversary-1's work: 18 it calls wrong (each
with the witness it names, in ``adversary_2_witnesses``) and 4 it calls right.
Kept as written (/work/notes/adversary-2); ``variants`` judges them like every
other.
"""

# flake8: noqa


H = "    def call(self, graph_module: fx.GraphModule) -> PassResult:\n"
INIT = """        if not getattr(self, "_initialized", False):
            raise ExportPassBaseError(
                "ExportPass is not initialized with __init__().",
            )
"""
TAIL = """        if fake_tensor_mode is None:
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)
            dispatcher_mode = nullcontext()  # type: ignore[assignment]
        else:
            fake_tensor_mode.allow_non_fake_inputs = True
            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]
        self.tracer.fake_tensor_mode = fake_tensor_mode
        self.fake_tensor_mode = fake_tensor_mode

        with fake_tensor_mode, dispatcher_mode:  # type: ignore[assignment, union-attr]
            result = self.call_submodule(graph_module, tuple(inputs))

        return result
"""
SCAN_INPUTS = """        fake_tensor_mode = None
        for i in inputs:
            if isinstance(i, FakeTensor):
                assert (
                    fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                ), "Multiple fake tensor mode detected."
                fake_tensor_mode = i.fake_mode
"""
PH_VALS = """        vals = [
            node.meta.get("val")
            for node in graph_module.graph.nodes
            if node.op == "placeholder"
        ]
"""


def _v(name, kind, reason, body, witness=None, tail=TAIL):
    d = {"name": name, "kind": kind, "reason": reason, "text": H + INIT + body + tail}
    if witness:
        d["witness"] = witness
    return d


VARIANTS = [
    # ------------------------------------------------------------ wrong
    _v(
        "upstream_unfixed",
        "wrong",
        "No change at all: the scan over inputs() looks fine in review.",
        "        inputs = self.inputs(graph_module)\n" + SCAN_INPUTS,
        "const_only",
    ),
    _v(
        "scan_all_placeholder_vals",
        "wrong",
        "The obvious fix: scan node.meta['val'] of every placeholder instead of "
        "inputs(), keeping the assert.",
        "        inputs = self.inputs(graph_module)\n"
        + PH_VALS
        + SCAN_INPUTS.replace("for i in inputs:", "for i in vals:"),
        "mixed_const_first",
    ),
    _v(
        "first_placeholder_fake_wins",
        "wrong",
        "Lenient scan: take the first FakeTensor among the placeholder vals, "
        "dropping the assert so mixed graphs do not abort.",
        "        inputs = self.inputs(graph_module)\n"
        + PH_VALS
        + """        fake_tensor_mode = next(
            (v.fake_mode for v in vals if isinstance(v, FakeTensor)), None
        )
""",
        "mixed_const_first",
    ),
    _v(
        "cache_mode_on_instance",
        "wrong",
        "Detect once and remember it on self (the pass already has a "
        "fake_tensor_mode attribute); later calls reuse it.",
        "        inputs = self.inputs(graph_module)\n"
        + """        fake_tensor_mode = self.fake_tensor_mode
        if fake_tensor_mode is None:
"""
        + "".join(
            "    " + l + "\n"
            for l in (
                PH_VALS
                + """        for i in vals:
            if isinstance(i, FakeTensor):
                assert (
                    fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                ), "Multiple fake tensor mode detected."
                fake_tensor_mode = i.fake_mode
"""
            ).splitlines()
        ),
        "reuse_two_graphs",
    ),
    _v(
        "fallback_to_previous_mode",
        "wrong",
        "When nothing is found, fall back to self.fake_tensor_mode (the mode "
        "the pass used before) instead of a second new mode.",
        "        inputs = self.inputs(graph_module)\n"
        + PH_VALS
        + """        fake_tensor_mode = None
        if any(isinstance(i, FakeTensor) for i in inputs):
            vals = inputs
        for i in vals:
            if isinstance(i, FakeTensor):
                assert (
                    fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                ), "Multiple fake tensor mode detected."
                fake_tensor_mode = i.fake_mode
        if fake_tensor_mode is None:
            fake_tensor_mode = self.fake_tensor_mode
""",
        "reuse_then_nofake",
    ),
    _v(
        "detect_fake_mode",
        "wrong",
        "Use torch's own torch._guards.detect_fake_mode over the placeholder "
        "vals instead of a hand-written scan.",
        "        inputs = self.inputs(graph_module)\n"
        + PH_VALS
        + """        if any(isinstance(i, FakeTensor) for i in inputs):
            vals = inputs
        fake_tensor_mode = torch._guards.detect_fake_mode(vals)
""",
        "tracing_context",
    ),
    _v(
        "prefer_active_mode",
        "wrong",
        "If the caller already runs under a FakeTensorMode, trace in it rather "
        "than entering another one.",
        "        inputs = self.inputs(graph_module)\n"
        + """        fake_tensor_mode = torch._guards.active_fake_mode()
        if fake_tensor_mode is None:
            vals = inputs
            if not any(isinstance(i, FakeTensor) for i in inputs):
                vals = [
                    node.meta.get("val")
                    for node in graph_module.graph.nodes
                    if node.op == "placeholder"
                ]
            for i in vals:
                if isinstance(i, FakeTensor):
                    assert (
                        fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                    ), "Multiple fake tensor mode detected."
                    fake_tensor_mode = i.fake_mode
""",
        "ambient_mode",
    ),
    _v(
        "all_inputs_constant_gate",
        "wrong",
        "Handle exactly the reported case: only when every input is an "
        "unwrapped (real) constant tensor, look at the placeholders.",
        "        inputs = self.inputs(graph_module)\n"
        + """        vals = inputs
        if inputs and all(
            isinstance(i, torch.Tensor) and not isinstance(i, FakeTensor)
            for i in inputs
        ):
            vals = [
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
            ]
"""
        + SCAN_INPUTS.replace("for i in inputs:", "for i in vals:"),
        "const_plus_int",
    ),
    _v(
        "first_placeholder_only",
        "wrong",
        "Lifted constants of one graph share a mode, so looking at the first "
        "placeholder's val is enough.",
        "        inputs = self.inputs(graph_module)\n"
        + SCAN_INPUTS
        + """        if fake_tensor_mode is None:
            first = next(
                (n for n in graph_module.graph.nodes if n.op == "placeholder"),
                None,
            )
            val = first.meta.get("val") if first is not None else None
            if isinstance(val, FakeTensor):
                fake_tensor_mode = val.fake_mode
""",
        "const_plus_int",
    ),
    _v(
        "constant_attr_check",
        "wrong",
        "Look for constant-carrying fakes directly: a placeholder val whose "
        ".constant is set names the mode.",
        "        inputs = self.inputs(graph_module)\n"
        + SCAN_INPUTS
        + """        if fake_tensor_mode is None:
            for node in graph_module.graph.nodes:
                if node.op != "placeholder" or node.meta.get("val") is None:
                    continue
                if node.meta["val"].constant is not None:
                    fake_tensor_mode = node.meta["val"].fake_mode
                    break
""",
        "const_plus_symint",
    ),
    _v(
        "scan_every_node",
        "wrong",
        "Any FakeTensor in the graph tells its mode: scan every node's val "
        "(placeholders, computed values, output), asserting they agree.",
        "        inputs = self.inputs(graph_module)\n"
        + """        fake_tensor_mode = None
        for node in graph_module.graph.nodes:
            for i in pytree.tree_leaves(node.meta.get("val")):
                if isinstance(i, FakeTensor):
                    assert (
                        fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                    ), "Multiple fake tensor mode detected."
                    fake_tensor_mode = i.fake_mode
""",
        "rerun_two_mode_graph",
    ),
    _v(
        "fallback_any_node_val",
        "wrong",
        "If no placeholder names a mode, the graph's computed values still "
        "carry one: reuse it instead of inventing a mode.",
        "        inputs = self.inputs(graph_module)\n"
        + PH_VALS
        + """        if any(isinstance(i, FakeTensor) for i in inputs):
            vals = inputs
"""
        + SCAN_INPUTS.replace("for i in inputs:", "for i in vals:")
        + """        if fake_tensor_mode is None:
            for node in graph_module.graph.nodes:
                v = node.meta.get("val")
                if isinstance(v, FakeTensor):
                    fake_tensor_mode = v.fake_mode
                    break
""",
        "chain_nofake",
    ),
    _v(
        "allow_flag_only_for_inputs",
        "wrong",
        "The constants' mode was made by export/const-prop: leave its "
        "settings alone, only set allow_non_fake_inputs for the inputs' mode.",
        "        inputs = self.inputs(graph_module)\n"
        + SCAN_INPUTS
        + """        found_in_inputs = fake_tensor_mode is not None
        if fake_tensor_mode is None:
"""
        + "".join(
            "    " + l + "\n"
            for l in (
                PH_VALS
                + """        for i in vals:
            if isinstance(i, FakeTensor):
                assert (
                    fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                ), "Multiple fake tensor mode detected."
                fake_tensor_mode = i.fake_mode
"""
            ).splitlines()
        ),
        "strict_const_mode",
        tail=TAIL.replace(
            "            fake_tensor_mode.allow_non_fake_inputs = True\n",
            "            if found_in_inputs:\n"
            "                fake_tensor_mode.allow_non_fake_inputs = True\n",
        ),
    ),
    _v(
        "feed_constant_fakes",
        "wrong",
        "Feed the placeholders' FakeTensors (constants included) to the "
        "retrace, so the inputs are already in the right mode.",
        "        inputs = self.inputs(graph_module)\n"
        + """        if not any(isinstance(i, FakeTensor) for i in inputs):
            inputs = [
                node.meta.get("val") if isinstance(node.meta.get("val"), FakeTensor)
                else i
                for node, i in zip(
                    [n for n in graph_module.graph.nodes if n.op == "placeholder"],
                    inputs,
                )
            ]
"""
        + SCAN_INPUTS,
        "placeholder_override",
    ),
    _v(
        "refake_constants_into_mode",
        "wrong",
        "Convert the real constants into the found mode with from_tensor "
        "before retracing, so no real tensor reaches the fake mode.",
        "        inputs = self.inputs(graph_module)\n"
        + PH_VALS
        + """        if any(isinstance(i, FakeTensor) for i in inputs):
            vals = inputs
"""
        + SCAN_INPUTS.replace("for i in inputs:", "for i in vals:")
        + """        if fake_tensor_mode is not None:
            inputs = [
                fake_tensor_mode.from_tensor(i)
                if isinstance(i, torch.Tensor) and not isinstance(i, FakeTensor)
                else i
                for i in inputs
            ]
""",
        "placeholder_override",
    ),
    _v(
        "lenient_fresh_on_conflict",
        "wrong",
        "Never abort lowering: if the constants disagree on a mode, fall back "
        "to a fresh mode as before.",
        "        inputs = self.inputs(graph_module)\n"
        + SCAN_INPUTS
        + """        if fake_tensor_mode is None:
            modes = {
                id(v.fake_mode): v.fake_mode
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
                for v in [node.meta.get("val")]
                if isinstance(v, FakeTensor)
            }
            if len(modes) == 1:
                (fake_tensor_mode,) = modes.values()
""",
        "consts_two_modes",
    ),
    _v(
        "tracer_mode_if_unset",
        "wrong",
        "Do not clobber a tracer mode someone already set: only give the "
        "tracer the found mode when it has none.",
        "        inputs = self.inputs(graph_module)\n"
        + PH_VALS
        + """        if any(isinstance(i, FakeTensor) for i in inputs):
            vals = inputs
"""
        + SCAN_INPUTS.replace("for i in inputs:", "for i in vals:"),
        "getattr_reuse",
        tail=TAIL.replace(
            "        self.tracer.fake_tensor_mode = fake_tensor_mode\n",
            "        if self.tracer.fake_tensor_mode is None:\n"
            "            self.tracer.fake_tensor_mode = fake_tensor_mode\n",
        ),
    ),
    _v(
        "normalize_placeholder_vals",
        "wrong",
        "Repair the graph first: re-fake constants of another mode into the "
        "chosen mode in meta['val'], then retrace.",
        "        inputs = self.inputs(graph_module)\n"
        + PH_VALS
        + """        if any(isinstance(i, FakeTensor) for i in inputs):
            vals = inputs
        fake_tensor_mode = next(
            (v.fake_mode for v in vals if isinstance(v, FakeTensor)), None
        )
        if fake_tensor_mode is not None:
            for node in graph_module.graph.nodes:
                v = node.meta.get("val")
                if (
                    node.op == "placeholder"
                    and isinstance(v, FakeTensor)
                    and v.fake_mode is not fake_tensor_mode
                ):
                    node.meta["val"] = fake_tensor_mode.from_tensor(v.constant)
""",
        "mixed_input_unchanged",
    ),
    # ------------------------------------------------------------ right
    _v(
        "prefer_plain_then_constant",
        "right",
        "One pass over placeholder vals: plain fakes' mode first, the "
        "constants' mode only when there is no plain fake.",
        "        inputs = self.inputs(graph_module)\n"
        + """        plain, consts = [], []
        for node in graph_module.graph.nodes:
            v = node.meta.get("val") if node.op == "placeholder" else None
            if isinstance(v, FakeTensor):
                (consts if getattr(v, "constant", None) is not None else plain).append(v)
        fake_tensor_mode = None
        for i in plain or consts:
            assert (
                fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
            ), "Multiple fake tensor mode detected."
            fake_tensor_mode = i.fake_mode
""",
    ),
    _v(
        "upstream_scan_then_constant_modes",
        "right",
        "Keep upstream's scan; only when it finds nothing, collect the modes "
        "of the placeholders' fakes and require exactly one.",
        "        inputs = self.inputs(graph_module)\n"
        + SCAN_INPUTS
        + """        if fake_tensor_mode is None:
            modes = {
                id(v.fake_mode): v.fake_mode
                for n in graph_module.graph.find_nodes(op="placeholder")
                for v in [n.meta.get("val")]
                if isinstance(v, FakeTensor)
            }
            assert len(modes) <= 1, "Multiple fake tensor mode detected."
            if modes:
                (fake_tensor_mode,) = modes.values()
""",
    ),
    _v(
        "zip_inputs_with_vals",
        "right",
        "Pair each input with its placeholder: the FakeTensor stands for the "
        "input it was unwrapped from, plain inputs first.",
        "        inputs = self.inputs(graph_module)\n"
        + """        phs = list(graph_module.graph.find_nodes(op="placeholder"))
        candidates = [i for i in inputs if isinstance(i, FakeTensor)]
        if not candidates:
            candidates = [
                p.meta.get("val")
                for p in phs
                if isinstance(p.meta.get("val"), FakeTensor)
            ]
        fake_tensor_mode = candidates[0].fake_mode if candidates else None
        assert all(
            c.fake_mode is fake_tensor_mode for c in candidates
        ), "Multiple fake tensor mode detected."
""",
    ),
    _v(
        "pytree_leaves_scan",
        "right",
        "Scan the leaves of inputs() with pytree (nested vals too); when no "
        "FakeTensor is there, the leaves of the placeholders' vals.",
        "        inputs = self.inputs(graph_module)\n"
        + """        vals = [
            i for i in pytree.tree_leaves(inputs) if isinstance(i, FakeTensor)
        ]
        if not vals:
            vals = [
                v
                for node in graph_module.graph.find_nodes(op="placeholder")
                for v in pytree.tree_leaves(node.meta.get("val"))
                if isinstance(v, FakeTensor)
            ]
        fake_tensor_mode = None
        for i in vals:
            assert (
                fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
            ), "Multiple fake tensor mode detected."
            fake_tensor_mode = i.fake_mode
""",
    ),
]
