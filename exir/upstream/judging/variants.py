"""Plausible rewrites of ``_ExportPassBase.call`` for #22309, each with the
reason someone might write it. None is marked right or wrong here: a
variant is wrong only where a witness (``witnesses``) shows a user a
failure under it, and the tests must then kill it; any other variant is
acceptable and the tests must pass on it (``mutants``).

Each variant is upstream's ``call`` with its mode-finding part (``FIND``)
and the branch for a found mode (``FOUND``) replaced; this project's own
fix is the text in ``exir/pass_base.py`` itself.
"""

from dataclasses import dataclass
from typing import List

from ...shared.fix_source import fixed_call_text


@dataclass(frozen=True)
class Variant:
    name: str
    reason: str
    text: str


def _scan(over: str, indent: str = "        ") -> str:
    """Upstream's scan for the one mode among ``over``."""
    lines = [
        f"for i in {over}:",
        "    if isinstance(i, FakeTensor):",
        "        assert (",
        "            fake_tensor_mode is None or fake_tensor_mode is i.fake_mode",
        '        ), "Multiple fake tensor mode detected."',
        "        fake_tensor_mode = i.fake_mode",
    ]
    return "".join(f"{indent}{line}\n" for line in lines)


PLACEHOLDER_VALS = (
    '[n.meta.get("val") for n in graph_module.graph.nodes if n.op == "placeholder"]'
)
UPSTREAM_FIND = "        fake_tensor_mode = None\n" + _scan("inputs")
UPSTREAM_FOUND = """\
            fake_tensor_mode.allow_non_fake_inputs = True
            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]
"""


def _call(find: str, found: str = UPSTREAM_FOUND, prologue: str = "") -> str:
    return f"""\
    def call(self, graph_module: fx.GraphModule) -> PassResult:
        if not getattr(self, "_initialized", False):
            raise ExportPassBaseError(
                "ExportPass is not initialized with __init__().",
            )

        inputs = self.inputs(graph_module)
{prologue}
{find}        if fake_tensor_mode is None:
            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)
            dispatcher_mode = nullcontext()  # type: ignore[assignment]
        else:
{found}        self.tracer.fake_tensor_mode = fake_tensor_mode
        self.fake_tensor_mode = fake_tensor_mode

        with fake_tensor_mode, dispatcher_mode:  # type: ignore[assignment, union-attr]
            result = self.call_submodule(graph_module, tuple(inputs))

        return result
"""


_FALLBACK = UPSTREAM_FIND + "        if fake_tensor_mode is None:\n"
_ALL_REAL = (
    "        if all(\n"
    "            isinstance(i, torch.Tensor) and not isinstance(i, FakeTensor)\n"
    "            for i in inputs\n"
    "        ):\n"
)
_ONLY_IF_NONE = "        if not any(isinstance(i, FakeTensor) for i in inputs):\n"


def _vals(over: str) -> str:
    """The fallback's scan over ``over``, read from the placeholders' ``vals``."""
    vals = f"        vals = {PLACEHOLDER_VALS}\n"
    return _call(_FALLBACK + _scan(over, " " * 12), prologue=vals)


VARIANTS: List[Variant] = [
    Variant(
        "this project's",
        "the placeholders' vals stand in for inputs() when it shows no FakeTensor",
        fixed_call_text(),
    ),
    Variant(
        "fallback scan of placeholders",
        "the shape #22310's description gives: scan the placeholders only when"
        " the inputs found no mode",
        _call(_FALLBACK + _scan(PLACEHOLDER_VALS, " " * 12)),
    ),
    Variant(
        "fallback scan with find_nodes",
        "the same with the graph's own placeholder index",
        _call(
            _FALLBACK
            + _scan(
                '[n.meta.get("val") for n in graph_module.graph.find_nodes(op="placeholder")]',
                " " * 12,
            )  # noqa: B950
        ),
    ),
    Variant(
        "detect_fake_mode of the inputs",
        "torch's idiomatic way to find a mode",
        _call("        fake_tensor_mode = torch._guards.detect_fake_mode(inputs)\n"),
    ),
    Variant(
        "detect_fake_mode of the placeholder vals",
        "the idiomatic API over the values that still are fake",
        _call(
            f"        fake_tensor_mode = torch._guards.detect_fake_mode({PLACEHOLDER_VALS})\n"
        ),  # noqa: B950
    ),
    Variant(
        "placeholders' mode without the python dispatcher",
        "the smallest diff: find the mode, keep the fallback's nullcontext()",
        _call(
            _FALLBACK + _scan(PLACEHOLDER_VALS, " " * 12),
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
        _call(
            _FALLBACK + _scan(PLACEHOLDER_VALS, " " * 12),
            found="            if any(isinstance(i, FakeTensor) for i in inputs):\n"
            "                fake_tensor_mode.allow_non_fake_inputs = True\n"
            "            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]\n",  # noqa: B950
        ),
    ),
    *(
        # Placeholders chosen by position: some of them only are scanned.
        Variant(
            name, "every placeholder of a graph shares one mode anyway", _vals(over)
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
        _call(
            _FALLBACK
            + _scan(
                '[v for n in graph_module.graph.nodes for v in pytree.tree_leaves(n.meta.get("val"))]',  # noqa: B950
                " " * 12,
            )
        ),
    ),
    Variant(
        "placeholders always",
        "simpler: always take the placeholders' vals, never inputs()",
        _call("        fake_tensor_mode = None\n" + _scan(PLACEHOLDER_VALS)),
    ),
    Variant(
        "inputs() not unwrapping constants",
        "fix the cause: retrace on the placeholders' FakeTensors, not their"
        " .constant tensors",
        _call(
            UPSTREAM_FIND,
            prologue=_ONLY_IF_NONE + f"            inputs = {PLACEHOLDER_VALS}\n",
        ),
    ),
    Variant(
        "fresh mode, constants re-faked",
        "one mode for the whole graph: a new one, the constants moved into it",
        _call(
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
        _call(
            _FALLBACK + f"            for v in {PLACEHOLDER_VALS}:\n"
            "                if isinstance(v, FakeTensor):\n"
            "                    fake_tensor_mode = v.fake_mode\n"
        ),
    ),
    Variant(
        "fallback only when every input is a real tensor",
        "the literal reading of #22309: every input is an unwrapped constant",
        _call(UPSTREAM_FIND + _ALL_REAL + _scan(PLACEHOLDER_VALS, " " * 12)),
    ),
]
