"""The kill table: which variants of ``_ExportPassBase.call`` are wrong, and
whether this project's tests in ``exir/tests/test_pass_infra.py`` kill
exactly those.

    python test/upstream/judging/judge_run.py > table.json

One process imports torch, ExecuTorch, the witnesses and the tests once,
runs every witness under the fix (which warms every cache), then forks a
child per variant, two at a time. A child installs its variant's text as
``call`` (compiled in ``executorch.exir.pass_base``'s namespace, as the
backport installs the fix), runs the witnesses in order up to the first
that shows it a failure, then the tests, and sends back what it saw; what
it changed dies with it. The fix and the unfixed ``call`` run the same way.
Progress goes to stderr, a line per variant; the table to stdout.
"""

import json
import os
import sys
import time
import unittest
from concurrent.futures import ThreadPoolExecutor
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from typing import Dict, List, Optional

import torch

# Before any tensor operation: a child forked from a process whose OpenMP
# pool has run would hang in its first parallel region.
torch.set_num_threads(1)
# The witnesses beside this file, however it is started (record_output.py
# runs it with runpy, which does not put its folder on the path).
sys.path.insert(0, str(Path(__file__).resolve().parent))

from executorch.exir import pass_base  # noqa: E402
from exportpass_fix.shared.fix_source import (  # noqa: E402
    fixed_call_text,
    PATCHED_CLASS,
    PATCHED_METHOD,
)
from exportpass_fix.shared.method_code import compiled_method  # noqa: E402
from judge_witnesses import FLOWS, OK  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
VARIANTS = HERE / "judge_variants.json"
TESTS = REPO / "exir" / "tests" / "test_pass_infra.py"
FIX, UNFIXED = "this project's", "unfixed upstream"
TIMEOUT_SECONDS = 300


def variants() -> List[Dict]:
    """The variants as data, each text joined (the fix's read from
    ``exir/pass_base.py``), then upstream's own ``call``, text None."""
    rows = json.loads(VARIANTS.read_text())
    for row in rows:
        row["text"] = (
            fixed_call_text() if row["name"] == FIX else "\n".join(row["text"])
        )
    unfixed = {"name": UNFIXED, "origin": "ExecuTorch", "class": "wrong"}
    return [*rows, {**unfixed, "reason": "upstream's call, as installed", "text": None}]


def test_case() -> type:
    spec = spec_from_file_location("test_pass_infra_added", TESTS)
    assert spec is not None and spec.loader is not None
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    (case,) = [
        v
        for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, unittest.TestCase)
    ]
    return case


def failing_tests(case: type, failfast: bool) -> List[str]:
    """The tests of ``case`` that fail; with ``failfast``, the first only."""
    result = unittest.TestResult()
    result.failfast = failfast
    unittest.defaultTestLoader.loadTestsFromTestCase(case).run(result)
    names = {getattr(t, "test_case", t)._testMethodName for t, _ in result.failures}
    names |= {getattr(t, "test_case", t)._testMethodName for t, _ in result.errors}
    return sorted(names)


def observe(text: Optional[str], case: Optional[type], every_witness: bool) -> Dict:
    """In this process: install ``text`` as ``call``, run the flows (all,
    or up to the first that shows a witness failing) and the tests (all, or
    for a variant a witness shows wrong up to the first that fails)."""
    if text is not None:
        call = compiled_method(pass_base, PATCHED_CLASS, text, "<variant>")
        setattr(pass_base._ExportPassBase, PATCHED_METHOD, call)
    shown: Dict[str, str] = {}
    for flow in FLOWS:
        try:
            shown.update(flow.run())
        except Exception as error:  # the flow's own checks, broken by the variant
            shown.update(
                {name: f"raises {type(error).__name__}" for name in flow.witnesses}
            )
        if set(shown.values()) != {OK} and not every_witness:
            break
    wrong = set(shown.values()) != {OK}
    failing = failing_tests(case, wrong) if case is not None else []
    return {"witnesses": shown, "failing_tests": failing}


def in_child(text: Optional[str], case: Optional[type], every_witness: bool) -> Dict:
    """``observe`` in a forked child; a child that dies or hangs says so."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its own output would interleave, so none
        try:
            os.close(read_end)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            try:
                seen = json.dumps(observe(text, case, every_witness))
            except Exception as error:
                seen = json.dumps({"died": f"{type(error).__name__}"})
            os.write(write_end, seen.encode())
        finally:  # never back into the parent's code, whatever happened
            os._exit(0)
    os.close(write_end)
    chunks, started = [], time.monotonic()
    with os.fdopen(read_end, "rb") as pipe:
        os.set_blocking(pipe.fileno(), False)
        while time.monotonic() - started < TIMEOUT_SECONDS:
            chunk = pipe.read()
            if chunk == b"":
                break
            chunks.append(chunk or b"")
            time.sleep(0.05)
        else:
            os.kill(pid, 9)
    os.waitpid(pid, 0)
    body = b"".join(chunks)
    return json.loads(body) if body else {"died": "no answer (killed or crashed)"}


def verdict(row: Dict) -> str:
    if "died" in row:
        return f"PROBLEM: the variant's process died: {row['died']}"
    killed = bool(row["failing_tests"])
    if row["judged"] != row["class"]:
        return f"PROBLEM: judged {row['judged']}, its data says {row['class']}"
    if row["judged"] == "wrong":
        return "ok: killed" if killed else "PROBLEM: survives the tests"
    return "PROBLEM: rejected without a witness" if killed else "ok: accepted"


def judge(with_tests: bool = True) -> Dict:
    """Every variant judged; ``with_tests`` False: by the witnesses alone."""
    case = test_case() if with_tests else None
    rows = variants()
    fix_row = next(r for r in rows if r["name"] == FIX)
    say("the witnesses under the fix, in this process (warms the caches) ...")
    original = vars(pass_base._ExportPassBase)[PATCHED_METHOD]
    fix_seen = observe(fix_row["text"], case or test_case(), True)["witnesses"]
    setattr(pass_base._ExportPassBase, PATCHED_METHOD, original)
    broken = [name for name, shown in fix_seen.items() if shown != OK]

    def one(row: Dict) -> Dict:
        seen = in_child(row["text"], case, every_witness=row["name"] == FIX)
        row = {k: v for k, v in row.items() if k != "text"}
        row.update(seen)
        failed = [w for w, shown in seen.get("witnesses", {}).items() if shown != OK]
        row["witness"] = failed[0] if failed else None
        row["judged"] = "wrong" if failed else "acceptable"
        row["verdict"] = verdict(row)
        say(f"[{row['name']}] {row['verdict']}")
        return row

    with ThreadPoolExecutor(max_workers=2) as pool:
        judged = list(pool.map(one, rows))
    return {
        "executorch": version("executorch"),
        "torch": torch.__version__,
        "flows": {flow.flow: list(flow.witnesses) for flow in FLOWS},
        "witnesses_failing_the_fix": broken,
        "variants": judged,
    }


def version(package: str) -> str:
    from importlib.metadata import version as of

    return of(package)


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


if __name__ == "__main__":
    if sys.argv[1:] not in ([], ["--witnesses-only"]):
        say("judge_run.py: usage: judge_run.py [--witnesses-only]")
        sys.exit(2)
    started = time.monotonic()
    table = judge(with_tests=not sys.argv[1:])
    print(json.dumps(table, indent=1))
    problems = [r for r in table["variants"] if r["verdict"].startswith("PROBLEM")]
    say(f"{len(problems)} problems, {time.monotonic() - started:.0f} s")
    sys.exit(1 if problems or table["witnesses_failing_the_fix"] else 0)
