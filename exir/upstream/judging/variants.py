"""Plausible rewrites of ``_ExportPassBase.call`` for #22309, each with the
reason someone might write it. None is marked right or wrong here: a
variant is wrong only where a witness (``witnesses``) shows a user a
failure under it, and the tests must then kill it; any other variant is
acceptable and the tests must pass on it (``mutants``).

Each variant is upstream's ``call`` with its mode-finding part (``FIND``)
and the branch for a found mode (``FOUND``) replaced; this project's own
fix is the text in ``exir/pass_base.py`` itself.
"""

from typing import List

from ...shared.fix_source import fixed_call_text
from .adversaries.adversary_1_variants import VARIANTS as ADVERSARY_1
from .adversaries.adversary_2_variants import VARIANTS as ADVERSARY_2
from .adversaries.adversary_3_variants import VARIANTS as ADVERSARY_3
from .adversaries.adversary_4_variants import VARIANTS as ADVERSARY_4
from .adversaries.adversary_5_variants import VARIANTS as ADVERSARY_5
from .adversaries.adversary_6_variants import VARIANTS as ADVERSARY_6
from .call_texts import (
    ALL_REAL,
    call_text,
    FALLBACK,
    ONLY_IF_NONE,
    PLACEHOLDER_VALS,
    scan,
    UPSTREAM_FIND,
    vals_scan,
    Variant,
)
from .contract.variants import CONTRACT

EARLIER: List[Variant] = [
    Variant(
        "this project's",
        "the placeholders' vals stand in for inputs() when it shows no FakeTensor",
        fixed_call_text(),
    ),
    Variant(
        "fallback scan of placeholders",
        "the shape #22310's description gives: scan the placeholders only when"
        " the inputs found no mode",
        call_text(FALLBACK + scan(PLACEHOLDER_VALS, " " * 12)),
    ),
    Variant(
        "fallback scan with find_nodes",
        "the same with the graph's own placeholder index",
        call_text(
            FALLBACK
            + scan(
                '[n.meta.get("val") for n in graph_module.graph.find_nodes(op="placeholder")]',
                " " * 12,
            )  # noqa: B950
        ),
    ),
    Variant(
        "detect_fake_mode of the inputs",
        "torch's idiomatic way to find a mode",
        call_text(
            "        fake_tensor_mode = torch._guards.detect_fake_mode(inputs)\n"
        ),
    ),
    Variant(
        "detect_fake_mode of the placeholder vals",
        "the idiomatic API over the values that still are fake",
        call_text(
            f"        fake_tensor_mode = torch._guards.detect_fake_mode({PLACEHOLDER_VALS})\n"
        ),  # noqa: B950
    ),
    Variant(
        "placeholders' mode without the python dispatcher",
        "the smallest diff: find the mode, keep the fallback's nullcontext()",
        call_text(
            FALLBACK + scan(PLACEHOLDER_VALS, " " * 12),
            found="            fake_tensor_mode.allow_non_fake_inputs = True\n"
            "            dispatcher_mode = (\n"
            "                enable_python_dispatcher()\n"
            "                if any(isinstance(i, FakeTensor) for i in inputs)\n"
            "                else nullcontext()\n"
            "            )  # type: ignore[assignment]\n",
        ),
    ),
    Variant(
        "placeholders' mode, allow_non_fake_inputs untouched",
        "do not mutate the caller's mode object",
        call_text(
            FALLBACK + scan(PLACEHOLDER_VALS, " " * 12),
            found="            if any(isinstance(i, FakeTensor) for i in inputs):\n"
            "                fake_tensor_mode.allow_non_fake_inputs = True\n"
            "            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]\n",  # noqa: B950
        ),
    ),
    *(
        # Placeholders chosen by position: some of them only are scanned.
        Variant(
            name, "every placeholder of a graph shares one mode anyway", vals_scan(over)
        )
        for name, over in (
            ("first placeholder only", "vals[:1]"),
            ("last placeholder only", "vals[-1:]"),
            ("middle placeholder only", "vals[len(vals) // 2 :][:1]"),
            ("all placeholders but the last", "vals[:-1]"),
            ("all placeholders but the first", "vals[1:]"),
        )
    ),
    Variant(
        "every node's val",
        "the graph's mode is the mode of any val in it, outputs included",
        call_text(
            FALLBACK
            + scan(
                '[v for n in graph_module.graph.nodes for v in pytree.tree_leaves(n.meta.get("val"))]',  # noqa: B950
                " " * 12,
            )
        ),
    ),
    Variant(
        "placeholders always",
        "simpler: always take the placeholders' vals, never inputs()",
        call_text("        fake_tensor_mode = None\n" + scan(PLACEHOLDER_VALS)),
    ),
    Variant(
        "inputs() not unwrapping constants",
        "fix the cause: retrace on the placeholders' FakeTensors, not their"
        " .constant tensors",
        call_text(
            UPSTREAM_FIND,
            prologue=ONLY_IF_NONE + f"            inputs = {PLACEHOLDER_VALS}\n",
        ),
    ),
    Variant(
        "fresh mode, constants re-faked",
        "one mode for the whole graph: a new one, the constants moved into it",
        call_text(
            UPSTREAM_FIND + "        if fake_tensor_mode is None:\n"
            "            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)\n"
            '            for n in graph_module.graph.find_nodes(op="placeholder"):\n'
            '                v = n.meta.get("val")\n'
            "                if isinstance(v, FakeTensor) and v.constant is not None:\n"
            '                    n.meta["val"] = fake_tensor_mode.from_tensor(v.constant)\n'
        ),
    ),
    Variant(
        "no consistency assertion",
        "constants of two modes cannot happen; take the last one seen",
        call_text(
            FALLBACK + f"            for v in {PLACEHOLDER_VALS}:\n"
            "                if isinstance(v, FakeTensor):\n"
            "                    fake_tensor_mode = v.fake_mode\n"
        ),
    ),
    Variant(
        "fallback only when every input is a real tensor",
        "the literal reading of #22309: every input is an unwrapped constant",
        call_text(UPSTREAM_FIND + ALL_REAL + scan(PLACEHOLDER_VALS, " " * 12)),
    ),
]


VARIANTS: List[Variant] = [
    *EARLIER,
    *CONTRACT,
    *(
        Variant(f"{origin}: {v['name']}", v["reason"], v["text"], origin)
        for origin, written in (
            ("adversary-1", ADVERSARY_1),
            ("adversary-2", ADVERSARY_2),
            ("adversary-3", ADVERSARY_3),
            ("adversary-4", ADVERSARY_4),
            ("adversary-5", ADVERSARY_5),
            ("adversary-6", ADVERSARY_6),
        )
        for v in written
    ),
]
