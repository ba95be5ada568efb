"""What users and other tools rely on stays put while the house is arranged:
the public names, the commands under both spellings, the layout's import
rules, a regular (non-editable) install, a dependency on ExecuTorch that
never moves the user's release, and code that runs on the oldest Python
``requires-python`` admits (3.10)."""

import ast
import importlib.metadata
import importlib.util
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import exportpass_fix

import pytest
from conftest import REPO
from exportpass_fix.backport import replace_call
from packaging.requirements import Requirement

pytestmark = pytest.mark.once

PUBLIC = ["apply", "revert", "applied", "is_fixed", "BackportRefused"]
# The diagnosis's commands, then the upstream job's, then the survey's.
COMMANDS = [
    "check",
    "matrix",
    "releases",
    "partitioners",
    "patch",
    "prove",
    "cherry-pick",
    "survey",
]
# What each folder of the package may import, besides itself: a job's
# top (its commands) may import its sub-jobs; a sub-job only what is below.
MAY_IMPORT = {
    "shared": set(),
    "backport": {"shared"},
    # The cherry-pick's reason cites the survey's counts, counted there.
    "upstream": {"shared", "upstream/making", "upstream/proving", "survey"},
    "upstream/making": {"shared"},
    "upstream/proving": {"shared", "upstream/making"},
    "diagnosis": {
        "shared",
        "backport",
        "diagnosis/models",
        "diagnosis/checking",
        "diagnosis/evidence",
        "diagnosis/loading",
    },
    "diagnosis/models": {"shared"},
    "diagnosis/loading": {"shared", "diagnosis/models"},
    "diagnosis/checking": {
        "shared",
        "backport",
        "diagnosis/models",
        "diagnosis/loading",
    },
    "diagnosis/evidence": {
        "shared",
        "backport",
        "diagnosis/models",
        "diagnosis/checking",
        "diagnosis/loading",
    },
    # The partitioners' list; its unpatched lowerings import nothing of ours.
    "survey": {"shared", "diagnosis/checking"},
}
JOBS = {"shared", "backport", "upstream", "diagnosis", "survey"}
MAX_MODULES = 8  # per folder, besides __init__ and __main__
MAX_LINES = 210
# The package's own code, the upstream files aside: what users install.
# 7500 for the first three jobs; the survey, a fourth, brought about 830,
# and the cherry-pick's citing its counts about 50.
MAX_PACKAGE_LINES = 8050


# What Python 3.11 and 3.12 added that this code might reach for: on 3.10
# each is an ImportError, an AttributeError or a TypeError (a keyword
# argument; Popen's process_group crashed check, matrix and releases).
NEWER_MODULES = {"tomllib", "wsgiref.types"}
NEWER_NAMES = {
    "ExceptionGroup",
    "BaseExceptionGroup",
    "asyncio.Runner",
    "asyncio.TaskGroup",
    "asyncio.timeout",
    "contextlib.chdir",
    "datetime.UTC",
    "enum.StrEnum",
    "hashlib.file_digest",
    "itertools.batched",
    "logging.getLevelNamesMapping",
    "operator.call",
    "re.NOFLAG",
    "sys.exception",
    "typing.LiteralString",
    "typing.Never",
    "typing.NotRequired",
    "typing.Required",
    "typing.Self",
    "typing.assert_never",
    "typing.override",
    "typing.reveal_type",
}
NEWER_KEYWORDS = {"process_group", "onexc", "delete_on_close", "case_sensitive"}
NEWER_METHODS = {"add_note"}


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for a name or an attribute chain, else ''."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def _newer_than_310(tree: ast.AST) -> list:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name in NEWER_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module:
            named = [f"{node.module}.{a.name}" for a in node.names]
            found += [
                n for n in [node.module, *named] if n in NEWER_MODULES | NEWER_NAMES
            ]
        elif (
            isinstance(node, (ast.Name, ast.Attribute)) and _dotted(node) in NEWER_NAMES
        ):
            found.append(_dotted(node))
        elif isinstance(node, ast.Attribute) and node.attr in NEWER_METHODS:
            found.append(f".{node.attr}")
        elif isinstance(node, ast.keyword) and node.arg in NEWER_KEYWORDS:
            found.append(f"{node.arg}=")
    return found


def test_the_package_and_its_tests_use_nothing_newer_than_python_3_10() -> None:
    found = {}
    for path in sorted(
        [*(REPO / "exir").rglob("*.py"), *(REPO / "test").rglob("*.py")]
    ):
        # feature_version: a syntax error for what 3.10 cannot parse (except*).
        tree = ast.parse(path.read_text(), str(path), feature_version=(3, 10))
        if _newer_than_310(tree):
            found[str(path.relative_to(REPO))] = _newer_than_310(tree)

    assert found == {}
    planted = "import tomllib\nfrom typing import Self\nPopen(process_group=0)\n"
    assert _newer_than_310(ast.parse(planted)) == [
        "tomllib",
        "typing.Self",
        "process_group=",
    ]


def test_public_names_are_the_backports() -> None:
    for name in PUBLIC:
        assert getattr(exportpass_fix, name) is getattr(replace_call, name)


def test_public_names_are_listed_and_explained() -> None:
    listed = [name for name in dir(exportpass_fix) if not name.startswith("_")]

    assert set(PUBLIC) <= set(listed)
    assert all(f"``{name}" in (exportpass_fix.__doc__ or "") for name in PUBLIC)


def _commands(help_text: str) -> list:
    """The commands ``--help`` lists under its jobs, in their order."""
    listing = help_text.split("positional arguments:")[0]
    return re.findall(r"^  ([a-z][a-z-]*)  ", listing, re.M)


def _run(*command: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, **env}
    )


def test_console_script_and_module_offer_the_same_commands() -> None:
    script = Path(sys.executable).with_name("exportpass-fix")
    by_script = _run(str(script), "--help")
    by_module = _run(sys.executable, "-m", "exportpass_fix", "--help")

    assert by_script.returncode == by_module.returncode == 0
    assert _commands(by_script.stdout) == _commands(by_module.stdout) == COMMANDS
    version = importlib.metadata.version("executorch-exportpass-fix")
    assert _run(str(script), "--version").stdout == f"exportpass-fix {version}\n"
    assert _run(sys.executable, "-m", "exportpass_fix", "--version").stdout == (
        f"python -m exportpass_fix {version}\n"
    )


def _folder_of(module: str) -> str:
    """The folder of MAY_IMPORT that holds ``module`` (``a.b.c``), deepest first."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        folder = "/".join(parts[:end])
        if folder in MAY_IMPORT:
            return folder
    return module


def _relative_imports(path: Path) -> set:
    """The folders ``path`` imports from, itself left out."""
    here = path.parent.relative_to(REPO / "exir").parts
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(here[: len(here) - (node.level - 1)])
            target = ".".join(base + ([node.module] if node.module else []))
            found.add(_folder_of(target))
    return found - {"/".join(here)}


@pytest.mark.parametrize("folder", sorted(MAY_IMPORT))
def test_a_folder_imports_only_what_it_may_and_stays_small(folder: str) -> None:
    where = REPO / "exir" / folder
    doc = ast.get_docstring(ast.parse((where / "__init__.py").read_text()))
    assert doc is not None
    assert ("May import" in doc) or (folder == "shared" and "Imports nothing" in doc)
    modules = [p for p in where.glob("*.py") if p.name not in ("__init__.py",)]
    assert len(modules) <= MAX_MODULES, modules
    for path in modules:
        assert _relative_imports(path) <= MAY_IMPORT[folder], path
        assert len(path.read_text().splitlines()) <= MAX_LINES, path


def test_the_package_is_at_most_8050_lines_of_python() -> None:
    # exir/pass_base.py and exir/tests/ are upstream's files, not the tools.
    tools = [
        p
        for p in (REPO / "exir").rglob("*.py")
        if "tests" not in p.relative_to(REPO / "exir").parts
        and p != REPO / "exir" / "pass_base.py"
    ]
    lines = sum(len(p.read_text().splitlines()) for p in tools)
    assert lines <= MAX_PACKAGE_LINES, lines


def test_every_folder_of_the_package_has_its_rule() -> None:
    folders = {
        str(p.parent.relative_to(REPO / "exir"))
        for p in (REPO / "exir").rglob("__init__.py")
        if "tests" not in p.parts
    }
    assert folders - {"."} == set(MAY_IMPORT)


def test_the_top_level_is_the_upstream_files_and_the_job_folders() -> None:
    entries = {p.name for p in (REPO / "exir").iterdir() if p.name != "__pycache__"}
    assert entries == {
        "__init__.py",
        "__main__.py",
        "pass_base.py",
        "tests",
        *JOBS,
    }


def test_the_executorch_requirement_admits_1_0_0_and_every_newer_release() -> None:
    requirements = [
        Requirement(text)
        for text in importlib.metadata.requires("executorch-exportpass-fix") or []
    ]
    (executorch,) = [r for r in requirements if r.name == "executorch"]

    for version in ("1.0.0", "1.3.1", "1.4.1", "1.5.1", "1.6.0", "2.0.0", "10.0"):
        assert executorch.specifier.contains(version), version
    assert not executorch.specifier.contains("0.7.0")


@pytest.fixture(scope="module")
def regular_install(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This project built as a wheel and installed into a folder of its own."""
    work = tmp_path_factory.mktemp("regular")
    built = _run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "-q",
        "-w",
        str(work),
        str(REPO),
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = work.glob("executorch_exportpass_fix-*.whl")
    target = work / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)
    return target


def test_a_regular_install_carries_every_module_and_data_file(
    regular_install: Path,
) -> None:
    package = regular_install / "exportpass_fix"
    for source in (REPO / "exir").rglob("*"):
        if source.is_file() and "__pycache__" not in source.parts:
            assert (package / source.relative_to(REPO / "exir")).is_file(), source
    assert (regular_install / "exportpass_fix.pth").read_text() == (
        (REPO / "exportpass_fix.pth").read_text()
    )


def test_a_regular_install_runs_the_commands_and_the_backport(
    regular_install: Path, tmp_path: Path
) -> None:
    env = {"PYTHONPATH": str(regular_install)}
    where = _run(
        sys.executable,
        "-c",
        "import exportpass_fix; print(exportpass_fix.__file__)",
        **env,
    )
    assert where.stdout.startswith(str(regular_install)), where.stdout + where.stderr
    applied = _run(
        sys.executable,
        "-c",
        "import exportpass_fix; print(exportpass_fix.apply(), exportpass_fix.is_fixed())",
        **env,
    )
    assert applied.stdout.strip().endswith("applied True"), applied.stderr[-2000:]
    patch = _run(
        sys.executable,
        "-m",
        "exportpass_fix",
        "patch",
        "-o",
        str(tmp_path),
        "--author",
        "A Person <a.person@example.org>",
        "--closed-unmerged",
        "22310",
        "22891",
        **env,
    )
    assert patch.returncode == 0, patch.stderr
    assert Path(patch.stdout.strip()).read_text().startswith("From ")
    # The .pth hook, as site-packages would run it; -S keeps this
    # environment's own (editable) install of the project out.
    site_packages = Path(importlib.util.find_spec("torch").origin).parents[1]
    hooked = _run(
        sys.executable,
        "-S",
        "-c",
        f"import site, sys; sys.path.append({str(site_packages)!r});"
        f" site.addsitedir({str(regular_install)!r});"
        " from executorch.exir import pass_base;"
        " print(pass_base._ExportPassBase.call.__code__.co_filename)",
        EXPORTPASS_FIX="1",
    )
    # On 1.0.x the fix is made to 1.0.x's own call, compiled under a name
    # that says so; on later releases it is the installed pass_base.py's.
    version = exportpass_fix.installed_version()
    expected = (
        f"<the #22309 fix in executorch {version}'s call>"
        if version.startswith("1.0.")
        else str(regular_install / "exportpass_fix/pass_base.py")
    )
    assert hooked.stdout.strip() == expected
    cherry = _run(
        sys.executable,
        "-m",
        "exportpass_fix",
        "cherry-pick",
        "--onto",
        "release/1.5",
        **env,
    )
    assert "@pytorchbot cherry-pick --onto release/1.5" in cherry.stdout, cherry.stderr


# A path of the machine a file was written on, and this project's own issue
# numbers (one to three digits, where ExecuTorch's have five), which a reader
# of an ExecuTorch-facing project would take for ExecuTorch's own.
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:work|home|root|Users)/|/tmp/[\w.-]+/")
OWN_ISSUE = re.compile(r"(?<![\w(/&-])#\d{1,3}(?![\w-])|\b[Ii]ssues? \d{1,3}\b")
# Files whose tests hold such strings as their inputs.
FIXTURES = {
    "test/test_docs.py",
    "test/test_public_api.py",
    "test/survey/test_survey_record.py",
}


def test_no_tracked_file_names_a_machine_path_or_an_own_issue_number() -> None:
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    found = []
    for name in sorted(set(tracked) - FIXTURES):
        path = REPO / name
        if not path.is_file():  # deleted in the working tree, not yet committed
            continue
        text = path.read_text(errors="replace")
        for pattern in (MACHINE_PATH, OWN_ISSUE):
            found += [f"{name}: {m.group()}" for m in pattern.finditer(text)]
    assert not found, found
