"""Variants of ``call`` written by adversary-5, the fresh reviewer of #38
started after adversary-4; it had read neither the tests nor the earlier
adversaries' work: 17 it calls wrong (each with the witness it names, in
``adversary_5_witnesses``) and 3 it calls right. Kept as written
(/work/notes/adversary-5); ``variants`` judges them like every other.
"""

# flake8: noqa

HEAD = """    def call(self, graph_module: fx.GraphModule) -> PassResult:
        if not getattr(self, "_initialized", False):
            raise ExportPassBaseError(
                "ExportPass is not initialized with __init__().",
            )

        inputs = self.inputs(graph_module)
"""

SCAN = """
        fake_tensor_mode = None
        for i in vals:
            if isinstance(i, FakeTensor):
                assert (
                    fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                ), "Multiple fake tensor mode detected."
                fake_tensor_mode = i.fake_mode
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

PH_VALS = """[
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
            ]"""


def _v(name, kind, reason, witness, text):
    return {
        "name": name,
        "kind": kind,
        "reason": reason,
        "witness": witness,
        "text": text,
    }


VARIANTS = [
    # ------------------------------------------------------------------ WRONG
    _v(
        "fallback_only_without_inputs",
        "wrong",
        "Reads #22309 as 'a model without user inputs' and only looks at the placeholder vals when "
        "inputs() is empty or all None, so a graph whose placeholders are all lifted constants "
        "(real tensors in inputs) still gets a brand-new mode.",
        "export_const_only",
        HEAD
        + """
        vals = inputs
        if not inputs or all(i is None for i in inputs):
            vals = """
        + PH_VALS
        + """
"""
        + SCAN
        + TAIL,
    ),
    _v(
        "always_scan_placeholder_vals",
        "wrong",
        "Simplifies the fix to always take the modes from the placeholders' meta['val'] (constants "
        "included), so a plain input of mode A next to a constant of mode B trips the "
        "'Multiple fake tensor mode' assertion instead of retracing the constant into A.",
        "mixed_plain_first",
        HEAD
        + """
        vals = """
        + PH_VALS
        + """
"""
        + SCAN
        + TAIL,
    ),
    _v(
        "first_fake_wins_no_assert",
        "wrong",
        "Drops the assertion to tolerate constants from other modes and takes the first FakeTensor "
        "among the placeholder vals, so a constant placed before the plain input decides the mode "
        "(B) and the computed values are not in the plain input's mode.",
        "mixed_const_first",
        HEAD
        + """
        vals = """
        + PH_VALS
        + """
        fake_tensor_mode = None
        for i in vals:
            if isinstance(i, FakeTensor) and fake_tensor_mode is None:
                fake_tensor_mode = i.fake_mode
"""
        + TAIL,
    ),
    _v(
        "trace_constant_vals_not_inputs",
        "wrong",
        "Feeds the placeholder vals (FakeTensors with .constant) to call_submodule in the fallback "
        "'so everything is fake', so placeholder() overrides receive FakeTensors instead of the real "
        "constants inputs() gives.",
        "placeholder_gets_real",
        HEAD
        + """
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = """
        + PH_VALS
        + """
            inputs = vals
"""
        + SCAN
        + TAIL,
    ),
    _v(
        "refakeify_constants_in_found_mode",
        "wrong",
        "Avoids relying on allow_non_fake_inputs by converting the unwrapped constants with "
        "mode.from_tensor before tracing, so placeholder() overrides get new FakeTensors, not the "
        "real constant values.",
        "placeholder_gets_real",
        HEAD
        + """
        vals = inputs
        refake = False
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = """
        + PH_VALS
        + """
            refake = True
"""
        + SCAN
        + """        if refake and fake_tensor_mode is not None:
            inputs = [
                fake_tensor_mode.from_tensor(i, static_shapes=True)
                if isinstance(i, torch.Tensor) and not isinstance(i, FakeTensor)
                else i
                for i in inputs
            ]
"""
        + TAIL,
    ),
    _v(
        "constants_reuse_last_mode",
        "wrong",
        "In the constants-only branch prefers the mode this instance traced with last time "
        "('EdgeProgramManager.transform runs one instance, keep it consistent'), so the second "
        "method's constants (another mode) are traced in the first method's mode.",
        "two_consts_one_mode_twice",
        HEAD
        + """
        vals = inputs
        fake_tensor_mode = None
        if not any(isinstance(i, FakeTensor) for i in inputs):
            fake_tensor_mode = self.fake_tensor_mode
            vals = """
        + PH_VALS
        + """
        if fake_tensor_mode is None:
            for i in vals:
                if isinstance(i, FakeTensor):
                    assert (
                        fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                    ), "Multiple fake tensor mode detected."
                    fake_tensor_mode = i.fake_mode
"""
        + TAIL,
    ),
    _v(
        "no_fake_reuses_previous_mode",
        "wrong",
        "Instead of opening a new mode when no placeholder is fake, reuses self.fake_tensor_mode "
        "from an earlier call 'to avoid leaking modes', so a real-input graph after a constants "
        "graph is traced in the earlier call's mode.",
        "same_instance_real_after_const",
        HEAD
        + """
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = """
        + PH_VALS
        + """
"""
        + SCAN
        + """        if fake_tensor_mode is None and self.fake_tensor_mode is not None:
            fake_tensor_mode = self.fake_tensor_mode
"""
        + TAIL,
    ),
    _v(
        "instance_mode_first",
        "wrong",
        "Caches the mode on the instance and only scans placeholders when nothing is cached, so "
        "transform() running one instance over two methods (two export modes) mixes them.",
        "edge_transform_two_methods",
        HEAD
        + """
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = """
        + PH_VALS
        + """
        fake_tensor_mode = self.fake_tensor_mode
        if fake_tensor_mode is None:
            for i in vals:
                if isinstance(i, FakeTensor):
                    assert (
                        fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                    ), "Multiple fake tensor mode detected."
                    fake_tensor_mode = i.fake_mode
"""
        + TAIL,
    ),
    _v(
        "detect_fake_mode",
        "wrong",
        "Replaces the loop by torch._guards.detect_fake_mode(vals), which also consults the "
        "TracingContext/active modes, so inside a torch.compile backend it asserts that the "
        "context's fake mode differs from the graph's.",
        "const_in_compile_backend",
        HEAD
        + """
        from torch._guards import detect_fake_mode

        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = """
        + PH_VALS
        + """
        fake_tensor_mode = detect_fake_mode(
            [i for i in vals if isinstance(i, FakeTensor)]
        )
"""
        + TAIL,
    ),
    _v(
        "active_fake_mode_first",
        "wrong",
        "Reuses the caller's active FakeTensorMode when there is one ('do not open a second mode "
        "inside a fake trace'), so a constants-only graph of mode M run under another active mode "
        "computes in that mode while its placeholders stay in M.",
        "const_under_active_mode",
        HEAD
        + """
        from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

        fake_tensor_mode = None
        for m in reversed(_get_current_dispatch_mode_stack()):
            if isinstance(m, FakeTensorMode):
                fake_tensor_mode = m
                break
        vals = inputs
        if fake_tensor_mode is None and not any(isinstance(i, FakeTensor) for i in inputs):
            vals = """
        + PH_VALS
        + """
        if fake_tensor_mode is None:
            for i in vals:
                if isinstance(i, FakeTensor):
                    assert (
                        fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                    ), "Multiple fake tensor mode detected."
                    fake_tensor_mode = i.fake_mode
"""
        + TAIL,
    ),
    _v(
        "tracer_mode_not_set",
        "wrong",
        "Rewrites the tail and sets only self.fake_tensor_mode, forgetting self.tracer.fake_tensor_mode, "
        "so a tensor the pass creates itself (torch.tensor(2.0) -> get_attr) cannot be fakeified "
        "(AssertionError) or lands in a stale mode.",
        "pass_creates_tensor",
        HEAD
        + """
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = """
        + PH_VALS
        + """
"""
        + SCAN
        + """        if fake_tensor_mode is None:
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)
            dispatcher_mode = nullcontext()  # type: ignore[assignment]
        else:
            fake_tensor_mode.allow_non_fake_inputs = True
            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]
        self.fake_tensor_mode = fake_tensor_mode

        with fake_tensor_mode, dispatcher_mode:  # type: ignore[assignment, union-attr]
            result = self.call_submodule(graph_module, tuple(inputs))

        return result
""",
    ),
    _v(
        "scan_all_node_vals",
        "wrong",
        "Falls back to the first FakeTensor anywhere in the graph (every node's meta['val']), so a "
        "real-input graph with stale vals is traced in the stale mode instead of a new one.",
        "real_inputs_stale_vals",
        HEAD
        + """
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = [node.meta.get("val") for node in graph_module.graph.nodes]
"""
        + SCAN
        + TAIL,
    ),
    _v(
        "fallback_only_if_all_tensors",
        "wrong",
        "Detects 'all placeholders are unwrapped constants' as 'every input is a real tensor', so an "
        "int (specialized) placeholder next to the constants disables the fallback and opens a new mode.",
        "const_and_int_first",
        HEAD
        + """
        vals = inputs
        if inputs and all(
            isinstance(i, torch.Tensor) and not isinstance(i, FakeTensor) for i in inputs
        ):
            vals = """
        + PH_VALS
        + """
"""
        + SCAN
        + TAIL,
    ),
    _v(
        "first_placeholder_val_only",
        "wrong",
        "Takes the mode from the first placeholder's val only (the constant is assumed to come first), "
        "so an int placeholder in front of the constant leaves it with a new mode.",
        "const_and_int_first",
        HEAD
        + """
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            phs = [n for n in graph_module.graph.nodes if n.op == "placeholder"]
            vals = [phs[0].meta.get("val")] if phs else []
"""
        + SCAN
        + TAIL,
    ),
    _v(
        "used_placeholders_only",
        "wrong",
        "Mirrors inputs()' 'len(node.users) == 0' rule and ignores unused placeholders, so a graph "
        "whose only constant is unused (after DCE) and whose output is made by aten.full opens a "
        "new mode next to the constant's.",
        "unused_const_full",
        HEAD
        + """
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = [
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder" and len(node.users) > 0
            ]
"""
        + SCAN
        + TAIL,
    ),
    _v(
        "normalize_foreign_constants_in_graph",
        "wrong",
        "Makes the result single-mode by re-fakeifying constants of another mode into the chosen mode "
        "and writing them back into the caller's placeholder meta['val'], mutating the given graph.",
        "mixed_plain_first",
        HEAD
        + """
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = """
        + PH_VALS
        + """
"""
        + SCAN
        + """        if fake_tensor_mode is not None:
            for node in graph_module.graph.nodes:
                v = node.meta.get("val") if node.op == "placeholder" else None
                if (
                    isinstance(v, FakeTensor)
                    and v.constant is not None
                    and v.fake_mode is not fake_tensor_mode
                ):
                    node.meta["val"] = fake_tensor_mode.from_tensor(
                        v.constant, static_shapes=True
                    )
"""
        + TAIL,
    ),
    _v(
        "unlift_constants_then_reread",
        "wrong",
        "Clears .constant on the placeholders' FakeTensors so that inputs() returns them as fakes and "
        "the old loop finds the mode, which mutates the caller's vals (and placeholder() gets fakes).",
        "export_const_only",
        HEAD
        + """
        if not any(isinstance(i, FakeTensor) for i in inputs):
            for node in graph_module.graph.nodes:
                v = node.meta.get("val") if node.op == "placeholder" else None
                if isinstance(v, FakeTensor) and v.constant is not None:
                    v.constant = None
            inputs = self.inputs(graph_module)
        vals = inputs
"""
        + SCAN
        + TAIL,
    ),
    # ------------------------------------------------------------------ RIGHT
    _v(
        "right_plain_then_constants",
        "right",
        "Same rule written from the placeholder vals: plain FakeTensors decide; only without one do "
        "the constants' modes decide.",
        "",
        """    def call(self, graph_module: fx.GraphModule) -> PassResult:
        if not getattr(self, "_initialized", False):
            raise ExportPassBaseError(
                "ExportPass is not initialized with __init__().",
            )

        inputs = self.inputs(graph_module)
        plain_modes = [i.fake_mode for i in inputs if isinstance(i, FakeTensor)]
        candidates = plain_modes
        if not candidates:
            candidates = [
                v.fake_mode
                for v in (
                    n.meta.get("val")
                    for n in graph_module.graph.nodes
                    if n.op == "placeholder"
                )
                if isinstance(v, FakeTensor)
            ]
        fake_tensor_mode = candidates[0] if candidates else None
        assert all(
            m is fake_tensor_mode for m in candidates
        ), "Multiple fake tensor mode detected."

        if fake_tensor_mode is None:
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)
            dispatcher_mode = nullcontext()  # type: ignore[assignment]
        else:
            fake_tensor_mode.allow_non_fake_inputs = True
            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]
        self.tracer.fake_tensor_mode = fake_tensor_mode
        self.fake_tensor_mode = fake_tensor_mode

        with fake_tensor_mode, dispatcher_mode:  # type: ignore[assignment, union-attr]
            return self.call_submodule(graph_module, tuple(inputs))
""",
    ),
    _v(
        "right_constant_attr",
        "right",
        "Looks at the .constant FakeTensors explicitly, and only when inputs() gave no FakeTensor.",
        "",
        HEAD
        + """
        fake_tensor_mode = None
        for i in inputs:
            if isinstance(i, FakeTensor):
                assert (
                    fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                ), "Multiple fake tensor mode detected."
                fake_tensor_mode = i.fake_mode
        if fake_tensor_mode is None:
            for node in graph_module.graph.nodes:
                if node.op != "placeholder":
                    continue
                v = node.meta.get("val")
                if isinstance(v, FakeTensor) and v.constant is not None:
                    assert (
                        fake_tensor_mode is None or fake_tensor_mode is v.fake_mode
                    ), "Multiple fake tensor mode detected."
                    fake_tensor_mode = v.fake_mode
"""
        + TAIL,
    ),
    _v(
        "right_restores_allow_non_fake",
        "right",
        "As the fix, but restores the mode's allow_non_fake_inputs afterwards instead of leaving "
        "the caller's mode changed.",
        "",
        HEAD
        + """
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = """
        + PH_VALS
        + """
"""
        + SCAN
        + """        if fake_tensor_mode is None:
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)
            dispatcher_mode = nullcontext()  # type: ignore[assignment]
        else:
            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]
        self.tracer.fake_tensor_mode = fake_tensor_mode
        self.fake_tensor_mode = fake_tensor_mode

        saved = fake_tensor_mode.allow_non_fake_inputs
        fake_tensor_mode.allow_non_fake_inputs = True
        try:
            with fake_tensor_mode, dispatcher_mode:  # type: ignore[assignment, union-attr]
                result = self.call_submodule(graph_module, tuple(inputs))
        finally:
            fake_tensor_mode.allow_non_fake_inputs = saved

        return result
""",
    ),
]
