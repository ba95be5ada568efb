"""``python -m exportpass_fix.upstream.judging.witness_run``: every witness under
each variant of ``call`` it is given, in one process.

Reads ``{variant name: call text}`` as JSON on stdin; installs each text in
turn on the installed ``_ExportPassBase`` (compiled in the namespace of
``executorch.exir.pass_base``, as the backport installs the fix), runs every
witness, and prints ``{variant name: {witness name: what a user sees}}``,
with the installed ``call`` itself under ``UNFIXED``.
"""

import json
import sys
from typing import Dict, List

UNFIXED = "unfixed upstream"


def all_witnesses() -> List[object]:
    """The witnesses of ``witnesses``, ``contract`` and the
    adversaries'. Imports torch and executorch."""
    from . import witnesses
    from .adversaries import witnesses as adversaries
    from .contract import nofake_witnesses, witnesses as contract_witnesses

    return [
        *witnesses.WITNESSES,
        *contract_witnesses.WITNESSES,
        *nofake_witnesses.WITNESSES,
        *adversaries(),
    ]


def observe(texts: Dict[str, str]) -> Dict[str, Dict[str, str]]:
    from executorch.exir import pass_base

    from ...shared.fix_source import PATCHED_CLASS, PATCHED_METHOD
    from ...shared.method_code import compiled_method

    every = all_witnesses()

    cls = pass_base._ExportPassBase
    original = cls.__dict__[PATCHED_METHOD]
    calls = {UNFIXED: original}
    for name, text in texts.items():
        calls[name] = compiled_method(
            pass_base, PATCHED_CLASS, text, f"<variant {name!r}>"
        )
    seen: Dict[str, Dict[str, str]] = {}
    before = set(vars(cls))
    try:
        for name, call in calls.items():
            setattr(cls, PATCHED_METHOD, call)
            seen[name] = {w.name: w.run() for w in every}  # type: ignore[attr-defined]
            # What a variant left on the class (a cached mode) goes with it.
            for attribute in set(vars(cls)) - before:
                delattr(cls, attribute)
    finally:
        setattr(cls, PATCHED_METHOD, original)
    return seen


if __name__ == "__main__":
    print(json.dumps(observe(json.load(sys.stdin))))
