"""The user's models loaded once, before ExecuTorch is imported, so that
what cannot be checked is refused in seconds and whatever their code does
is named.

``load_each`` runs in a child of the worker (its stdout a pipe of its own):
a record before each stage of each model (``load``, ``import``, ``build``,
``export``), ``loaded`` after it, or ``bad_input`` with exit status 2; and
``printed``: what the user's code prints at import and when called, which
the worker sends on to check's stderr (``printed``). A model whose export
fails is not refused: its columns report it. ``refusal`` reads what the
child wrote and how it ended: a refusal it gave, or, where the child ended
inside the user's code (``os._exit``, a signal), which stage it ended in,
how, and the last line it printed.
"""

import io
import json
import os
import signal
import sys
from typing import Dict, List, Optional, TextIO

from ...shared.report import EXIT_REFUSED
from .model_spec import BadModel, load_model


def _emit(**record: object) -> None:
    print(json.dumps(record), flush=True)


class _Printed(io.TextIOBase):
    """What the user's code prints, as records on ``out``: check writes it
    to its own stderr."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, text: str) -> int:
        self.out.write(json.dumps({"printed": text}) + "\n")
        self.out.flush()
        return len(text)


def load_each(specs: List[str], tolerance: Dict[str, float]) -> None:
    echo = _Printed(sys.stdout)
    for spec in specs:

        def stage(name: str, spec: str = spec) -> None:
            _emit(spec=spec, stage=name)

        try:
            load_model(spec, stage=stage, echo=echo, **tolerance)
        except BadModel as bad:
            _emit(bad_input=str(bad))
            sys.exit(EXIT_REFUSED)
        except Exception:  # the model's own export failed: its columns say so
            pass
        _emit(spec=spec, loaded=True)


def records(output: str) -> List[Dict]:
    """The JSON records among a child's lines (anything else is skipped)."""
    found = []
    for line in output.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            found.append(record)
    return found


def printed(output: str) -> str:
    """What the user's code printed, from the child's records."""
    return "".join(str(r.get("printed", "")) for r in records(output))


def ended(status: int) -> str:
    """How a process ended, from its wait status."""
    if os.WIFSIGNALED(status):
        return f"killed by signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def refusal(specs: List[str], output: str, status: int, stderr: str) -> Optional[str]:
    """Why the models cannot be checked, or None when each one loaded."""
    written = records(output)
    bad = [r["bad_input"] for r in written if "bad_input" in r]
    if bad:
        return str(bad[0])
    if all({"spec": s, "loaded": True} in written for s in specs):
        return None
    staged = [r for r in written if "stage" in r] or [{"spec": specs[0]}]
    spec, stage = staged[-1]["spec"], staged[-1].get("stage", "load")
    module = spec.partition(":")[0]
    what = {
        "import": f"importing {module!r}",
        "build": f"calling {spec}()",
        "export": f"exporting {spec}",
    }.get(stage, f"loading {spec}")
    said = [line for line in stderr.splitlines() if line.strip()]
    return (
        f"{what} ended the process ({ended(status)}) before check could load"
        " the model" + (f"; it printed last: {said[-1].strip()}" if said else "")
    )
