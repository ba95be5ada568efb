"""Variants of ``call`` along the dimensions of the contract the tests state
(#38): the state a reused pass instance carries, the context ``call`` runs
in, the tensors a pass makes itself, the graph's edges and placeholders of
two modes. Written by the 38 helper from the lead's contract; each wrong one
has a witness in ``contract.witnesses``.
"""

from typing import List

from ..call_texts import call_text, FALLBACK, fix_with, PLACEHOLDER_VALS, scan, Variant

ORIGIN = "lead's contract, 38 helper"
_TWELVE = " " * 12
_READ_BY_AN_OP = (
    '[n.meta.get("val") for n in graph_module.graph.nodes if n.op == "placeholder"'
    ' and any(u.op != "output" for u in n.users)]'
)
_ANY_CONSTANT = """\
        if any(
            isinstance(n.meta.get("val"), FakeTensor)
            and n.meta["val"].constant is not None
            for n in graph_module.graph.nodes
            if n.op == "placeholder"
        ):
"""

CONTRACT: List[Variant] = [
    Variant(
        "the instance's earlier mode before the placeholders",
        "an earlier call on this instance already found the graph's mode",
        call_text(
            FALLBACK
            + "            fake_tensor_mode = self.fake_tensor_mode\n"
            + "        if fake_tensor_mode is None:\n"
            + scan(PLACEHOLDER_VALS, _TWELVE)
        ),
        ORIGIN,
    ),
    Variant(
        "the placeholders' mode found once per instance",
        "scanning the placeholders on every call is wasted work",
        call_text(
            FALLBACK
            + '            if getattr(self, "_placeholders_mode", None) is None:\n'
            + scan(PLACEHOLDER_VALS, " " * 16)
            + "                self._placeholders_mode = fake_tensor_mode\n"
            + "            fake_tensor_mode = self._placeholders_mode\n"
        ),
        ORIGIN,
    ),
    Variant(
        "without FakeTensors, the active fake mode",
        "a pass run inside a fake mode should trace in it, not open another",
        call_text(
            FALLBACK
            + scan(PLACEHOLDER_VALS, _TWELVE)
            + "        if fake_tensor_mode is None:\n"
            + "            fake_tensor_mode = torch._guards.detect_fake_mode()\n"
        ),
        ORIGIN,
    ),
    Variant(
        "the tracer's own mode for what the pass makes",
        "the graph's mode stays untouched by the constants a pass adds",
        fix_with(
            "        self.tracer.fake_tensor_mode = fake_tensor_mode\n",
            "        self.tracer.fake_tensor_mode = FakeTensorMode("
            "allow_non_fake_inputs=True)\n",
        ),
        ORIGIN,
    ),
    Variant(
        "constants computed for real, no mode entered",
        "constants are real tensors: run them eagerly, the tracer fakes the"
        " results in the placeholders' mode",
        fix_with(
            "        with fake_tensor_mode, dispatcher_mode:"
            "  # type: ignore[assignment, union-attr]\n",
            "        entered = fake_tensor_mode if any(isinstance(i, FakeTensor)"
            " for i in inputs) else nullcontext()\n"
            "        with entered, dispatcher_mode:  # type: ignore\n",
        ),
        ORIGIN,
    ),
    Variant(
        "placeholders an op reads",
        "a placeholder only returned is passed through untouched",
        call_text(FALLBACK + scan(_READ_BY_AN_OP, _TWELVE)),
        ORIGIN,
    ),
    Variant(
        "the placeholders' vals whenever one is a constant",
        "inputs() hides a constant's mode, so read the vals whenever one is there",
        fix_with(
            "        if not any(isinstance(i, FakeTensor) for i in inputs):\n",
            _ANY_CONSTANT,
        ),
        ORIGIN,
    ),
    Variant(
        "the scan stops at a placeholder without a val",
        "the inputs with vals come first",
        call_text(
            FALLBACK
            + f"            for v in {PLACEHOLDER_VALS}:\n"
            + "                if v is None:\n"
            + "                    break\n"
            + "                if isinstance(v, FakeTensor):\n"
            + "                    fake_tensor_mode = v.fake_mode\n"
        ),
        ORIGIN,
    ),
    Variant(
        "the first placeholder FakeTensor's mode, unchecked",
        "constants of two modes are traced in the first one's, not refused:"
        " acceptable where no plain input exists (the contract's 3.)",
        call_text(
            FALLBACK
            + "            fake_tensor_mode = next(\n"
            + f"                (v.fake_mode for v in {PLACEHOLDER_VALS}"
            " if isinstance(v, FakeTensor)),\n"
            + "                None,\n"
            + "            )\n"
        ),
        ORIGIN,
    ),
    Variant(
        "no fallback beside a SymInt input",
        "a SymInt input means a traced graph whose mode the inputs already"
        " carry: fall back only when there is none",
        fix_with(
            "        if not any(isinstance(i, FakeTensor) for i in inputs):\n",
            "        if not any(isinstance(i, (FakeTensor, torch.SymInt))"
            " for i in inputs):\n",
        ),
        "the maintainer review of the named graphs (helper-15)",
    ),
    Variant(
        "the first two placeholders only",
        "a delegate lists its lifted constants first: two are enough to look at",
        fix_with(
            '                if node.op == "placeholder"\n            ]\n',
            '                if node.op == "placeholder"\n            ][:2]\n',
        ),
        "the second maintainer review of the named graphs (helper-17)",
    ),
]
