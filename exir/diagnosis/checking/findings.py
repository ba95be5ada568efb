"""Is a lowering failure #22309, and which part of the graph triggers it?

``failure`` reads an exception chain: the innermost error a traceback
shows, whether the fake-mode assertion of #22309 is anywhere in it, and the
pass the pass manager's outer message blames. ``trigger_delegates`` (of a
lowered program) and ``partition_triggers`` (of a partitioner's result,
noted as ``recording_triggers`` lowers) find the delegated subgraphs with
the trigger shape: at least one input, each a lifted constant or a value
that carries its constant; ``named`` names the partitioner of each;
``edited_since_saved`` the source files edited since a ``.pt2`` was saved.
"""

import os
import re
from pathlib import Path
from typing import Dict, List, Optional, TYPE_CHECKING


if TYPE_CHECKING:  # check's parent process imports this module, not torch
    import torch

FAKE_MODE_MISMATCH = re.compile(r"fake mode .* doesn't match mode")
BLAMED_PASS = re.compile(r"An error occurred when running the '([^']+)' pass")


def _chain(error: BaseException, shown: bool = False) -> List[BaseException]:
    """``error`` and its causes and contexts; ``shown``: only those a
    traceback shows (a ``raise ... from None`` hides the context, an error
    the code handled before raising its own)."""
    chain = [error]
    while True:
        last = chain[-1]
        hidden = shown and last.__suppress_context__
        below = last.__cause__ or (None if hidden else last.__context__)
        if below is None or below in chain:
            return chain
        chain.append(below)


def innermost_error(error: BaseException) -> str:
    """The deepest shown cause's type and first line: the error under the
    wrappers, as the code that raised it named it."""
    deepest = _chain(error, shown=True)[-1]
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


def _described(
    name: str, inputs: List[str], ops: List["torch.fx.Node"], origins: Dict
) -> Dict:
    """A trigger-shaped subgraph as check reports it, with where its ops are
    (``origins``: ``constant_subgraph.nested_traces`` of the program)."""
    from .constant_subgraph import where

    return {
        "name": name,
        "placeholders": inputs,
        "ops": [n.name for n in ops],
        "where": where(ops, origins),
    }


def _trigger(
    name: str, graph: "torch.fx.Graph", user_inputs: set, origins: Dict
) -> Optional[Dict]:
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    if not placeholders or not all(
        _constant_like(n, user_inputs) for n in placeholders
    ):
        return None
    ops = [n for n in graph.nodes if n.op == "call_function"]
    return _described(name, [n.name for n in placeholders], ops, origins)


def trigger_delegates(
    program: "torch.export.ExportedProgram", origins: Dict
) -> List[Dict]:
    """The lowered submodules whose placeholders are all constants."""
    from executorch.exir.lowered_backend_module import get_lowered_submodules

    found = []
    for name, lowered, _ in get_lowered_submodules(program.graph_module):
        original = lowered.original_module
        user_inputs = set(original.graph_signature.user_inputs)
        trigger = _trigger(name, original.graph, user_inputs, origins)
        if trigger is not None:
            found.append({**trigger, "backend": lowered.backend_id})
    return found


def partition_triggers(result: object, origins: Dict) -> List[Dict]:
    """A partitioner's result, as it tagged the program it was given: the
    partitions that are trigger-shaped, by the inputs that feed their nodes,
    each with the backend its tag delegates to.
    Read when the partitioner returns, before lowering moves the nodes."""
    program = result.tagged_exported_program  # type: ignore[attr-defined]
    user_inputs = set(program.graph_signature.user_inputs)
    nodes = list(program.graph.nodes)
    found = []
    for tag, spec in result.partition_tags.items():  # type: ignore[attr-defined]
        members = [n for n in nodes if n.meta.get("delegation_tag") == tag]
        feeding = {a for n in members for a in n.all_input_nodes} - set(members)
        inputs = feeding | {n for n in members if n.op == "placeholder"}
        names = sorted(a.name for a in inputs)
        if names and all(_constant_like(a, user_inputs) for a in inputs):
            ops = [n for n in members if n.op == "call_function"]
            described = _described(tag, names, ops, origins)
            found.append({**described, "backend": spec.backend_id})
    return found


def recording_triggers(
    name: str,
    partitioner: object,
    found: Dict[str, List],
    backends: Dict[str, str],
    origins: Dict,
) -> object:
    """``partitioner`` (``name`` as the user named it), this instance only,
    noting the trigger-shaped partitions of each program it tags, so that a
    lowering that fails later still tells them without partitioning again,
    and ``backends``: each backend it delegates to, to its name."""
    partition = partitioner.partition  # type: ignore[attr-defined]

    def noted(program: object) -> object:
        result = partition(program)
        for spec in result.partition_tags.values():
            backends[spec.backend_id] = name
        try:
            triggers = partition_triggers(result, origins)
        except Exception:  # the diagnosis is no reason to fail the lowering
            triggers = []
        found[name] = [{**t, "partitioner": name} for t in triggers]
        return result

    partitioner.partition = noted  # type: ignore[attr-defined]
    return partitioner


def named(triggers: List[Dict], backends: Dict[str, str]) -> List[Dict]:
    """Each lowered trigger with the partitioner that made it, as the user
    named it, beside the backend it delegates to (WebGPU's is Vulkan's)."""
    return [{**t, "partitioner": backends.get(t["backend"])} for t in triggers]


def edited_since_saved(pt2: str, triggers: List[Dict]) -> List[str]:
    """A line naming each source file of ``triggers`` modified after the
    ``.pt2`` at ``pt2`` was saved (no line if none, or if ``pt2`` is no
    file): the lines named are the code it was exported from."""
    saved = Path(pt2)
    if not saved.is_file():
        return []
    wheres = [t.get("where") or {} for t in triggers]
    files = sorted(
        {s["file"] for w in wheres for s in w.get("sources", []) if "file" in s}
    )
    edited = [
        os.path.relpath(f) if f.startswith(os.getcwd() + os.sep) else f
        for f in files
        if Path(f).is_file() and Path(f).stat().st_mtime > saved.stat().st_mtime
    ]
    if not edited:
        return []
    return [
        f"note: {', '.join(edited)} changed after {saved.name} was saved: the"
        " lines above are as they were then, and may have moved"
    ]
