"""What one model's processes said, as the survey's outcomes: one for each
(partitioner, unpatched or backport) the model was lowered through.

#22309 is recognised by its assertion's text alone, in the messages of a
lowering's failure. A process ended for its time or memory limit gives its
step that outcome; one that crashed gives its step the signal or exit.
"""

import re
from typing import Dict, List, Optional

# torch's detect_fake_mode, as #22309 meets it: "fake mode (...) from ...
# doesn't match mode (...) from ...".
ASSERTION = re.compile(r"fake mode .* doesn't match mode")
OUT_OF_MEMORY = re.compile(r"^MemoryError|can't allocate memory")
# What a message may hold that names the machine it ran on, and what is
# kept of it: a path under site-packages from there on, any other path of
# the machine as PATH; a "#" before one to three digits is spaced from them
# (no number of an issue of ours).
MACHINE = [
    (re.compile(r"(?<![\w.~-])/[^\s'\"]*/site-packages/"), ""),
    (re.compile(r"(?<![\w.~-])/(?:tmp|work|home|root|Users)/[^\s'\":]*"), "PATH"),
    (re.compile(r"#(\d{1,3})\b"), r"# \1"),
]
DOES_NOT_EXPORT = "does not export"
LOWERS = "lowers"
BITTEN = "fails with #22309"
OTHER = "fails for another reason"
TIMED_OUT = "timed out"
NO_MEMORY = "out of memory"
OUTCOMES = (DOES_NOT_EXPORT, LOWERS, BITTEN, OTHER, TIMED_OUT, NO_MEMORY)


def clean(text: str) -> str:
    for pattern, kept in MACHINE:
        text = pattern.sub(kept, text)
    return text


def is_22309(messages: List[str]) -> bool:
    return any(ASSERTION.search(message) for message in messages)


def of_failure(messages: List[str]) -> Dict[str, object]:
    """A failed lowering's outcome, with the innermost message's first line."""
    messages = [clean(message) for message in messages]
    first = (messages[-1].splitlines() or [""])[0][:200] if messages else "no message"
    if is_22309(messages):
        return {"outcome": BITTEN, "error": first, "messages": messages}
    if any(OUT_OF_MEMORY.search(message) for message in messages):
        return {"outcome": NO_MEMORY, "error": first}
    return {"outcome": OTHER, "error": first}


def of_process(
    lines: List[Dict], ended: Optional[str], planned: List[str], backport: bool
) -> Dict[str, object]:
    """One process's part of a model's entry: ``export`` (the unpatched
    process), ``lowerings`` by partitioner, ``run``, ``apply``. ``ended``:
    ``None`` when it exited 0, else the outcome or crash that ended it; a
    backport process so ended gives it to each ``planned`` lowering it did
    not get to."""
    how = "backport" if backport else "unpatched"
    entry: Dict = {"lowerings": {}}
    doing: Optional[Dict] = None
    for line in lines:
        if "project_modules" in line:
            entry["project_modules"] = {how: line["project_modules"]}
        if "doing" in line or "done" in line:
            doing = line if "doing" in line else None
        if "done" in line:
            _add(entry, line, how)
    if ended is None:
        return entry
    cut = ended if ended in (TIMED_OUT, NO_MEMORY) else OTHER
    step = doing["doing"] if doing else "after its last step"
    result = {"outcome": cut, "error": clean(f"{step}: ended: {ended}")}
    if doing and doing["doing"] == "run":
        entry["run"] = {how: result}
    elif doing and doing["doing"] == "lower":
        entry["lowerings"][doing["p"]] = {how: result}
    elif doing and not backport:  # build or export
        entry["export"] = {**result, "step": step}
    for partitioner in planned if backport else []:  # all it did not get to
        entry["lowerings"].setdefault(partitioner, {how: result})
    return entry


def _add(entry: Dict, line: Dict, how: str) -> None:
    """A step's result, as its part of the entry."""
    name, ok = line["done"], line["ok"]
    failed = {} if ok else of_failure(line.get("messages", []))
    if name in ("build", "export") and not ok:
        # Its own outcome, not the failure's ("fails for another reason").
        entry["export"] = {**failed, "outcome": DOES_NOT_EXPORT, "step": name}
        entry["export"]["error"] = f"{name}: {failed['error']}"
    elif name == "export":
        entry["export"] = {"outcome": "exports", "seconds": line["seconds"]}
    elif name == "lower":
        result = {"outcome": LOWERS, "pte_sha256": line["pte_sha256"]} if ok else failed
        entry["lowerings"][line["p"]] = {how: {**result, "seconds": line["seconds"]}}
    elif name == "run":
        keys = ("equal", "max_abs_error")
        entry["run"] = {how: {k: line[k] for k in keys if k in line} or failed}
    elif name == "apply":
        entry["apply"] = line.get("status") or failed.get("error")


def merged(entry: Dict, more: Dict) -> Dict:
    """``entry`` with another process's part added, lowering by lowering."""
    for partitioner, hows in more.pop("lowerings", {}).items():
        entry.setdefault("lowerings", {}).setdefault(partitioner, {}).update(hows)
    for key, value in more.items():
        if isinstance(value, dict) and isinstance(entry.get(key), dict):
            entry[key].update(value)  # by unpatched or backport
        else:
            entry[key] = value
    return entry


def outcome_rows(entry: Dict) -> List[tuple]:
    """(partitioner, unpatched or backport, outcome) for each of the model's
    lowerings; a model that did not export has one, Vulkan unpatched."""
    export = entry.get("export", {})
    if export.get("outcome") != "exports":
        return [("vulkan", "unpatched", export.get("outcome", "not run"))]
    return [
        (partitioner, how, result["outcome"])
        for partitioner, hows in sorted(entry.get("lowerings", {}).items())
        for how, result in sorted(hows.items(), key=lambda kv: kv[0] != "unpatched")
    ]
