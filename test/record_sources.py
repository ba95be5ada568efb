"""What each record was made from, so that the default ``pytest`` can tell a
record that no longer says what today's code says (docs/tests.md, "Pasted
outputs").

A record carries ``made_from``: the sha256 of each file its output depends on
(the modules of the command that made it, its data files, an input record),
as they were when it ran; ``versions`` carries the ExecuTorch it ran over. It
is stale when one of those files differs today, when its scope names a file
it does not carry, or when it ran over another release than the one below.
A timing record (``bench``) is stale on the same terms, and also when it is
not its benchmark's output run to its end: its times were true of one run,
under that run's load, of the code its digests name.
"""

import shlex
import subprocess
import tempfile
from hashlib import sha256
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Tuple

REPO = Path(__file__).resolve().parent.parent
# The release the records are made over: the one CI runs the docs test on.
RELEASE = "1.5.1"
# What a record's command names as a path of the machine it ran on is kept
# under these names (record_output.py replaces the paths on writing).
PLACEHOLDERS = {
    "--checkout": "ET_CHECKOUT",
    "--tree": "ET_TREE",
}

_FIX = (
    "exir/pass_base.py",
    "exir/shared/fix_source.py",
    "exir/shared/source_spans.py",
    "exir/shared/known_calls.py",
    "exir/shared/method_code.py",
    "exir/shared/repro.py",
    "exir/shared/installed.py",
    "exir/shared/report.py",
)
_BACKPORT = _FIX + ("exir/backport/",)
# What decides a measured value of a column of check on a built-in model:
# the models, how they load, lower and run, what a failure is, the backport.
# Not the processes that carry the values (worker.py, columns.py), check's
# text, nor how a .pt2 or a user's module loads (pt2_file.py, user_code.py):
# releases and matrix run built-in models only.
_MEASURED = _BACKPORT + (
    "exir/diagnosis/models/",
    "exir/diagnosis/loading/__init__.py",
    "exir/diagnosis/loading/model_spec.py",
    "exir/diagnosis/loading/preflight.py",
    "exir/diagnosis/checking/partitioners.py",
    "exir/diagnosis/checking/steps.py",
    "exir/diagnosis/checking/findings.py",
    "exir/diagnosis/checking/constant_subgraph.py",
)
# matrix: the measured values, the processes that carry them, how a failure
# is picked (check.first_failure) and the command; not check's text.
_MATRIX = _MEASURED + (
    "exir/diagnosis/checking/__init__.py",
    "exir/diagnosis/checking/check.py",
    "exir/diagnosis/checking/columns.py",
    "exir/diagnosis/checking/worker.py",
    "exir/diagnosis/cli.py",
    "exir/diagnosis/evidence/matrix.py",
)
_CHECK = _BACKPORT + (
    "exir/diagnosis/checking/",
    "exir/diagnosis/loading/",
    "exir/diagnosis/models/",
    "exir/diagnosis/cli.py",
)
_PATCH = _FIX + (
    "exir/tests/test_pass_infra.py",
    "exir/upstream/making/",
    "exir/upstream/cli.py",
)
# What the kill table's and a proof's outputs depend on: the patch's diffs
# and the runs, never its message (patch_digest hashes the diffs alone;
# neither command prints a message), so not the modules and templates that
# word the PR body or the comment.
_PATCH_CODE = _FIX + (
    "exir/tests/test_pass_infra.py",
    "exir/upstream/making/__init__.py",
    "exir/upstream/making/buck_deps.py",
    "exir/upstream/making/evidence.py",
    "exir/upstream/making/import_merge.py",
    "exir/upstream/making/mail_patch.py",
    "exir/upstream/making/patch.py",
    "exir/upstream/making/trees.py",
    "exir/upstream/cli.py",
)
_PROOF = _PATCH_CODE + ("exir/upstream/proving/",)
_BODY = _PATCH + (
    "exir/upstream/patch_options.py",
    "exir/shared/release_table.py",
    "exir/shared/releases.json",
    "test/upstream/making/show_patch.py",
)
SAVE_DETR = (
    'first, in the repository: python -c "import torch;'
    " from exportpass_fix.diagnosis.models.catalog import build;"
    " m, a = build('detr-sine'); torch.export.save(torch.export.export(m, a),"
    " 'model.pt2')\"; remove model.pt2 after"
)
TREE = (
    "ET_TREE: a checkout of ExecuTorch at the commit its output names: git"
    " clone -q --no-checkout --shared ET_CHECKOUT ET_TREE; in it, git"
    " sparse-checkout set --no-cone /exir/ /requirements-dev.txt /pytest.ini"
    " /.flake8 /.mypy.ini /pyproject.toml; git checkout -q --detach COMMIT"
)
STAND_IN = (
    "ET_TREE: a stand-in for #22310's branch: main's exir/ and"
    " requirements-dev.txt in a git repository, with the 'fallback scan of"
    " placeholders' of test/upstream/judging/judge_variants.json committed on top"
)


class Source(NamedTuple):
    """What a record is made from: the files its output depends on, the
    release it runs over, whether the docs test makes it again (it takes
    seconds) and what to do before its command."""

    files: Tuple[str, ...]
    release: Optional[str] = RELEASE
    live: bool = False
    before: str = ""
    # The ExecuTorch commit its ET_TREE is made from: the docs test makes the
    # record again where EXPORTPASS_FIX_ET_CHECKOUT names a checkout.
    tree: str = ""
    # A timing record: the benchmark that makes it. Its digests name the
    # code that was timed; the load of its run is in its output.
    bench: str = ""
    # A record its command writes itself, in a form of its own, outside
    # docs/records: its command, not record_output.py, makes it again.
    own_form: bool = False


_JUDGE = (
    "judge_held.py",
    "judge_programs.py",
    "judge_raised.py",
    "judge_run.py",
    "judge_shapes.py",
    "judge_variants.json",
    "judge_witnesses.py",
)
SOURCES: Dict[str, Source] = {
    "docs/records/partitioners.json": Source(
        (
            "exir/diagnosis/cli.py",
            "exir/diagnosis/checking/partitioners.py",
            "exir/shared/installed.py",
            "exir/shared/report.py",
        ),
        live=True,
    ),
    "docs/records/check-detr-webgpu.json": Source(_CHECK, before=SAVE_DETR),
    "docs/records/matrix.json": Source(_MATRIX),
    "docs/records/bench_check.json": Source(
        _CHECK + ("test/diagnosis/checking/bench_check.py",),
        bench="test/diagnosis/checking/bench_check.py",
    ),
    # The README's test command, timed: what decides which tests it runs.
    "docs/records/suite_time.json": Source(
        ("pyproject.toml", "test/conftest.py", "test/time_suite.py"),
        bench="test/time_suite.py",
    ),
    "docs/records/bench_export_pass_apply.json": Source(
        _BACKPORT
        + (
            "exir/__init__.py",
            "exportpass_fix.pth",
            "test/backport/bench_export_pass.py",
        ),
        bench="test/backport/bench_export_pass.py",
    ),
    "docs/records/bench_added_tests.json": Source(
        _PATCH_CODE + ("test/upstream/making/bench_added_tests.py",),
        bench="test/upstream/making/bench_added_tests.py",
    ),
    # What judge_run.py reads: not the audit, the report or the tests of it.
    "docs/records/mutants.json": Source(
        _FIX
        + ("exir/tests/test_pass_infra.py",)
        + tuple(f"test/upstream/judging/{name}" for name in _JUDGE)
    ),
    "docs/records/prove-main.json": Source(_PROOF),
    "docs/records/prove-release-1.4.json": Source(_PROOF, release="1.4.1"),
    "docs/records/upstream-body-main.json": Source(
        _BODY + ("docs/records/prove-main.json",), before=TREE, tree="cff6f4dd32e6"
    ),
    "docs/records/upstream-tests-only.json": Source(_BODY, before=STAND_IN),
    # check against the survey, on real models: check's files and the script,
    # not the survey's record (the survey's own record names its files).
    "test/survey/check_survey.json": Source(
        _CHECK + ("test/survey/check_survey.py", "test/survey/check_verdicts.py"),
        own_form=True,
        before="in an environment of the survey's: pip install torch==2.13.0"
        ' torchvision==0.28.0 timm==1.0.31 executorch==1.5.1 -e ".[test]"'
        " (torchvision's wheels need torch's CUDA build: Python 3.10 here)",
    ),
    # The release table: a row per release, so no one release.
    "exir/shared/releases.json": Source(
        _MEASURED
        + ("exir/diagnosis/evidence/releases.py", "exir/shared/release_table.py"),
        release=None,
        before="where a pip constraints file caps torch, prefix PIP_CONSTRAINT=/dev/null",
    ),
}


def tree_of(checkout: str, commit: str, root: Path) -> Path:
    """A checkout at ``root`` of ``commit`` of ``checkout`` (a work tree or a
    mirror), holding only what ``patch`` reads: exir/ and the files that pin
    and configure its tests (the mirror lacks some large blobs elsewhere)."""
    run = {"check": True, "capture_output": True}
    subprocess.run(
        ["git", "clone", "-q", "--no-checkout", "--shared", checkout, str(root)], **run
    )
    subprocess.run(
        ["git", "sparse-checkout", "set", "--no-cone", "/exir/"]
        + ["/requirements-dev.txt", "/pytest.ini", "/.flake8", "/.mypy.ini"]
        + ["/pyproject.toml"],
        cwd=root,
        **run,
    )
    subprocess.run(["git", "checkout", "-q", "--detach", commit], cwd=root, **run)
    return root


def files_of(scope: Tuple[str, ...], root: Path = REPO) -> List[str]:
    """The files a scope names that exist, a folder standing for every file
    in it. A file a record carries that no longer exists, or one that a
    scoped folder gains, makes the record stale."""
    found = []
    for name in scope:
        path = root / name
        if path.is_dir():
            found += [
                str(p.relative_to(root))
                for p in sorted(path.rglob("*"))
                if p.is_file() and "__pycache__" not in p.parts
            ]
        elif path.is_file():
            found.append(name)
    return sorted(set(found))


def digests(scope: Tuple[str, ...], root: Path = REPO) -> Dict[str, str]:
    """File -> the first 16 hex digits of its sha256 ("missing" if absent)."""
    return {
        name: (
            sha256((root / name).read_bytes()).hexdigest()[:16]
            if (root / name).is_file()
            else "missing"
        )
        for name in files_of(scope, root)
    }


def in_scope(name: str, scope: Tuple[str, ...]) -> bool:
    """Whether a scope names the file, itself or by a folder: a record's
    digests of files its scope no longer names say nothing of it."""
    return any(name == s or (s.endswith("/") and name.startswith(s)) for s in scope)


def made_from(path: str, root: Path = REPO) -> Dict[str, object]:
    return {"files": digests(SOURCES[path].files, root)}


def made_from_its_commit(path: str, root: Path = REPO) -> Dict[str, object]:
    """``made_from`` for a record written without one: the digests of its
    files as they stand in the commit that last wrote the record, which is
    what the record was made from if it was made on that commit's code."""
    commit = subprocess.run(
        ["git", "log", "-1", "--format=%H", "--", path],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not commit:
        raise ValueError(f"{path}: no commit wrote it")
    with tempfile.TemporaryDirectory() as tree:
        archive = subprocess.run(
            ["git", "archive", commit], cwd=root, capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", tree], input=archive.stdout, check=True)
        return made_from(path, Path(tree))


def remake(path: str, command: str) -> str:
    """The command that makes the record at ``path`` again."""
    source = SOURCES[path]
    line = (
        command
        if source.own_form
        else f"python test/record_output.py {path} -- {command}"
    )
    if source.release:
        line += f" (over ExecuTorch {source.release})"
    return f"{line}; {source.before}" if source.before else line


def stale(path: str, record: dict, root: Path = REPO) -> Optional[str]:
    """Why the record at ``path`` is not today's, with the command that makes
    it again; None when it is."""
    source = SOURCES.get(path)
    if source is None:
        return f"{path}: test/record_sources.py does not say what it is made from"
    command = record.get("command") or record.get("generated_by", "?")
    if source.bench and (
        shlex.split(command)[:2] != ["python", source.bench]
        or record.get("exit_status") != 0
    ):
        return (
            f"{path} is not the output of python {source.bench} run to its end;"
            f" make it again: {remake(path, command)}"
        )
    made = {
        name: digest
        for name, digest in ((record.get("made_from") or {}).get("files") or {}).items()
        if in_scope(name, source.files)
    }
    now = digests(source.files, root)
    changed = sorted(name for name in {*now, *made} if now.get(name) != made.get(name))
    ran_over = (record.get("versions") or {}).get("executorch")
    if changed:
        more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        why = f"{', '.join(changed[:3])}{more} changed since it was made"
    elif source.release and ran_over != source.release:
        why = f"made over ExecuTorch {ran_over}, not {source.release}"
    else:
        return None
    return f"{path} is stale: {why}; make it again: {remake(path, command)}"
