"""What ``check --json`` says of a survey's model, in the survey's outcomes,
and where its "where" points (check_render.py shows the record).

"where" points at one of three places. ``table``: the line of the zoo's
source, itself in ``forward``, whose own ops compute the table. ``call
site``: a line of ``forward`` that calls the function computing it (torch
records only ``forward``'s frames). ``neither``: no line, or one outside
the zoo's package.
"""

import ast
import re
from typing import Dict, List, Optional

from exportpass_fix.survey import outcomes

HOWS = ("unpatched", "backport")
TORCH = {"torch", "F", "nn", "math"}
TENSOR_METHODS = {
    *("arange", "float", "to", "type_as", "unsqueeze", "reshape", "view"),
    *("expand", "flatten", "repeat", "permute", "transpose", "exp", "log"),
    *("sin", "cos", "pow", "sqrt", "div", "mul", "add", "sub", "clamp", "sum"),
}


def _column(steps: List[Dict]) -> str:
    """A column's outcome as the survey names it: its lowering (through
    ``to_executorch``) lowered, failed with #22309, or otherwise."""
    by_step = {step["step"]: step for step in steps if step.get("run") in (None, 0)}
    if by_step.get("load", {}).get("status") == "failed":
        return outcomes.DOES_NOT_EXPORT
    for name in ("lower", "to_executorch"):
        step = by_step.get(name)
        if step is None:
            return "ended early"
        if step["status"] == "failed":
            return outcomes.BITTEN if step.get("is_22309") else outcomes.OTHER
    return outcomes.LOWERS


def of_check(checked: Dict) -> Dict[str, str]:
    """check's outcome of each column: the two the survey also runs, and
    the program's constants folded first (which the survey does not)."""
    return {how: _column(checked["columns"][how]) for how in (*HOWS, "folded")}


def agrees(survey: Dict[str, Optional[str]], check: Dict[str, str]) -> bool:
    """Whether check gives every outcome the survey measured (the survey
    lowers with the backport only some models)."""
    return all(survey[how] in (None, check[how]) for how in HOWS)


def _calls(code: str) -> List[str]:
    """The dotted names the line calls (``f``, ``self.f``, ``torch.arange``)."""
    try:
        tree = ast.parse(code.strip().rstrip(":") or "None")
    except SyntaxError:  # a statement cut at its line's end: "a = f("
        return re.findall(r"([\w.]+)\s*\(", code)
    return [
        ast.unparse(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)
    ]


def _torch(call: str) -> bool:
    """A call of torch's, or a tensor method: it computes, calls nothing of
    the zoo's."""
    head, _, last = call.rpartition(".")
    return call.split(".")[0] in TORCH or (bool(head) and last in TENSOR_METHODS)


def points_at(source: Dict, zoo: str) -> str:
    """``table``, ``call site`` or ``neither`` (the module's docstring): a
    line of the zoo's ``forward`` that calls only torch computes the table."""
    if not source["file"].startswith(f"{zoo}/") or source["function"] != "forward":
        return "neither"
    return "table" if all(map(_torch, _calls(source["code"]))) else "call site"


def where(checked: Dict, zoo: str) -> List[Dict]:
    """Each source check names for the trigger-shaped delegates, its file
    relative to site-packages, and what it points at."""
    found = []
    for trigger in checked["diagnosis"]["trigger_submodules"]:
        for source in trigger["where"]["sources"]:
            found.append(
                {
                    "file": outcomes.clean(source.get("file", "")),
                    "line": source.get("line"),
                    "function": source.get("function"),
                    "code": source.get("code", ""),
                    "ops": source.get("ops", []),
                }
            )
            found[-1]["points_at"] = points_at(found[-1], zoo)
    return found
