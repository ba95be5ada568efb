"""Is a lowering failure #22309, and which part of the graph triggers it?

``failure`` reads an exception chain: the innermost error, whether the
fake-mode assertion of #22309 is in it, and the pass the pass manager's
outer message blames. ``trigger_delegates`` (of a lowered program) and
``partition_triggers`` (of a partitioner's result) find the delegated
subgraphs with the trigger shape: at least one input, each a lifted
constant or a value that carries its constant. ``verdict`` turns the three
columns into the verdict: the routes that were measured.
"""

import re
from typing import Dict, List, Optional, TYPE_CHECKING

from ...shared.installed import installed_version

if TYPE_CHECKING:  # check's parent process imports this module, not torch
    import torch

FAKE_MODE_MISMATCH = re.compile(r"fake mode .* doesn't match mode")
# Measured (docs/check.md): on 1.0.0 a folded DETR-style program reached a
# .pte that failed when run, where the other columns ran and matched eager.
FOLDED_ON_10X = (
    "  on 1.0.x a folded .pte has failed when run (docs/check.md):"
    " run it on the device before trusting it"
)
NOT_COMPARED = "outputs not compared"
BLAMED_PASS = re.compile(r"An error occurred when running the '([^']+)' pass")
# What the folded column adds to a user's script, before lowering.
FOLD_LINE = (
    "from executorch.exir.passes.constant_prop_pass import constant_prop_pass;"
    " ep = constant_prop_pass(ep)"
)
HOW_TO_USE = (
    "call exportpass_fix.apply() before to_edge_transform_and_lower(...),"
    " or run your script with EXPORTPASS_FIX=1"
)


def _chain(error: BaseException) -> List[BaseException]:
    chain = [error]
    while chain[-1].__cause__ is not None or chain[-1].__context__ is not None:
        chain.append(chain[-1].__cause__ or chain[-1].__context__)  # type: ignore
    return chain


def innermost_error(error: BaseException) -> str:
    """The deepest cause's type and first line: the error under the wrappers."""
    deepest = _chain(error)[-1]
    first_line = (str(deepest).splitlines() or [""])[0]
    # "<torch._subclasses.fake_tensor.FakeTensorMode object at 0x7f...>"
    first_line = re.sub(r"<(?:\w+\.)*(\w+) object at 0x[0-9a-f]+>", r"\1", first_line)
    if len(first_line) > 130:
        first_line = first_line[:127] + "..."
    return f"{type(deepest).__name__}: {first_line}"


def failure(error: BaseException) -> Dict[str, object]:
    chain = _chain(error)
    blamed = [m.group(1) for e in chain for m in [BLAMED_PASS.search(str(e))] if m]
    return {
        "error": innermost_error(error),
        "is_22309": any(
            isinstance(e, AssertionError) and FAKE_MODE_MISMATCH.search(str(e))
            for e in chain
        ),
        "blamed_pass": blamed[0] if blamed else None,
    }


def _constant_like(node: "torch.fx.Node", user_inputs: set) -> bool:
    """What ``ExportPass.inputs()`` gives as a real tensor: a placeholder
    that is no user input (a lifted constant), or a value that carries its
    constant (on 1.0.x, a dtype copy of one computed outside the delegate)."""
    if node.op == "placeholder" and node.name not in user_inputs:
        return True
    return getattr(node.meta.get("val"), "constant", None) is not None


def _described(name: str, inputs: List[str], ops: List["torch.fx.Node"]) -> Dict:
    """A trigger-shaped subgraph as check reports it, with where its ops are."""
    from .constant_subgraph import where

    return {
        "name": name,
        "placeholders": inputs,
        "ops": [n.name for n in ops],
        "where": where(ops),
    }


def _trigger(name: str, graph: "torch.fx.Graph", user_inputs: set) -> Optional[Dict]:
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    if not placeholders or not all(
        _constant_like(n, user_inputs) for n in placeholders
    ):
        return None
    ops = [n for n in graph.nodes if n.op == "call_function"]
    return _described(name, [n.name for n in placeholders], ops)


def trigger_delegates(program: "torch.export.ExportedProgram") -> List[Dict]:
    """The lowered submodules whose placeholders are all constants."""
    from executorch.exir.lowered_backend_module import get_lowered_submodules

    found = []
    for name, lowered, _ in get_lowered_submodules(program.graph_module):
        original = lowered.original_module
        trigger = _trigger(
            name, original.graph, set(original.graph_signature.user_inputs)
        )
        if trigger is not None:
            found.append({**trigger, "backend": lowered.backend_id})
    return found


def partition_triggers(result: object) -> List[Dict]:
    """A partitioner's result, as it tagged the program it was given: the
    partitions that are trigger-shaped, by the inputs that feed their nodes.
    Read when the partitioner returns, before lowering moves the nodes."""
    program = result.tagged_exported_program  # type: ignore[attr-defined]
    user_inputs = set(program.graph_signature.user_inputs)
    nodes = list(program.graph.nodes)
    found = []
    for tag in result.partition_tags:  # type: ignore[attr-defined]
        members = [n for n in nodes if n.meta.get("delegation_tag") == tag]
        feeding = {a for n in members for a in n.all_input_nodes} - set(members)
        inputs = feeding | {n for n in members if n.op == "placeholder"}
        names = sorted(a.name for a in inputs)
        if names and all(_constant_like(a, user_inputs) for a in inputs):
            ops = [n for n in members if n.op == "call_function"]
            found.append(_described(tag, names, ops))
    return found


def what_failed(failed: Dict) -> str:
    """A failed step in words: its innermost error, else its detail."""
    return str(failed.get("error") or failed.get("detail") or failed["failed"])


def outputs_in_words(run: Dict) -> Optional[str]:
    """What a column's run step found: outputs against eager, or why none."""
    if not run:
        return None
    if run["status"] == "not run":
        return f"{NOT_COMPARED}: {run['detail']}"
    if run["status"] == "ok":
        return f"outputs match eager: {run['detail']}"
    if run.get("max_abs_error") is not None:
        return f"outputs miss the tolerance: {run['detail']}"
    return f"its .pte fails when run: {run['detail']}"


def _cost(route: Dict) -> str:
    outputs = route.get("outputs")
    return f".pte {route['pte_bytes']} bytes" + (f", {outputs}" if outputs else "")


def _routes(backport: Dict, folded: Dict) -> str:
    """Each way past a lowering that fails unpatched, as measured: a line
    each, the line to add with it."""
    said = ["blocked by #22309; each way past it, as measured on this program:"]
    if backport.get("lowers") and not backport.get("runs", True):
        said.append(f"- the backport lets it lower, but {_cost(backport)}")
    elif backport.get("lowers"):
        said.append(f"- the backport unblocks it ({_cost(backport)}): {HOW_TO_USE}")
    else:
        said.append(f"- the backport does not make it lower: {backport.get('error')}")
    if folded.get("lowers") and not folded.get("runs", True):
        said.append(f"- folding its constants lets it lower, but {_cost(folded)}")
    elif folded.get("lowers"):
        said.append(
            "- folding its constants unblocks it, patching nothing"
            f" ({_cost(folded)}): before to_edge_transform_and_lower, {folded['line']}"
        )
        unseen = str(folded.get("outputs", "")).startswith(NOT_COMPARED)
        if unseen and installed_version().startswith("1.0."):
            said.append(FOLDED_ON_10X)
    elif folded:
        said.append(
            f"- folding its constants does not unblock it: {folded.get('error')}"
        )
    return "\n".join(said)


def verdict(unpatched: Dict, backport: Dict, folded: Dict) -> str:
    """One line from the unpatched column's first failing step (``failed``
    None if all ok) and the routes of the other two (``lowers``, ``error``,
    ``pte_bytes``, ``outputs``, ``line``; folded empty if not run)."""
    if unpatched.get("failed") is None:
        return "not affected by #22309 (lowers unpatched)"
    if unpatched["failed"] == "run":
        return "not affected by #22309 (lowers unpatched), but its " + (
            outputs_in_words(unpatched) or ""
        ).replace("its .pte", ".pte", 1)
    if unpatched.get("is_22309"):
        return _routes(backport, folded)
    if backport.get("lowers"):
        return (
            "lowers only with the backport, though the unpatched error is not"
            f" #22309's: {what_failed(unpatched)}"
        )
    return f"fails for another reason, not #22309: {what_failed(unpatched)}"
