"""Witness of a pass that raises: a user's script catches the error and goes
on, as a backend's check rejects an op and the script falls back. ``call``
must leave no fake mode entered, or the script's eager tensors come out
fake. Run under whatever ``_ExportPassBase.call`` is installed."""

from typing import Dict, List

import torch
from executorch.exir import EdgeProgramManager
from executorch.exir.pass_base import Argument, ExportPass, NodeMetadata, ProxyValue
from judge_witnesses import _equal, edge_methods, Flow, METHODS, OK
from torch._subclasses.fake_tensor import FakeTensor

RAISED = (
    "a pass that raises in EdgeProgramManager.transform on a method of lifted"
    " constants only, caught by the script, which then runs eager"
)


class Rejecting(ExportPass):
    """Rejects the graph it retraces, as a backend's check rejects an op."""

    def output(self, results: List[Argument], meta: NodeMetadata) -> ProxyValue:
        raise RuntimeError("rejected")


def _after_a_pass_raises() -> Dict[str, str]:
    program = edge_methods().exported_program("table")
    (module,) = [m for name, m, _ in METHODS if name == "table"]
    want = module()
    try:
        EdgeProgramManager({"table": program}).transform([Rejecting()])
        return {RAISED: "does not raise"}
    except Exception:
        pass
    eager = module()
    leaked = torch._C._get_dispatch_mode(torch._C._TorchDispatchModeKey.FAKE)
    if leaked is not None:  # exit it: the flows and tests that follow run real
        leaked.__exit__(None, None, None)
    if isinstance(eager, FakeTensor):
        return {RAISED: "eager tensors are fake"}
    return {RAISED: OK if _equal(eager, want) else "wrong values"}


RAISED_FLOWS: List[Flow] = [
    Flow(
        "EdgeProgramManager.transform, a pass that raises, caught by the script",
        (RAISED,),
        _after_a_pass_raises,
    ),
]
