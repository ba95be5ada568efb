"""Variants of ``call`` written by adversary-1, a fresh reviewer of #38 who
had not read the tests: 22 it calls wrong (each with the witness it names,
in ``adversary_1_witnesses``) and 4 it calls right. Kept as written
(/work/notes/adversary-1); ``variants`` judges them like every other.
"""

# flake8: noqa


HEAD = """    def call(self, graph_module: fx.GraphModule) -> PassResult:
        if not getattr(self, "_initialized", False):
            raise ExportPassBaseError(
                "ExportPass is not initialized with __init__().",
            )

        inputs = self.inputs(graph_module)
"""

SCAN_INPUTS = """
        fake_tensor_mode = None
        for i in inputs:
            if isinstance(i, FakeTensor):
                assert (
                    fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                ), "Multiple fake tensor mode detected."
                fake_tensor_mode = i.fake_mode
"""

SCAN_PLACEHOLDERS_IF_NONE = """        if fake_tensor_mode is None:
            # inputs() unwraps lifted constants (#22309): look at meta["val"]
            for node in graph_module.graph.nodes:
                if node.op != "placeholder":
                    continue
                val = node.meta.get("val")
                if isinstance(val, FakeTensor):
                    assert (
                        fake_tensor_mode is None or fake_tensor_mode is val.fake_mode
                    ), "Multiple fake tensor mode detected."
                    fake_tensor_mode = val.fake_mode
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


def _w(name, reason, witness, text):
    return {
        "name": name,
        "kind": "wrong",
        "reason": reason,
        "witness": witness,
        "text": text,
    }


def _r(name, reason, text):
    return {"name": name, "kind": "right", "reason": reason, "text": text}


VARIANTS = [
    # ---- which placeholders are looked at ---------------------------------
    _w(
        "always_scan_meta_val",
        "simplest patch: replace the inputs() scan by a scan of every "
        "placeholder's meta['val'] (constants included), keeping the assert",
        "plain_and_const_of_other_mode",
        HEAD
        + """
        # inputs() unwraps lifted constants to real tensors (#22309), so read
        # the placeholders' fake values directly.
        fake_tensor_mode = None
        for node in graph_module.graph.nodes:
            if node.op != "placeholder":
                continue
            val = node.meta.get("val")
            if isinstance(val, FakeTensor):
                assert (
                    fake_tensor_mode is None or fake_tensor_mode is val.fake_mode
                ), "Multiple fake tensor mode detected."
                fake_tensor_mode = val.fake_mode
"""
        + TAIL,
    ),
    _w(
        "first_placeholder_mode",
        "'all placeholders share the program's mode': take the first "
        "placeholder FakeTensor's mode and stop",
        "plain_and_const_of_other_mode",
        HEAD
        + """
        # The graph's mode is the one its placeholders were traced in; the
        # constants unwrapped by inputs() still carry it in meta["val"].
        fake_tensor_mode = None
        for node in graph_module.graph.nodes:
            val = node.meta.get("val")
            if node.op == "placeholder" and isinstance(val, FakeTensor):
                fake_tensor_mode = val.fake_mode
                break
"""
        + TAIL,
    ),
    _w(
        "prefer_constant_mode",
        "constants are lifted from the program, so their mode is treated as "
        "the authoritative one and checked first",
        "plain_and_const_of_other_mode",
        HEAD
        + """
        fake_tensor_mode = None
        # Lifted constants carry the program's mode even though inputs()
        # unwraps them; prefer it (#22309).
        for node in graph_module.graph.nodes:
            val = node.meta.get("val")
            if (
                node.op == "placeholder"
                and isinstance(val, FakeTensor)
                and val.constant is not None
            ):
                fake_tensor_mode = val.fake_mode
                break
        if fake_tensor_mode is None:
            for i in inputs:
                if isinstance(i, FakeTensor):
                    assert (
                        fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                    ), "Multiple fake tensor mode detected."
                    fake_tensor_mode = i.fake_mode
"""
        + TAIL,
    ),
    _w(
        "meta_val_indexing",
        "every placeholder is assumed to have meta['val'], so the fallback "
        "indexes it directly",
        "const_and_valless_placeholder",
        HEAD
        + SCAN_INPUTS
        + """        if fake_tensor_mode is None:
            # inputs() unwraps lifted constants (#22309): look at meta["val"]
            vals = [
                node.meta["val"]
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
            ]
            for val in vals:
                if isinstance(val, FakeTensor):
                    assert (
                        fake_tensor_mode is None or fake_tensor_mode is val.fake_mode
                    ), "Multiple fake tensor mode detected."
                    fake_tensor_mode = val.fake_mode
"""
        + TAIL,
    ),
    _w(
        "used_placeholders_only",
        "mirrors inputs(), which skips placeholders without users: only "
        "placeholders the graph reads can decide the mode",
        "unused_constant_only_carrier",
        HEAD
        + SCAN_INPUTS
        + """        if fake_tensor_mode is None:
            # inputs() unwraps lifted constants (#22309); the constants the
            # graph actually reads tell the mode.
            for node in graph_module.graph.nodes:
                if node.op != "placeholder" or not node.users:
                    continue
                val = node.meta.get("val")
                if isinstance(val, FakeTensor):
                    assert (
                        fake_tensor_mode is None or fake_tensor_mode is val.fake_mode
                    ), "Multiple fake tensor mode detected."
                    fake_tensor_mode = val.fake_mode
"""
        + TAIL,
    ),
    _w(
        "all_inputs_are_constants",
        "falls back to meta['val'] only when every input came back as a real "
        "tensor, i.e. 'the graph is all lifted constants'",
        "const_and_int",
        HEAD
        + SCAN_INPUTS
        + """        if (
            fake_tensor_mode is None
            and inputs
            and all(isinstance(i, torch.Tensor) for i in inputs)
        ):
            # every input is a lifted constant that inputs() unwrapped
            # (#22309): recover the mode from their fake values.
            for node in graph_module.graph.nodes:
                if node.op == "placeholder":
                    val = node.meta.get("val")
                    if isinstance(val, FakeTensor):
                        fake_tensor_mode = val.fake_mode
"""
        + TAIL,
    ),
    _w(
        "lifted_constant_names",
        "recognises lifted constants by the names lifting gives them "
        "(_lifted_tensor_constant*, c_*), as seen in the issue",
        "constants_named_by_tracer",
        HEAD
        + SCAN_INPUTS
        + """        if fake_tensor_mode is None:
            # lifted constants are unwrapped by inputs() (#22309)
            for node in graph_module.graph.nodes:
                if node.op == "placeholder" and node.name.startswith(
                    ("_lifted_tensor_constant", "c_")
                ):
                    val = node.meta.get("val")
                    if isinstance(val, FakeTensor):
                        fake_tensor_mode = val.fake_mode
"""
        + TAIL,
    ),
    _w(
        "scan_all_node_vals",
        "'any fake value in the graph knows the mode': scans every node's "
        "meta['val'] (with the usual assert)",
        "stale_computed_vals",
        HEAD
        + SCAN_INPUTS
        + """        if fake_tensor_mode is None:
            # constants are unwrapped by inputs() (#22309): use the fake
            # values recorded anywhere in the graph.
            for node in graph_module.graph.nodes:
                for val in pytree.tree_leaves(node.meta.get("val")):
                    if isinstance(val, FakeTensor):
                        assert (
                            fake_tensor_mode is None
                            or fake_tensor_mode is val.fake_mode
                        ), "Multiple fake tensor mode detected."
                        fake_tensor_mode = val.fake_mode
"""
        + TAIL,
    ),
    # ---- the ambient context ---------------------------------------------
    _w(
        "detect_fake_mode",
        "uses torch's own helper instead of hand-rolling the scan",
        "under_unrelated_mode",
        HEAD
        + """
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            # inputs() unwraps lifted constants (#22309)
            vals = [
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
            ]
        fake_tensor_mode = torch._guards.detect_fake_mode(vals)
"""
        + TAIL,
    ),
    _w(
        "ambient_mode_fallback",
        "before opening a new mode, reuse the fake mode already active "
        "(passes usually run inside export's mode)",
        "under_unrelated_mode",
        HEAD
        + SCAN_INPUTS
        + """        if fake_tensor_mode is None:
            # Don't open a second mode (#22309): a graph of constants is
            # retraced in the fake mode we are already running under.
            fake_tensor_mode = torch._guards.active_fake_mode()
"""
        + SCAN_PLACEHOLDERS_IF_NONE
        + TAIL,
    ),
    _w(
        "tracing_context_fallback",
        "asks the TracingContext for the program's fake mode, as dynamo/"
        "export code does, before the placeholders",
        "under_tracing_context",
        HEAD
        + SCAN_INPUTS
        + """        if fake_tensor_mode is None:
            # the program's mode, as export records it (#22309)
            context = torch._guards.TracingContext.try_get()
            if context is not None:
                fake_tensor_mode = context.fake_mode
"""
        + SCAN_PLACEHOLDERS_IF_NONE
        + TAIL,
    ),
    # ---- state on a reused instance --------------------------------------
    _w(
        "remember_mode_on_instance",
        "a pass keeps its mode: reuse self.fake_tensor_mode when the inputs "
        "show none, scanning placeholders only on first use",
        "reused_plain_then_const",
        HEAD
        + SCAN_INPUTS
        + """        if fake_tensor_mode is None:
            # inputs() hides lifted constants' mode (#22309); keep using the
            # mode this pass already traces in.
            fake_tensor_mode = self.fake_tensor_mode
"""
        + SCAN_PLACEHOLDERS_IF_NONE
        + TAIL,
    ),
    _w(
        "reuse_previous_fresh_mode",
        "avoid opening a new FakeTensorMode per call: the fallback reuses "
        "the instance's previous mode",
        "reused_plain_then_nofake",
        HEAD
        + SCAN_INPUTS
        + SCAN_PLACEHOLDERS_IF_NONE
        + """        if fake_tensor_mode is None:
            # no fake tensor at all: reuse our mode rather than a second one
            fake_tensor_mode = self.fake_tensor_mode
        if fake_tensor_mode is None:
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
""",
    ),
    _w(
        "shared_default_mode",
        "one module-wide fallback FakeTensorMode instead of one per call "
        "(cached on the class)",
        "two_instances_nofake",
        HEAD
        + SCAN_INPUTS
        + SCAN_PLACEHOLDERS_IF_NONE
        + """        if fake_tensor_mode is None:
            # one fallback mode for every graph without fake tensors, so two
            # passes never disagree (#22309)
            cls = _ExportPassBase
            if getattr(cls, "_fallback_fake_mode", None) is None:
                cls._fallback_fake_mode = FakeTensorMode(allow_non_fake_inputs=True)
            fake_tensor_mode = cls._fallback_fake_mode
            dispatcher_mode = nullcontext()  # type: ignore[assignment]
        else:
            fake_tensor_mode.allow_non_fake_inputs = True
            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]
        self.tracer.fake_tensor_mode = fake_tensor_mode
        self.fake_tensor_mode = fake_tensor_mode

        with fake_tensor_mode, dispatcher_mode:  # type: ignore[assignment, union-attr]
            result = self.call_submodule(graph_module, tuple(inputs))

        return result
""",
    ),
    _w(
        "keep_tracer_mode",
        "does not clobber a tracer mode a subclass may have set: assigns "
        "self.tracer.fake_tensor_mode only when unset",
        "pass_creates_constant_reused",
        HEAD
        + SCAN_INPUTS
        + SCAN_PLACEHOLDERS_IF_NONE
        + """        if fake_tensor_mode is None:
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)
            dispatcher_mode = nullcontext()  # type: ignore[assignment]
        else:
            fake_tensor_mode.allow_non_fake_inputs = True
            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]
        if self.tracer.fake_tensor_mode is None:
            self.tracer.fake_tensor_mode = fake_tensor_mode
        self.fake_tensor_mode = fake_tensor_mode

        with fake_tensor_mode, dispatcher_mode:  # type: ignore[assignment, union-attr]
            result = self.call_submodule(graph_module, tuple(inputs))

        return result
""",
    ),
    _w(
        "early_return_constants_branch",
        "handles the constant-only case in its own early-return branch and "
        "forgets the tracer's mode there (only the placeholders matter)",
        "pass_creates_constant",
        HEAD
        + SCAN_INPUTS
        + """        if fake_tensor_mode is None:
            # Only lifted constants (#22309): retrace in their mode.
            for node in graph_module.graph.nodes:
                val = node.meta.get("val")
                if node.op == "placeholder" and isinstance(val, FakeTensor):
                    fake_tensor_mode = val.fake_mode
            if fake_tensor_mode is not None:
                fake_tensor_mode.allow_non_fake_inputs = True
                self.fake_tensor_mode = fake_tensor_mode
                with fake_tensor_mode, enable_python_dispatcher():
                    return self.call_submodule(graph_module, tuple(inputs))
"""
        + TAIL,
    ),
    # ---- what the retrace is given / creates -----------------------------
    _w(
        "no_allow_non_fake_for_constants",
        "the constants' mode is the program's own, so it is entered as is; "
        "allow_non_fake_inputs is only forced for plain inputs' modes",
        "const_only_export_mode",
        HEAD
        + SCAN_INPUTS
        + """        found_in_inputs = fake_tensor_mode is not None
"""
        + SCAN_PLACEHOLDERS_IF_NONE
        + """        if fake_tensor_mode is None:
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)
            dispatcher_mode = nullcontext()  # type: ignore[assignment]
        else:
            if found_in_inputs:
                fake_tensor_mode.allow_non_fake_inputs = True
            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]
        self.tracer.fake_tensor_mode = fake_tensor_mode
        self.fake_tensor_mode = fake_tensor_mode

        with fake_tensor_mode, dispatcher_mode:  # type: ignore[assignment, union-attr]
            result = self.call_submodule(graph_module, tuple(inputs))

        return result
""",
    ),
    _w(
        "strict_fresh_mode",
        "now that constants find their mode, the fresh fallback mode no "
        "longer needs allow_non_fake_inputs",
        "nofake_real_values",
        HEAD
        + SCAN_INPUTS
        + SCAN_PLACEHOLDERS_IF_NONE
        + """        if fake_tensor_mode is None:
            fake_tensor_mode = FakeTensorMode()
            dispatcher_mode = nullcontext()  # type: ignore[assignment]
        else:
            fake_tensor_mode.allow_non_fake_inputs = True
            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]
        self.tracer.fake_tensor_mode = fake_tensor_mode
        self.fake_tensor_mode = fake_tensor_mode

        with fake_tensor_mode, dispatcher_mode:  # type: ignore[assignment, union-attr]
            result = self.call_submodule(graph_module, tuple(inputs))

        return result
""",
    ),
    _w(
        "retrace_fake_constants",
        "feeds the constants' FakeTensors (not the unwrapped real values) to "
        "the retrace so everything stays in one mode",
        "placeholder_override_values",
        HEAD
        + SCAN_INPUTS
        + """        if fake_tensor_mode is None:
            # inputs() unwrapped the lifted constants (#22309): retrace their
            # FakeTensors instead, which carry the graph's mode.
            vals = [
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
            ]
            for val in vals:
                if isinstance(val, FakeTensor):
                    assert (
                        fake_tensor_mode is None or fake_tensor_mode is val.fake_mode
                    ), "Multiple fake tensor mode detected."
                    fake_tensor_mode = val.fake_mode
            if fake_tensor_mode is not None:
                inputs = vals
"""
        + TAIL,
    ),
    _w(
        "drop_constant_payload",
        "clears .constant on the placeholders' FakeTensors so inputs() "
        "returns them as fakes and the old scan finds the mode",
        "placeholder_override_values",
        """    def call(self, graph_module: fx.GraphModule) -> PassResult:
        if not getattr(self, "_initialized", False):
            raise ExportPassBaseError(
                "ExportPass is not initialized with __init__().",
            )

        # inputs() unwraps constant-carrying FakeTensors to real tensors, which
        # hides their mode (#22309); keep them fake for the retrace.
        for node in graph_module.graph.nodes:
            val = node.meta.get("val")
            if node.op == "placeholder" and isinstance(val, FakeTensor):
                val.constant = None
        inputs = self.inputs(graph_module)
"""
        + SCAN_INPUTS
        + TAIL,
    ),
    _w(
        "constants_only_fallback",
        "the fallback looks only at constant-carrying FakeTensors, the one "
        "kind inputs() is known to hide",
        "meta_args_real_values",
        HEAD
        + SCAN_INPUTS
        + """        if fake_tensor_mode is None:
            for node in graph_module.graph.nodes:
                val = node.meta.get("val")
                if (
                    node.op == "placeholder"
                    and isinstance(val, FakeTensor)
                    and getattr(val, "constant", None) is not None
                ):
                    assert (
                        fake_tensor_mode is None or fake_tensor_mode is val.fake_mode
                    ), "Multiple fake tensor mode detected."
                    fake_tensor_mode = val.fake_mode
"""
        + TAIL,
    ),
    _w(
        "constants_or_numbers",
        "refines 'all inputs are lifted constants' to also allow the plain "
        "numbers (ints/floats) a graph may take beside them",
        "const_and_symint",
        HEAD
        + SCAN_INPUTS
        + """        if fake_tensor_mode is None and all(
            i is None or isinstance(i, (torch.Tensor, int, float, bool))
            for i in inputs
        ):
            # only lifted constants (unwrapped by inputs(), #22309) and plain
            # numbers: recover the mode from the constants' fake values.
            for node in graph_module.graph.nodes:
                val = node.meta.get("val")
                if node.op == "placeholder" and isinstance(val, FakeTensor):
                    assert (
                        fake_tensor_mode is None or fake_tensor_mode is val.fake_mode
                    ), "Multiple fake tensor mode detected."
                    fake_tensor_mode = val.fake_mode
"""
        + TAIL,
    ),
]

# ---- right variants ---------------------------------------------------------

VARIANTS += [
    _r(
        "helper_with_explicit_error",
        "factors the search into a local helper over find_nodes and raises "
        "ExportPassBaseError (not assert) on disagreeing modes",
        HEAD
        + """
        def _mode_of(values) -> "Optional[FakeTensorMode]":
            found = {id(v.fake_mode): v.fake_mode for v in values if isinstance(v, FakeTensor)}
            if len(found) > 1:
                raise ExportPassBaseError("Multiple fake tensor mode detected.")
            return next(iter(found.values()), None)

        fake_tensor_mode = _mode_of(inputs)
        if fake_tensor_mode is None:
            # lifted constants: inputs() returned their real values (#22309)
            fake_tensor_mode = _mode_of(
                [
                    node.meta.get("val")
                    for node in graph_module.graph.find_nodes(op="placeholder")
                ]
            )
"""
        + TAIL,
    ),
    _r(
        "shield_ambient_modes",
        "fix's search, but the retrace runs with any outer fake mode popped "
        "(unset_fake_temporarily) so only the graph's mode is active",
        HEAD
        + SCAN_INPUTS
        + SCAN_PLACEHOLDERS_IF_NONE
        + """        if fake_tensor_mode is None:
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)
            dispatcher_mode = nullcontext()  # type: ignore[assignment]
        else:
            fake_tensor_mode.allow_non_fake_inputs = True
            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]
        self.tracer.fake_tensor_mode = fake_tensor_mode
        self.fake_tensor_mode = fake_tensor_mode

        unset = torch._subclasses.fake_tensor.unset_fake_temporarily
        with unset(), fake_tensor_mode, dispatcher_mode:  # type: ignore[assignment, union-attr]
            result = self.call_submodule(graph_module, tuple(inputs))

        return result
""",
    ),
    _r(
        "sequential_fallback",
        "the upstream loop kept verbatim, followed by a second loop over "
        "placeholders' meta['val'] only when the first found nothing",
        HEAD + SCAN_INPUTS + SCAN_PLACEHOLDERS_IF_NONE + TAIL,
    ),
    _r(
        "pytree_leaves_scan",
        "collects candidate FakeTensors with pytree (nested vals too) and "
        "checks them through a set of modes",
        HEAD
        + """
        candidates = [i for i in inputs if isinstance(i, FakeTensor)]
        if not candidates:
            # lifted constants: inputs() unwrapped them (#22309)
            candidates = [
                leaf
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
                for leaf in pytree.tree_leaves(node.meta.get("val"))
                if isinstance(leaf, FakeTensor)
            ]
        found = {id(c.fake_mode) for c in candidates}
        assert len(found) <= 1, "Multiple fake tensor mode detected."
        fake_tensor_mode = candidates[0].fake_mode if candidates else None
"""
        + TAIL,
    ),
]
