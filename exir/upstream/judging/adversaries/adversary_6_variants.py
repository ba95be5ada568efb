"""Variants of ``call`` written by adversary-6, the fresh reviewer of #38
started after the tests took adversary-4's and two maintainer reviews'
survivors; it had read neither the tests nor the earlier adversaries' work:
15 it calls wrong (each with the witness it names, in
``adversary_6_witnesses``) and 3 it calls right. Kept as written
(/work/notes/adversary-6), but the fix's text comes from ``fix_source``, not
from a path of the machine it was written on; ``variants`` judges them like
every other.
"""

# flake8: noqa

from ....shared.fix_source import fixed_call_text

FIX = fixed_call_text()  # adversary-6 read it from /work/main/exir/pass_base.py

SCAN = """        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = [
                node.meta.get("val")
                for node in graph_module.graph.nodes
                if node.op == "placeholder"
            ]
"""
assert SCAN in FIX
LOOP = """        fake_tensor_mode = None
        for i in vals:
            if isinstance(i, FakeTensor):
                assert (
                    fake_tensor_mode is None or fake_tensor_mode is i.fake_mode
                ), "Multiple fake tensor mode detected."
                fake_tensor_mode = i.fake_mode
"""
assert LOOP in FIX


def sub(old, new, text=FIX):
    assert old in text, old
    return text.replace(old, new)


V = []


def wrong(name, witness, reason, text):
    assert text != FIX
    V.append(dict(name=name, kind="wrong", witness=witness, reason=reason, text=text))


def right(name, reason, text):
    assert text != FIX
    V.append(dict(name=name, kind="right", reason=reason, text=text))


wrong(
    "first_placeholder_only",
    "real_then_const",
    "Looks only at the first placeholder's val, missing a constant after a real-tensor placeholder.",
    sub(
        SCAN,
        """        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            first = next(
                (n for n in graph_module.graph.nodes if n.op == "placeholder"), None
            )
            vals = [first.meta.get("val")] if first is not None else []
""",
    ),
)

wrong(
    "scan_only_if_all_tensors",
    "int_first",
    "Falls back to meta vals only when every input is a tensor, so an int input beside constants opens a new mode.",
    sub(
        """        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = [""",
        """        if inputs and all(
            isinstance(i, torch.Tensor) and not isinstance(i, FakeTensor)
            for i in inputs
        ):
            vals = [""",
    ),
)

wrong(
    "used_placeholders_only",
    "unused_const",
    "Skips placeholders without users, so an unused constant's mode is ignored and the computed values land in a new mode.",
    sub(
        """                if node.op == "placeholder"
            ]""",
        """                if node.op == "placeholder" and len(node.users) > 0
            ]""",
    ),
)

wrong(
    "always_scan_meta",
    "plain_after_foreign_const",
    "Scans every placeholder val even when a plain FakeTensor input exists, so a constant of another mode raises.",
    sub(
        SCAN,
        """        vals = [
            node.meta.get("val")
            for node in graph_module.graph.nodes
            if node.op == "placeholder"
        ]
""",
    ),
)

wrong(
    "meta_first_wins",
    "plain_after_foreign_const",
    "Scans all placeholder vals without the assert and keeps the first mode, which is a leading constant's rather than the plain input's.",
    sub(
        LOOP,
        """        fake_tensor_mode = None
        for node in graph_module.graph.nodes:
            v = node.meta.get("val") if node.op == "placeholder" else None
            if isinstance(v, FakeTensor):
                fake_tensor_mode = v.fake_mode
                break
""",
    ),
)

wrong(
    "meta_last_wins",
    "plain_before_foreign_const",
    "Scans all placeholder vals without the assert and keeps the last mode, which is a trailing constant's.",
    sub(
        LOOP,
        """        fake_tensor_mode = None
        for node in graph_module.graph.nodes:
            v = node.meta.get("val") if node.op == "placeholder" else None
            if isinstance(v, FakeTensor):
                fake_tensor_mode = v.fake_mode
""",
    ),
)

wrong(
    "no_allow_non_fake_for_meta_mode",
    "strict_mode",
    "Sets allow_non_fake_inputs only when the mode came from inputs(), but the real constants then hit a strict exported mode.",
    sub(
        """            fake_tensor_mode.allow_non_fake_inputs = True
""",
        """            if vals is inputs:
                fake_tensor_mode.allow_non_fake_inputs = True
""",
    ),
)

wrong(
    "reuse_previous_mode",
    "reused_then_real",
    "Reuses the mode of an earlier call on the same instance when a graph has no FakeTensor placeholder.",
    sub(
        """        if fake_tensor_mode is None:
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)""",
        """        if fake_tensor_mode is None:
            fake_tensor_mode = getattr(self, "fake_tensor_mode", None)
        if fake_tensor_mode is None:
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)""",
    ),
)

wrong(
    "cache_mode_on_instance",
    "reused_two_modes",
    "Caches the found mode on the instance, so the next method of a program (another mode) is retraced in the stale one.",
    sub(
        LOOP,
        LOOP
        + """        cached = getattr(self, "_constants_mode", None)
        if cached is not None:
            fake_tensor_mode = cached
        elif vals is not inputs and fake_tensor_mode is not None:
            self._constants_mode = fake_tensor_mode
""",
    ),
)

wrong(
    "scan_all_nodes",
    "stale_vals_real_graph",
    "Falls back to the vals of every node, so a stale FakeTensor on a computed node decides the mode of a real-input graph.",
    sub(
        """                for node in graph_module.graph.nodes
                if node.op == "placeholder"
            ]""",
        """                for node in graph_module.graph.nodes
            ]""",
    ),
)

wrong(
    "detect_fake_mode",
    "under_other_active_mode",
    "Uses torch._guards.detect_fake_mode, which also counts the active mode and asserts when another FakeTensorMode is active.",
    sub(
        LOOP,
        """        fake_tensor_mode = torch._guards.detect_fake_mode(list(vals))
""",
    ),
)

wrong(
    "prefer_active_mode",
    "under_other_active_mode",
    "When inputs() shows no FakeTensor, prefers an already active FakeTensorMode over the constants' own mode.",
    sub(
        LOOP,
        LOOP
        + """        if vals is not inputs:
            from torch._guards import active_fake_mode
            fake_tensor_mode = active_fake_mode() or fake_tensor_mode
""",
    ),
)

wrong(
    "unlift_constants",
    "caller_graph_kept",
    "Clears .constant on the placeholders' FakeTensors so inputs() returns fakes, mutating the caller's graph and feeding placeholder() fakes.",
    sub(
        """        inputs = self.inputs(graph_module)
""",
        """        for node in graph_module.graph.nodes:
            v = node.meta.get("val") if node.op == "placeholder" else None
            if isinstance(v, FakeTensor) and v.constant is not None:
                v.constant = None
        inputs = self.inputs(graph_module)
""",
    ),
)

wrong(
    "retrace_meta_vals",
    "placeholder_gets_real",
    "Passes the placeholders' FakeTensors instead of inputs() to call_submodule, so placeholder() gets fakes instead of the real constants.",
    sub(
        """            result = self.call_submodule(graph_module, tuple(inputs))""",
        """            result = self.call_submodule(graph_module, tuple(vals))""",
    ),
)

wrong(
    "fakify_constants",
    "placeholder_gets_real",
    "Converts the unwrapped constants to FakeTensors of the found mode before retracing, so placeholder() no longer receives the real values.",
    sub(
        """            result = self.call_submodule(graph_module, tuple(inputs))""",
        """            inputs = [
                fake_tensor_mode.from_tensor(i)
                if isinstance(i, torch.Tensor) and not isinstance(i, FakeTensor)
                else i
                for i in inputs
            ]
            result = self.call_submodule(graph_module, tuple(inputs))""",
    ),
)

right(
    "find_nodes_constants_only",
    "Only lifted constants can be FakeTensor vals when inputs() shows none, so scanning find_nodes placeholders whose val has .constant is equivalent.",
    sub(
        SCAN,
        """        vals = inputs
        if not any(isinstance(i, FakeTensor) for i in inputs):
            vals = []
            for node in graph_module.graph.find_nodes(op="placeholder"):
                v = node.meta.get("val")
                if isinstance(v, FakeTensor) and v.constant is not None:
                    vals.append(v)
""",
    ),
)

right(
    "reverse_order",
    "Same scan in reverse order: with the assert kept the order cannot change which single mode is found.",
    sub(
        """                if node.op == "placeholder"
            ]""",
        """                if node.op == "placeholder"
            ][::-1]""",
    ),
)

right(
    "separate_fallback_loop",
    "Scans inputs first and only if that finds no mode scans placeholder meta vals in a second loop (same outcome).",
    sub(
        SCAN + "\n" + LOOP,
        """        fake_tensor_mode = None
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
                if isinstance(v, FakeTensor):
                    assert (
                        fake_tensor_mode is None or fake_tensor_mode is v.fake_mode
                    ), "Multiple fake tensor mode detected."
                    fake_tensor_mode = v.fake_mode
""",
    ),
)

VARIANTS = V
