"""Variants of ``call`` written by adversary-4, the fresh reviewer of #38
started after the tests were rewritten as named graphs; it had read neither
the tests nor the earlier adversaries' work: 22 it calls wrong (each with
the witness it names, in ``adversary_4_witnesses``) and 3 it calls right.
Kept as written (/work/notes/adversary-4); ``variants`` judges them like
every other.
"""

# flake8: noqa

HEAD = """    def call(self, graph_module: fx.GraphModule) -> PassResult:
        if not getattr(self, "_initialized", False):
            raise ExportPassBaseError(
                "ExportPass is not initialized with __init__().",
            )

        inputs = self.inputs(graph_module)
"""

TAIL_FROM_VALS = """
        fake_tensor_mode = None
        for i in vals:
            if isinstance(i, FakeTensor):
                assert (
                    fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                ), "Multiple fake tensor mode detected."
                fake_tensor_mode = i.fake_mode
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
"""

PH_VALS = """[
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
            ]"""


def fallback(cond, vals_expr):
    return (
        HEAD
        + f"""
        vals = inputs
        if {cond}:
            vals = {vals_expr}
"""
        + TAIL_FROM_VALS
    )


NO_FAKE = "not any(isinstance(i, FakeTensor) for i in inputs)"

VARIANTS = []


def wrong(name, witness, reason, text):
    VARIANTS.append(
        dict(name=name, kind="wrong", witness=witness, reason=reason, text=text)
    )


def right(name, reason, text):
    VARIANTS.append(dict(name=name, kind="right", reason=reason, text=text))


# ------------------------------------------------------------------ WRONG
wrong(
    "reuse_instance_mode",
    "same_pass_then_consts",
    "Instance state: when inputs show no FakeTensor it reuses the mode the pass "
    "instance used on its previous graph (self.fake_tensor_mode) before looking at "
    "the placeholder vals, so the second method of a transform is traced in the "
    "first method's mode.",
    HEAD
    + """
        vals = inputs
        fake_tensor_mode = None
        if not any(isinstance(i, FakeTensor) for i in inputs):
            # lifted constants were unwrapped: keep tracing in the mode this
            # pass already uses, else the placeholders' own mode
            fake_tensor_mode = self.fake_tensor_mode
            if fake_tensor_mode is None:
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
)

wrong(
    "reuse_mode_for_real_graphs",
    "same_pass_then_real",
    "Instance state, other branch: the constants fallback is right, but a graph with "
    "no FakeTensor at all reuses the pass's previous mode ('one mode per pass') "
    "instead of opening a new one, so it is traced in an earlier call's mode.",
    HEAD
    + """
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = [
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
            ]

        fake_tensor_mode = None
        for i in vals:
            if isinstance(i, FakeTensor):
                assert (
                    fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                ), "Multiple fake tensor mode detected."
                fake_tensor_mode = i.fake_mode
        if fake_tensor_mode is None and self.fake_tensor_mode is not None:
            fake_tensor_mode = self.fake_tensor_mode  # don't open a second mode
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
)

wrong(
    "detect_fake_mode",
    "inside_compile_backend",
    "Context: replaces the hand loop by torch._guards.detect_fake_mode(vals), which "
    "prefers the TracingContext's mode, so inside a torch.compile backend the "
    "constants are retraced in dynamo's mode, not their own.",
    HEAD
    + """
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = [
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
            ]

        fake_tensor_mode = torch._guards.detect_fake_mode(vals)
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
)

wrong(
    "prefer_active_mode",
    "inside_other_fake_mode",
    "Context: when inputs show no FakeTensor it first reuses a FakeTensorMode that is "
    "already active ('do not stack a second mode'), so a pass run under a user's "
    "own mode retraces the constants in that mode.",
    HEAD
    + """
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            active = [
                m
                for m in torch.utils._python_dispatch._get_current_dispatch_mode_stack()
                if isinstance(m, FakeTensorMode)
            ]
            if active:
                vals = [active[-1].from_tensor(i) for i in inputs if isinstance(i, torch.Tensor)][:1]
            else:
                vals = [
                    node.meta.get("val")
                    for node in graph_module.graph.nodes
                    if node.op == "placeholder"
                ]
"""
    + TAIL_FROM_VALS,
)

wrong(
    "enter_only_new_mode",
    "inside_other_fake_mode",
    "Context: it enters the fake mode only when it had to create one (a found mode's "
    "fake inputs 'dispatch to it anyway'), but unwrapped constants are real, so "
    "their ops run in whatever mode is active around the pass.",
    HEAD
    + """
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = [
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
            ]

        fake_tensor_mode = None
        for i in vals:
            if isinstance(i, FakeTensor):
                assert (
                    fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                ), "Multiple fake tensor mode detected."
                fake_tensor_mode = i.fake_mode
        if fake_tensor_mode is None:
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)
            context = fake_tensor_mode
        else:
            fake_tensor_mode.allow_non_fake_inputs = True
            context = enable_python_dispatcher()
        self.tracer.fake_tensor_mode = fake_tensor_mode
        self.fake_tensor_mode = fake_tensor_mode

        with context:
            result = self.call_submodule(graph_module, tuple(inputs))

        return result
""",
)

wrong(
    "always_placeholder_vals",
    "plain_and_const_two_modes",
    "Two modes: it always takes the mode from the placeholders' meta vals (constants "
    "included) instead of only when inputs show no FakeTensor, so a plain input and "
    "a constant of another mode trip the 'Multiple fake tensor mode' assert.",
    fallback("True", PH_VALS),
)

wrong(
    "first_placeholder_mode_wins",
    "const_first_then_plain_two_modes",
    "Two modes: it scans the placeholder vals and stops at the first FakeTensor (no "
    "assert), so with a constant of mode N listed before a plain input of mode M it "
    "traces in N, not the plain input's mode.",
    HEAD
    + """
        fake_tensor_mode = None
        for node in graph_module.graph.nodes:
            val = node.meta.get("val") if node.op == "placeholder" else None
            if isinstance(val, FakeTensor):
                fake_tensor_mode = val.fake_mode
                break
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
)

wrong(
    "per_position_vals",
    "plain_and_const_two_modes",
    "Two modes: it rebuilds the list position by position, putting back each "
    "constant's FakeTensor val where inputs() unwrapped it, so a constant of another "
    "mode next to a plain input raises instead of being retraced.",
    fallback(
        "True",
        """[
                i if isinstance(i, FakeTensor) else node.meta.get("val")
                for i, node in zip(
                    inputs,
                    [n for n in graph_module.graph.nodes if n.op == "placeholder"],
                )
            ]""",
    ),
)

wrong(
    "all_nodes_vals",
    "stale_vals_consts",
    "Stale vals: the fallback looks for the mode in every node's val, not only the "
    "placeholders', so a computed node still carrying a val from an older trace "
    "makes the constants-only graph raise (or picks the stale mode).",
    fallback(NO_FAKE, '[node.meta.get("val") for node in graph_module.graph.nodes]'),
)

wrong(
    "fallback_if_all_tensors",
    "const_and_int",
    "Ints: the fallback fires only when every input is an (unwrapped) real tensor, so "
    "a graph of constants plus an int user input opens a new mode again.",
    fallback(
        "inputs and all(isinstance(i, torch.Tensor) and not isinstance(i, FakeTensor) for i in inputs)",
        PH_VALS,
    ),
)

wrong(
    "first_placeholder_only",
    "int_first_then_const",
    "Ints/order: it assumes placeholders are either all constants or none and reads "
    "only the first placeholder's val, so an int input listed first hides the "
    "constants' mode.",
    fallback(
        NO_FAKE,
        '[next(n for n in graph_module.graph.nodes if n.op == "placeholder").meta.get("val")] '
        'if any(n.op == "placeholder" for n in graph_module.graph.nodes) else []',
    ),
)

wrong(
    "used_placeholders_only",
    "unread_const_and_zeros",
    "Unread placeholders: only placeholders with users are read ('unused ones do not "
    "matter'), but an unread constant's val is kept in the result, so values the "
    "graph makes land in a new mode next to it.",
    fallback(
        NO_FAKE,
        """[
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder" and len(node.users) > 0
            ]""",
    ),
)

wrong(
    "computing_placeholders_only",
    "returned_const_and_zeros",
    "Returned placeholders: only placeholders that feed a call_function are read "
    "('a returned input is passed through untouched'), so a constant that is only "
    "returned leaves created values in a new mode.",
    fallback(
        NO_FAKE,
        """[
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
                and any(u.op == "call_function" for u in node.users)
            ]""",
    ),
)

wrong(
    "first_non_placeholder_stops",
    "get_attr_before_placeholders",
    "Node order: it stops at the first non-placeholder node ('placeholders come "
    "first'), which a hand-built graph with an early get_attr breaks.",
    HEAD
    + """
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = []
            for node in graph_module.graph.nodes:
                if node.op != "placeholder":
                    break
                vals.append(node.meta.get("val"))
"""
    + TAIL_FROM_VALS,
)

wrong(
    "only_lifted_constant_vals",
    "real_meta_args",
    "Real meta['args']: the fallback only trusts vals that are lifted constants "
    "('the bug is about constants'), so a graph whose meta['args'] holds real "
    "tensors and whose placeholders hold plain FakeTensors gets a new mode.",
    fallback(
        NO_FAKE,
        """[
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
                and getattr(node.meta.get("val"), "constant", None) is not None
            ]""",
    ),
)

wrong(
    "trace_with_fake_constants",
    "placeholder_gets_real_constants",
    "placeholder() overrides: when inputs show no FakeTensor it traces with the "
    "placeholders' FakeTensor vals instead of inputs(), so a user placeholder() "
    "receives FakeTensors, not the real constant values.",
    HEAD
    + """
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = [
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
            ]
            if any(isinstance(v, FakeTensor) for v in vals):
                inputs = vals
        vals = inputs
"""
    + TAIL_FROM_VALS,
)

wrong(
    "rehome_constants_in_graph",
    "caller_graph_unchanged",
    "Mutation: to 'retrace constants of another mode into the plain input's mode' it "
    "rewrites those placeholders' meta['val'] in the caller's graph with a fake of "
    "the chosen mode; results are one mode but the caller's graph is changed.",
    HEAD
    + """
        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = [
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
            ]
        fake_tensor_mode = None
        for i in vals:
            if isinstance(i, FakeTensor):
                assert (
                    fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                ), "Multiple fake tensor mode detected."
                fake_tensor_mode = i.fake_mode
        if fake_tensor_mode is not None:
            for node in graph_module.graph.nodes:
                val = node.meta.get("val")
                if (
                    node.op == "placeholder"
                    and isinstance(val, FakeTensor)
                    and val.fake_mode is not fake_tensor_mode
                    and val.constant is not None
                ):
                    node.meta["val"] = fake_tensor_mode.from_tensor(val.constant)
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
)

wrong(
    "new_mode_when_constants_disagree",
    "two_const_modes",
    "Two constant modes: instead of raising or picking one of them it quietly opens "
    "a fresh mode, which is neither constant's mode.",
    HEAD
    + """
        vals = inputs
        lenient = False
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = [
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
            ]
            lenient = True

        modes = []
        for i in vals:
            if isinstance(i, FakeTensor) and not any(m is i.fake_mode for m in modes):
                modes.append(i.fake_mode)
        if len(modes) > 1 and not lenient:
            raise AssertionError("Multiple fake tensor mode detected.")
        fake_tensor_mode = modes[0] if len(modes) == 1 else None
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
)

wrong(
    "tracer_keeps_new_mode",
    "consts_default_mode_fresh",
    "Tensors the pass creates: the constants' mode is patched in after the original "
    "logic, updating self.fake_tensor_mode but not self.tracer.fake_tensor_mode, so "
    "a tensor the pass creates (lifted to a get_attr) is fakified in the stray mode.",
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
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)
            dispatcher_mode = nullcontext()  # type: ignore[assignment]
        else:
            fake_tensor_mode.allow_non_fake_inputs = True
            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]
        self.tracer.fake_tensor_mode = fake_tensor_mode
        self.fake_tensor_mode = fake_tensor_mode

        # #22309: only lifted constants -> trace in the constants' own mode
        if not any(isinstance(i, FakeTensor) for i in inputs):
            for node in graph_module.graph.nodes:
                val = node.meta.get("val")
                if node.op == "placeholder" and isinstance(val, FakeTensor):
                    fake_tensor_mode = val.fake_mode
                    fake_tensor_mode.allow_non_fake_inputs = True
                    dispatcher_mode = enable_python_dispatcher()
                    self.fake_tensor_mode = fake_tensor_mode
                    break

        with fake_tensor_mode, dispatcher_mode:  # type: ignore[assignment, union-attr]
            result = self.call_submodule(graph_module, tuple(inputs))

        return result
""",
)

wrong(
    "fallback_forgets_allow_non_fake",
    "consts_only",
    "Mode config: the constants branch copies only the mode and the python "
    "dispatcher, not allow_non_fake_inputs=True, so the real constants raise in a "
    "mode made with FakeTensorMode() defaults (export/to_edge modes already allow "
    "them, which hides it).",
    HEAD
    + """
        fake_tensor_mode = None
        dispatcher_mode = nullcontext()  # type: ignore[assignment]
        for i in inputs:
            if isinstance(i, FakeTensor):
                assert (
                    fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                ), "Multiple fake tensor mode detected."
                fake_tensor_mode = i.fake_mode
        if fake_tensor_mode is not None:
            fake_tensor_mode.allow_non_fake_inputs = True
            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]
        else:
            for node in graph_module.graph.nodes:
                val = node.meta.get("val")
                if node.op == "placeholder" and isinstance(val, FakeTensor):
                    # lifted constants only (#22309): use their mode
                    fake_tensor_mode = val.fake_mode
                    dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]
                    break
        if fake_tensor_mode is None:
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)
        self.tracer.fake_tensor_mode = fake_tensor_mode
        self.fake_tensor_mode = fake_tensor_mode

        with fake_tensor_mode, dispatcher_mode:  # type: ignore[assignment, union-attr]
            result = self.call_submodule(graph_module, tuple(inputs))

        return result
""",
)

wrong(
    "trust_meta_args",
    "real_meta_args",
    "Real meta['args']: it falls back to the placeholder vals only when "
    "graph_module.meta has no 'args' ('user-given args are authoritative'), so real "
    "example args next to FakeTensor placeholder vals still open a second mode.",
    fallback(
        'NO_FAKE_X and "args" not in graph_module.meta'.replace("NO_FAKE_X", NO_FAKE),
        PH_VALS,
    ),
)

wrong(
    "constants_by_name",
    "consts_only",
    "Lifted constants recognised by name (torch.export's '_lifted_tensor_constant' / "
    "'lifted_tensor' placeholders) rather than by .constant, so constants with other "
    "names (hand-built graphs, renamed nodes) still get a new mode.",
    fallback(
        NO_FAKE,
        """[
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder" and "lifted_tensor" in node.name
            ]""",
    ),
)

# ------------------------------------------------------------------ RIGHT
right(
    "find_nodes_candidates",
    "Same rule written with graph.find_nodes and a candidate list: FakeTensors of "
    "inputs() first, else the placeholders' FakeTensor vals.",
    HEAD
    + """
        candidates = [i for i in inputs if isinstance(i, FakeTensor)]
        if not candidates:
            candidates = [
                node.meta.get("val")
                for node in graph_module.graph.find_nodes(op="placeholder")
                if isinstance(node.meta.get("val"), FakeTensor)
            ]
        fake_tensor_mode = candidates[0].fake_mode if candidates else None
        for c in candidates:
            assert c.fake_mode is fake_tensor_mode, "Multiple fake tensor mode detected."

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
)

right(
    "plain_vals_before_constants",
    "Falls back to the placeholders' vals preferring plain FakeTensor vals over "
    "constants (so real meta['args'] with a plain val and a constant of another "
    "mode follows the plain one), raising ExportPassBaseError on a real conflict.",
    HEAD
    + """
        def modes_of(values):
            found = []
            for v in values:
                if isinstance(v, FakeTensor) and not any(m is v.fake_mode for m in found):
                    found.append(v.fake_mode)
            return found

        modes = modes_of(inputs)
        if not modes:
            placeholder_vals = [
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
            ]
            modes = modes_of(
                v for v in placeholder_vals if getattr(v, "constant", None) is None
            ) or modes_of(placeholder_vals)
        if len(modes) > 1:
            raise ExportPassBaseError("Multiple fake tensor mode detected.")

        if modes:
            fake_tensor_mode = modes[0]
            fake_tensor_mode.allow_non_fake_inputs = True
            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]
        else:
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)
            dispatcher_mode = nullcontext()  # type: ignore[assignment]
        self.tracer.fake_tensor_mode = fake_tensor_mode
        self.fake_tensor_mode = fake_tensor_mode

        with fake_tensor_mode, dispatcher_mode:  # type: ignore[assignment, union-attr]
            result = self.call_submodule(graph_module, tuple(inputs))

        return result
""",
)

right(
    "constants_take_first_mode",
    "Reads the placeholders' vals only when inputs() holds no FakeTensor and, for "
    "constants of two modes, takes the first one (the contract allows it) instead "
    "of asserting.",
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
            # inputs() unwrapped every lifted constant (#22309)
            fake_tensor_mode = next(
                (
                    node.meta["val"].fake_mode
                    for node in graph_module.graph.nodes
                    if node.op == "placeholder"
                    and isinstance(node.meta.get("val"), FakeTensor)
                ),
                None,
            )
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
)
