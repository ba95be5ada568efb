"""``python -m exportpass_fix mutants``: which tests kill which variant of
``_ExportPassBase.call`` (``variants``).

Each variant is spliced into ``exir/pass_base.py`` of a linked tree of the
installed ExecuTorch (as ``prove`` installs the fix), next to upstream's
``test_pass_infra.py`` with this project's class appended; one pytest
process per variant then runs that whole file and, from this project's
checkout, the edge-case and property suites. Two variants run at a time.
"""

import json
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Dict, List, Optional

from ..shared.fix_source import (
    PACKAGE_DIR,
    PASS_BASE,
    PATCHED_CLASS,
    PATCHED_METHOD,
    TEST_PASS_INFRA,
)
from ..shared.installed import installed_version
from ..shared.report import text_table
from ..shared.source_spans import method_span
from .patch import splice_test
from .trees import executorch_dir, linked_tree, run_pytest
from .variants import Variant, VARIANTS

PROJECT_SUITES = ["backport/test_edge_cases.py", "backport/test_properties.py"]


def project_suites() -> Optional[List[Path]]:
    """This project's suites, where the package runs from its checkout."""
    tests = PACKAGE_DIR.parent / "test"
    paths = [tests / suite for suite in PROJECT_SUITES]
    return paths if all(path.is_file() for path in paths) else None


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


def run_variant(
    variant: Variant,
    work: Path,
    suites: Optional[List[Path]],
    texts: Dict[str, str],
) -> Dict[str, object]:
    tree = linked_tree(
        work / variant.name.replace(" ", "-").replace("'", ""),
        {**texts, PASS_BASE: with_call(texts[PASS_BASE], variant.text)},
    )
    run = run_pytest(tree, [TEST_PASS_INFRA, *map(str, suites or [])])
    upstream = sorted(
        t.rsplit("::", 1)[-1] for t in run.failed if "test_pass_infra" in t
    )
    project = sorted(t for t in run.failed if "test_pass_infra" not in t)
    ran_upstream = any("test_pass_infra" in t for t in run.passed | run.failed)
    return {
        "name": variant.name,
        "correct": variant.correct,
        "reason": variant.reason,
        "killed_by_upstream_class": upstream if ran_upstream else None,
        "killed_by_project": project if suites else None,
        "passed": len(run.passed),
    }


def verdict(row: Dict[str, object]) -> str:
    upstream, project = row["killed_by_upstream_class"], row["killed_by_project"]
    if upstream is None:
        return "PROBLEM: test_pass_infra.py did not run"
    if row["correct"]:
        return "ok: accepted" if not upstream and not project else "PROBLEM: rejected"
    return "ok: killed" if upstream else "PROBLEM: survives test_pass_infra.py"


def mutants(say: Callable[[str], None]) -> Dict[str, object]:
    suites = project_suites()
    texts = installed_texts()
    with tempfile.TemporaryDirectory(prefix="exportpass-mutants-") as work:

        def one(variant: Variant) -> Dict[str, object]:
            row = run_variant(variant, Path(work), suites, texts)
            say(f"[{variant.name}] {verdict(row)}")
            return row

        with ThreadPoolExecutor(max_workers=2) as pool:
            rows = list(pool.map(one, VARIANTS))
    return {
        "executorch": installed_version(),
        "project_suites": [str(s) for s in suites] if suites else None,
        "variants": rows,
    }


def _names(tests: object) -> str:
    """How many tests, and the first by name (``--json`` has them all)."""
    if tests is None:
        return "(not run)"
    names = [str(t).rsplit("::", 1)[-1] for t in tests]  # type: ignore[attr-defined]
    if not names:
        return "-"
    more = f", +{len(names) - 1}" if len(names) > 1 else ""
    return f"{len(names)}: {names[0]}{more}"


def render(table: Dict[str, object]) -> str:
    rows = table["variants"]
    assert isinstance(rows, list)
    wrong = [r for r in rows if not r["correct"]]
    right = [r for r in rows if r["correct"]]
    header = [
        "variant",
        "right",
        "killed by test_pass_infra.py",
        "killed by the project's suites",
        "verdict",
    ]  # noqa: B950
    lines = [
        f"ExecuTorch {table['executorch']}",
        text_table(
            header,
            [
                [
                    r["name"],
                    "yes" if r["correct"] else "no",
                    _names(r["killed_by_upstream_class"]),
                    _names(r["killed_by_project"]),
                    verdict(r),
                ]
                for r in rows
            ],
        ),
        f"wrong variants killed by test_pass_infra.py:"
        f" {sum(bool(r['killed_by_upstream_class']) for r in wrong)} of {len(wrong)};"
        f" right variants passing everything:"
        f" {sum(verdict(r) == 'ok: accepted' for r in right)} of {len(right)}",
    ]
    return "\n".join(lines)


def run_mutants(as_json: bool) -> int:
    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    table = mutants(say)
    rows = table["variants"]
    assert isinstance(rows, list)
    print(json.dumps(table) if as_json else render(table))
    return 0 if all(verdict(r).startswith("ok") for r in rows) else 1
