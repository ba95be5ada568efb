"""``python -m exportpass_fix mutants``: which variants of
``_ExportPassBase.call`` (``variants``) are wrong, and which tests kill them.

A variant is wrong only with a witness: a graph of ``witnesses`` on which
this project's fix shows ``one mode`` and the variant shows a failure. The
witnesses run under every variant, and under the unfixed ``call``, in two
processes of half the variants each (``witness_run``). Then each variant is spliced into
``exir/pass_base.py`` of a linked tree of the installed ExecuTorch (as
``prove`` installs the fix), next to upstream's ``test_pass_infra.py`` with
this project's tests appended, and one pytest process per variant runs that
whole file, two variants at a time, and one more runs it on the unfixed
``call``. Every wrong variant (the unfixed ``call`` too) must fail it and
every other must pass it. (This project's own suites pin its own choices;
they are not asked to judge a variant.)
"""

import json
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Dict, Optional

from ...shared.fix_source import (
    PASS_BASE,
    PATCHED_CLASS,
    PATCHED_METHOD,
    TEST_PASS_INFRA,
)
from ...shared.installed import environ_without_hook, installed_version
from ...shared.source_spans import method_span
from ..making.patch import splice_test
from ..making.trees import executorch_dir, linked_tree, run_pytest
from .variants import Variant, VARIANTS
from .witness_run import UNFIXED

OURS = VARIANTS[0].name
OK = "one mode"  # what witnesses.OK says; that module imports torch


def with_call(pass_base: str, call_text: str) -> str:
    span = method_span(pass_base, PATCHED_CLASS, PATCHED_METHOD)
    assert span is not None, "the installed pass_base.py has no _ExportPassBase.call"
    return span.replaced_by(call_text)


def installed_texts() -> Dict[str, str]:
    """The installed ``pass_base.py``, and ``test_pass_infra.py`` with this
    project's tests: what every variant's tree starts from."""
    package = executorch_dir()
    test = (package / TEST_PASS_INFRA).read_text()
    return {
        PASS_BASE: (package / PASS_BASE).read_text(),
        TEST_PASS_INFRA: splice_test(test, TEST_PASS_INFRA),
    }


def observe_witnesses() -> Dict[str, Dict[str, str]]:
    """What each witness shows under each variant and unfixed: half of the
    variants in each of two processes, and unfixed in both."""
    texts = {variant.name: variant.text for variant in VARIANTS}
    names = list(texts)
    halves = [names[: len(names) // 2], names[len(names) // 2 :]]
    with ThreadPoolExecutor(max_workers=2) as pool:
        first, second = pool.map(
            lambda half: _observe({name: texts[name] for name in half}), halves
        )
    # The record is compared run to run: what differs between the two
    # processes would differ between runs.
    if first[UNFIXED] != second[UNFIXED]:
        raise RuntimeError("the witnesses showed two things unfixed, one per process")
    return {**first, **second}


def _observe(texts: Dict[str, str]) -> Dict[str, Dict[str, str]]:
    done = subprocess.run(
        [sys.executable, "-m", f"{__package__}.witness_run"],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        env=environ_without_hook(),
    )
    if done.returncode != 0:
        raise RuntimeError(f"the witnesses did not run: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def witness_of(name: str, seen: Dict[str, Dict[str, str]]) -> Optional[Dict]:
    """The first witness that shows ``name`` failing where the fix is ok."""
    for witness, fix in seen[OURS].items():
        if fix == OK and seen[name][witness] != OK:
            return {
                "name": witness,
                "variant": seen[name][witness],
                "unfixed": seen[UNFIXED][witness],
                "fix": fix,
            }
    return None


def verdict(row: Dict[str, object]) -> str:
    upstream = row["killed_by_upstream_class"]
    if upstream is None:
        return "PROBLEM: test_pass_infra.py did not run"
    if row["witness"] is not None:
        return "ok: killed" if upstream else "PROBLEM: survives test_pass_infra.py"
    return "PROBLEM: rejected without a witness" if upstream else "ok: accepted"


def run_variant(
    index: int, variant: Variant, work: Path, texts: Dict[str, str]
) -> Dict[str, object]:
    # Named by index: a variant's name may hold any character. No text: the
    # installed call, unfixed.
    pass_base = texts[PASS_BASE]
    if variant.text:
        pass_base = with_call(pass_base, variant.text)
    tree = linked_tree(work / f"variant-{index:02d}", {**texts, PASS_BASE: pass_base})
    run = run_pytest(tree, [TEST_PASS_INFRA])
    ran = bool(run.passed | run.failed)
    return {
        "killed_by_upstream_class": (
            sorted(t.rsplit("::", 1)[-1] for t in run.failed) if ran else None
        ),
        "passed": len(run.passed),
    }


def mutants(say: Callable[[str], None]) -> Dict[str, object]:
    texts = installed_texts()
    say("the witnesses under every variant, in two processes ...")
    seen = observe_witnesses()
    broken = [w for w, shown in seen[OURS].items() if shown != OK]
    with tempfile.TemporaryDirectory(prefix="exportpass-mutants-") as work:

        def one(indexed: tuple) -> Dict[str, object]:
            index, variant = indexed
            row: Dict[str, object] = {
                "name": variant.name,
                "reason": variant.reason,
                "origin": variant.origin,
                "witness": witness_of(variant.name, seen),
            }
            row["wrong"] = row["witness"] is not None
            row.update(run_variant(index, variant, Path(work), texts))
            row["verdict"] = verdict(row)
            say(f"[{variant.name}] {row['verdict']}")
            return row

        with ThreadPoolExecutor(max_workers=2) as pool:
            unfixed = Variant(UNFIXED, "upstream's call, as installed", "")
            rows = list(pool.map(one, enumerate([*VARIANTS, unfixed])))
    return {
        "executorch": installed_version(),
        "witnesses_failing_the_fix": broken,
        "witnesses": seen,
        "variants": rows,
    }
