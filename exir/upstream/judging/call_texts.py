"""Texts of ``_ExportPassBase.call`` for the variants: upstream's ``call``
with its mode-finding part (``find``) and the branch for a found mode
(``found``) replaced (``call_text``), or this project's fix with one line
replaced (``fix_with``).
"""

from dataclasses import dataclass

from ...shared.fix_source import fixed_call_text


@dataclass(frozen=True)
class Variant:
    name: str
    reason: str
    text: str
    origin: str = "earlier sessions: the reviews of #22310's fix"


def scan(over: str, indent: str = "        ") -> str:
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
UPSTREAM_FIND = "        fake_tensor_mode = None\n" + scan("inputs")
UPSTREAM_FOUND = """\
            fake_tensor_mode.allow_non_fake_inputs = True
            dispatcher_mode = enable_python_dispatcher()  # type: ignore[assignment]
"""


def call_text(find: str, found: str = UPSTREAM_FOUND, prologue: str = "") -> str:
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


FALLBACK = UPSTREAM_FIND + "        if fake_tensor_mode is None:\n"
ALL_REAL = (
    "        if all(\n"
    "            isinstance(i, torch.Tensor) and not isinstance(i, FakeTensor)\n"
    "            for i in inputs\n"
    "        ):\n"
)
ONLY_IF_NONE = "        if not any(isinstance(i, FakeTensor) for i in inputs):\n"


def vals_scan(over: str) -> str:
    """The fallback's scan over ``over``, read from the placeholders' ``vals``."""
    vals = f"        vals = {PLACEHOLDER_VALS}\n"
    return call_text(FALLBACK + scan(over, " " * 12), prologue=vals)


def fix_with(old: str, new: str) -> str:
    """This project's fix with its one line ``old`` replaced by ``new``."""
    text = fixed_call_text()
    assert text.count(old) == 1, old
    return text.replace(old, new)
