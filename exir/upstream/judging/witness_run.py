"""``python -m exportpass_fix.upstream.judging.witness_run``: every witness under
every variant of ``call``, in one process.

Reads ``{variant name: call text}`` as JSON on stdin; installs each text in
turn on the installed ``_ExportPassBase`` (compiled in the namespace of
``executorch.exir.pass_base``, as the backport installs the fix), runs every
witness, and prints ``{variant name: {witness name: what a user sees}}``,
with the installed ``call`` itself under ``UNFIXED``.
"""

import json
import sys
from typing import Dict

UNFIXED = "unfixed upstream"


def observe(texts: Dict[str, str]) -> Dict[str, Dict[str, str]]:
    from executorch.exir import pass_base

    from ...shared.fix_source import PATCHED_CLASS, PATCHED_METHOD
    from ...shared.method_code import compiled_method
    from .witnesses import WITNESSES

    cls = pass_base._ExportPassBase
    original = cls.__dict__[PATCHED_METHOD]
    calls = {UNFIXED: original}
    for name, text in texts.items():
        calls[name] = compiled_method(
            pass_base, PATCHED_CLASS, text, f"<variant {name!r}>"
        )
    seen: Dict[str, Dict[str, str]] = {}
    try:
        for name, call in calls.items():
            setattr(cls, PATCHED_METHOD, call)
            seen[name] = {witness.name: witness.run() for witness in WITNESSES}
    finally:
        setattr(cls, PATCHED_METHOD, original)
    return seen


if __name__ == "__main__":
    print(json.dumps(observe(json.load(sys.stdin))))
