"""The kill table: which variants of ``_ExportPassBase.call`` are wrong, and
whether this project's tests in ``exir/tests/test_pass_infra.py`` kill
exactly those.

    python test/upstream/judging/judge_run.py > table.json

One process imports torch, ExecuTorch, the witnesses and the tests once,
runs every witness and test under the fix (which judges the fix and warms
every cache), then forks a child per other variant, three at a time. A child
installs its variant's text as ``call`` (compiled in
``executorch.exir.pass_base``'s namespace, as the backport installs the
fix), runs the witnesses in order up to the first that shows it a failure,
then the tests, and sends back what it saw; what it changed dies with it.
Variants whose texts parse to the same code are judged once. Progress goes
to stderr, a line per variant; the table to stdout.
"""

import ast
import gc

import json
import os
import signal
import sys
import textwrap
import threading
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
from judge_held import HELD_FLOWS  # noqa: E402
from judge_raised import RAISED_FLOWS  # noqa: E402
from judge_shapes import (  # noqa: E402
    counting_shapes,
    programs_made_afresh as shape_programs_afresh,
    SHAPE_FLOWS,
)
from judge_witnesses import FLOWS, OK, programs_made_afresh  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
VARIANTS = HERE / "judge_variants.json"
TESTS = REPO / "exir" / "tests" / "test_pass_infra.py"
FIX, UNFIXED = "this project's", "unfixed upstream"
TIMEOUT_SECONDS = 300
# The held mode's flows last: the variants only they show wrong are few.
ALL_FLOWS = [*FLOWS, *HELD_FLOWS, *SHAPE_FLOWS, *RAISED_FLOWS]
# Children at once: 2 cores, and a third keeps both busy while another
# forks, starts or sends its answer.
WORKERS = 3
# Held while a child is forked and while a line is printed.
FORKING = threading.Lock()


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


# The order a child runs the tests in: a wrong variant stops at its first
# failure, so the quickest come first (as timed here); one not named here
# runs after these, in name order. Fixed, so that a fresh run names the
# same first failure as the record.
TEST_ORDER = (
    "test_placeholder_receives_the_constants_values",
    "test_one_constant_graph_retraces_in_its_placeholders_mode",
    "test_one_pass_instance_retraces_each_graph_in_its_own_mode",
    "test_graph_without_inputs_retraces_fake",
    "test_pass_that_raises_leaves_no_mode_entered",
    "test_delegate_of_lifted_constants_lowers",
)


def failing_tests(case: type, failfast: bool) -> List[str]:
    """The tests of ``case`` that fail; with ``failfast``, the first only."""
    names = unittest.defaultTestLoader.getTestCaseNames(case)
    ordered = [n for n in TEST_ORDER if n in names]
    failing = []
    for name in ordered + sorted(set(names) - set(ordered)):
        result = unittest.TestResult()
        case(name).run(result)
        if result.failures or result.errors:
            failing.append(name)
            if failfast:
                break
    return sorted(failing)


def collect_cia_ops_once() -> None:
    """torch.export collects the CompositeImplicitAutograd ops of every op
    namespace on each run_decompositions (to_edge runs one per method), a
    third of a to_edge here. Once the witnesses and tests are imported and
    have run, no op is registered any more: the set is collected once, here,
    before the children fork, and each run_decompositions reads it."""
    from torch._export import utils
    from torch.export import decomp_utils, exported_program

    ops = frozenset(utils._collect_all_valid_cia_ops())
    for module in (decomp_utils, exported_program):
        if hasattr(module, "_collect_all_valid_cia_ops"):
            module._collect_all_valid_cia_ops = lambda: ops


def observe(
    text: Optional[str],
    case: Optional[type],
    every_witness: bool,
    shapes: Optional[Dict[str, int]] = None,
) -> Dict:
    """In this process: install ``text`` as ``call``, run the flows (all,
    or up to the first that shows a witness failing) and the tests (all, or
    for a variant a witness shows wrong up to the first that fails); into
    ``shapes``, the counts of the graph shapes the flows gave ``call``."""
    if text is not None:
        call = compiled_method(pass_base, PATCHED_CLASS, text, "<variant>")
        setattr(pass_base._ExportPassBase, PATCHED_METHOD, call)
    shown: Dict[str, str] = {}
    with counting_shapes() as counted:
        for flow in ALL_FLOWS:
            try:
                shown.update(flow.run())
            except Exception as error:  # the flow's own checks, broken by it
                shown.update(
                    {name: f"raises {type(error).__name__}" for name in flow.witnesses}
                )
            if set(shown.values()) != {OK} and not every_witness:
                break
    if shapes is not None:
        shapes.update(counted)
    wrong = set(shown.values()) != {OK}
    failing = failing_tests(case, wrong) if case is not None else []
    return {"witnesses": shown, "failing_tests": failing}


def in_child(text: Optional[str], case: Optional[type], every_witness: bool) -> Dict:
    """``observe`` in a forked child; a child that dies or hangs says so."""
    with FORKING:  # no sibling inherits this pipe's write end, nor a held lock
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid != 0:
            os.close(write_end)
    if pid == 0:  # the child: its own output would interleave, so none
        gc.disable()  # short-lived: collecting would only cost time
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
    killer = threading.Timer(TIMEOUT_SECONDS, os.kill, (pid, signal.SIGKILL))
    killer.start()
    try:
        with os.fdopen(read_end, "rb") as pipe:
            body = pipe.read()  # all of it once the child exits, or is killed
    finally:
        killer.cancel()
        killer.join()  # before the pid is reaped and could be reused
    os.waitpid(pid, 0)
    try:
        return json.loads(body)
    except ValueError:  # nothing, or cut off: killed or crashed
        return {"died": "no answer (killed or crashed)"}


def verdict(row: Dict) -> str:
    if "died" in row:
        return f"PROBLEM: the variant's process died: {row['died']}"
    killed = bool(row["failing_tests"])
    if row["judged"] != row["class"]:
        return f"PROBLEM: judged {row['judged']}, its data says {row['class']}"
    if row["judged"] == "wrong":
        return "ok: killed" if killed else "PROBLEM: survives the tests"
    return "PROBLEM: rejected without a witness" if killed else "ok: accepted"


def judged_row(row: Dict, seen: Dict) -> Dict:
    """The row of the table: the variant's data, what it showed, the verdict."""
    row = {k: v for k, v in row.items() if k != "text"}
    row.update(seen)
    failed = [w for w, shown in seen.get("witnesses", {}).items() if shown != OK]
    row["witness"] = failed[0] if failed else None
    row["judged"] = "wrong" if failed else "acceptable"
    row["verdict"] = verdict(row)
    say(f"[{row['name']}] {row['verdict']}")
    return row


def judge(with_tests: bool = True) -> Dict:
    """Every variant judged; ``with_tests`` False: by the witnesses alone."""
    case = test_case() if with_tests else None
    rows = variants()
    fix_row = next(r for r in rows if r["name"] == FIX)
    say("the fix, in this process (warms the caches) ...")
    original = vars(pass_base._ExportPassBase)[PATCHED_METHOD]
    shapes: Dict[str, int] = {}
    fix_seen = observe(fix_row["text"], case or test_case(), True, shapes)
    programs_made_afresh()
    shape_programs_afresh()
    setattr(pass_base._ExportPassBase, PATCHED_METHOD, original)
    broken = [n for n, shown in fix_seen["witnesses"].items() if shown != OK]
    if not with_tests:
        fix_seen["failing_tests"] = []
    collect_cia_ops_once()
    gc.freeze()  # what the children share stays shared
    seen_of_code = {same_code(fix_row["text"]): fix_seen}
    first_of_code = {same_code(r["text"]): r for r in reversed(rows)}

    def one(code: str) -> None:
        row = first_of_code[code]
        seen_of_code[code] = in_child(row["text"], case, every_witness=False)
        say(f"[{row['name']}] judged")

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        list(pool.map(one, [c for c in first_of_code if c not in seen_of_code]))
    judged = [judged_row(row, seen_of_code[same_code(row["text"])]) for row in rows]
    return {
        "executorch": version("executorch"),
        "torch": torch.__version__,
        "flows": {flow.flow: list(flow.witnesses) for flow in ALL_FLOWS},
        "witnesses_failing_the_fix": broken,
        # Calls of call while the flows ran under the fix, and those given
        # each graph shape a fix can miss.
        "shapes_given_call_under_the_fix": shapes,
        "variants": judged,
    }


def same_code(text: Optional[str]) -> str:
    """What two variants share when their texts differ only in layout or
    comments."""
    return "" if text is None else ast.dump(ast.parse(textwrap.dedent(text)))


def version(package: str) -> str:
    from importlib.metadata import version as of

    return of(package)


def say(line: str) -> None:
    with FORKING:  # a fork never copies stderr's lock held
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
