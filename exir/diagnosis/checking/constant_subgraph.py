"""The input-independent subgraph: where the user's code computes it, and
the issue's reduced model lowered through a test partitioner.

``where(nodes, origins)`` names the code behind a trigger-shaped delegate's
ops, from the metadata ``torch.export`` gives each node (and
``torch.export.save`` and ``load`` keep): the module path and class
(``nn_module_stack``) and the innermost user frame (``stack_trace``),
deduplicated, in graph order. Frames inside torch, executorch and this tool,
and code torch.fx generated, are not the user's; a node inlined from the
body of a higher-order op (``torch.no_grad`` in ``forward``) is read from
that body in the exported program (``nested_traces``). This project's own
models (``builtin:``) count as user code.

The test partitioner involves no backend of ExecuTorch's: every node that
depends on no user input is delegated, with its constants, to a backend
whose ``preprocess`` runs an ``ExportPass`` (as Vulkan's runs
``FuseBatchNormPass``). It is the lowering of upstream's regression test, run
on any installed release by the worker. Importing this module imports torch
and executorch.
"""

import re
from pathlib import Path
from typing import Dict, List, Optional, Set

import executorch.exir as exir
import torch
from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec
from executorch.exir.backend.partitioner import (
    DelegationSpec,
    Partitioner,
    PartitionResult,
)
from executorch.exir.backend.utils import tag_constant_data
from executorch.exir.pass_base import ExportPass
from torch.export import ExportedProgram

from ...shared.repro import SineFrequencies


class ExportPassBackend(BackendDetails):
    @staticmethod
    def preprocess(
        edge_program: ExportedProgram, compile_specs: List[CompileSpec]
    ) -> PreprocessResult:
        exir.EdgeProgramManager(edge_program).transform([ExportPass()])
        return PreprocessResult(processed_bytes=b"")


class InputIndependentPartitioner(Partitioner):
    def __init__(self) -> None:
        super().__init__()
        self.delegation_spec = DelegationSpec(ExportPassBackend.__name__, [])

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        user_inputs = set(exported_program.graph_signature.user_inputs)
        input_dependent: Set[torch.fx.Node] = set()
        for node in exported_program.graph_module.graph.nodes:
            if node.name in user_inputs or input_dependent & set(node.all_input_nodes):
                input_dependent.add(node)
            elif node.op == "call_function":
                node.meta["delegation_tag"] = "input_independent"
        tag_constant_data(exported_program)
        return PartitionResult(
            tagged_exported_program=exported_program,
            partition_tags={"input_independent": self.delegation_spec},
        )


def lower_constant_subgraph() -> int:
    """Lower the reduced model through the test partitioner; the number of
    delegates (raises what the lowering raises)."""
    program = torch.export.export(SineFrequencies(), (torch.randn(4, 128),))
    edge = exir.to_edge_transform_and_lower(
        program, partitioner=[InputIndependentPartitioner()]
    )
    graph = edge.exported_program().graph
    return sum(1 for n in graph.nodes if "executorch_call_delegate" in str(n.target))


# 'File "/x/model.py", line 6, in forward\n    t = torch.arange(16)'
FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)\n([^\n]*)')
NO_METADATA = (
    "unknown: the program carries no stack_trace or nn_module_stack for these"
    " ops (torch.export records them; a program rebuilt without them has none)"
)


OWN = Path(__file__).resolve().parents[2]  # the exportpass_fix package
OWN_MODELS = (OWN / "diagnosis" / "models", OWN / "shared" / "repro.py")


def _tool_dirs() -> List[Path]:
    import executorch

    # executorch is a namespace package: no __file__, one __path__ entry
    packages = [p for m in (torch, executorch) for p in m.__path__]
    return [Path(p).resolve() for p in packages] + [OWN]


def _user_frame(path: str, tool_dirs: List[Path]) -> bool:
    if path.startswith("<"):  # generated code (<eval_with_key>.N), no file
        return False
    resolved = Path(path).resolve()
    if any(resolved == m or m in resolved.parents for m in OWN_MODELS):
        return True
    return not any(d in resolved.parents for d in tool_dirs)


def _frames(stack_trace: str, tool_dirs: List[Path]) -> List[Dict[str, object]]:
    """The user frames of a stack trace, innermost first."""
    frames = [
        {"file": f, "line": int(n), "function": fn, "code": code.strip()}
        for f, n, fn, code in FRAME.findall(stack_trace)
        if _user_frame(f, tool_dirs)
    ]
    return frames[::-1]


def _module(node: torch.fx.Node) -> Optional[Dict[str, str]]:
    """The innermost module of ``nn_module_stack``: its path and class."""
    stack = node.meta.get("nn_module_stack") or {}
    if not stack:
        return None
    path, kind = list(stack.values())[-1][:2]
    kind = kind if isinstance(kind, str) else getattr(kind, "__qualname__", str(kind))
    return {"module": path or "(top-level module)", "module_class": kind}


# The frame of code torch.fx generated, and the node its line assigns.
GENERATED = re.compile(r'File "<[^"]*", line \d+, in \S+\n\s*(\w+) = ')


def nested_traces(program: "ExportedProgram") -> Dict[str, Dict[str, str]]:
    """The stack traces of the nodes in the bodies of a program's higher-order
    ops (``torch.no_grad`` in ``forward`` makes one), by the name of the op
    that calls the body, then by node name: lowering inlines a body, and its
    nodes then carry only the frame of the code torch.fx generated for it."""
    modules = dict(program.graph_module.named_modules())
    found: Dict[str, Dict[str, str]] = {}
    for node in program.graph.nodes:
        for arg in node.args:
            body = modules.get(str(getattr(arg, "target", "")))
            if getattr(arg, "op", None) == "get_attr" and body is not None:
                graph = getattr(body, "graph", None)
                traces = {n.name: n.meta.get("stack_trace") or "" for n in graph.nodes}
                found.setdefault(node.name, {}).update(traces)
    return found


def _trace(node: torch.fx.Node, origins: Dict[str, Dict[str, str]]) -> str:
    """The node's stack trace; for a node inlined from a body, its trace
    there (the body found by the op the node came from, else by its name
    where only one body has it)."""
    trace = node.meta.get("stack_trace") or ""
    generated = GENERATED.search(trace)
    if generated is None:
        return trace
    name = generated.group(1)
    callers = [getattr(s, "name", None) for s in node.meta.get("from_node") or []]
    found = [origins[c][name] for c in callers if name in origins.get(c, {})]
    if not found:
        found = [body[name] for body in origins.values() if name in body]
    return found[0] if len(set(found)) == 1 else trace


def where(
    nodes: List[torch.fx.Node], origins: Dict[str, Dict[str, str]]
) -> Dict[str, object]:
    """The user's code behind ``nodes``: ``sources``, one a distinct module and
    innermost user frame (``callers``: its outer user frames), ``unlocated``
    the ops with neither, and ``note`` when there is nothing to name.
    ``origins``: ``nested_traces`` of the program the nodes were lowered from."""
    tool_dirs = _tool_dirs()
    sources: Dict[tuple, Dict[str, object]] = {}
    unlocated = []
    for node in nodes:
        frames = _frames(_trace(node, origins), tool_dirs)
        module = _module(node)
        if module is None and not frames:
            unlocated.append(node.name)
            continue
        inner = frames[0] if frames else {}
        key = (module and module["module"], inner.get("file"), inner.get("line"))
        source = sources.setdefault(
            key, {**(module or {}), **inner, "callers": frames[1:], "ops": []}
        )
        source["ops"].append(node.name)  # type: ignore[union-attr]
    note = None
    if not sources:
        note = NO_METADATA if nodes else "unknown: the delegate has no ops"
    elif not any("file" in s for s in sources.values()):
        note = "no frame of the stack traces is outside torch, executorch and this tool"
    return {"sources": list(sources.values()), "unlocated": unlocated, "note": note}
