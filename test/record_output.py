"""Record a command's output for README.md and docs/ (docs/tests.md, "Pasted
outputs"): runs the command, and writes its stdout, exit status, the date,
the versions it ran on and what it was made from (``made_from``: the digest
of each file test/record_sources.py names for it) as JSON, which the docs
test compares with the block pasted under
``<!-- output of: docs/records/NAME.json -->`` and with today's files.

    python test/record_output.py docs/records/NAME.json -- exportpass-fix ARGS...
    python test/record_output.py exir/shared/releases.json -- exportpass-fix releases --json
    python test/record_output.py --update
    python test/record_output.py --stamp docs/records/NAME.json...

The release table is the command's JSON with ``made_from`` added. A path of
this machine that the command names (``--checkout``, ``--tree``) is kept as
a placeholder (``ET_CHECKOUT``, ``ET_TREE``), in the command and the stdout.
``--update`` rewrites every marked block of README.md and docs/ from its
source (a record's stdout, or a fast command run now), keeping its fences.
``--stamp`` gives a record written without ``made_from`` the digests of its
files in the commit that wrote it.

Progress (the command's stderr) passes through; the record is written even
when the command exits non-zero (its exit status is part of the record),
but not when a file it is made from changed while it ran.
"""

import datetime
import json
import platform
import re
import shlex
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Dict, List

import record_sources

REPO = Path(__file__).resolve().parent.parent
RECORD = re.compile(r"^docs/records/[\w.-]+\.json$")
KEYS = ("command", "date", "versions", "exit_status", "stdout", "made_from")
TABLE = "exir/shared/releases.json"
# A path of the machine a record was made on (a home, a temporary tree, a
# mirror's folder), which no record may hold.
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:tmp|work|home|root|Users|private|var|mnt)/")
# Runs a command as typed (``exportpass-fix`` as its console script does).
# A live docs command must import no ExecuTorch (seconds, and the wheel's
# own output): with "live", importing executorch fails.
LAUNCH = """import runpy, sys
live, how, what, *args = sys.argv[1:]
if live == "live":
    sys.modules["executorch"] = None
sys.argv = [what, *args]
if how == "console":
    from exportpass_fix.__main__ import main
    sys.exit(main())
elif how == "-m":
    runpy.run_module(what, run_name="__main__", alter_sys=True)
else:
    runpy.run_path(what, run_name="__main__")
"""


class Refused(Exception):
    """A command or record this tool cannot take, with a one-line reason."""


def argv_of(command: str, live: bool = False) -> List[str]:
    """The argv that runs ``command`` as a user types it, with this Python."""
    words = shlex.split(command)
    if words[:1] == ["exportpass-fix"]:
        how = ["console", "exportpass-fix", *words[1:]]
    elif words[:2] in (["python", "-m"], ["python3", "-m"]) and len(words) > 2:
        how = words[1:]
    elif words[:1] in (["python"], ["python3"]) and words[1:2] not in ([], ["-c"]):
        how = ["file", *words[1:]]
    else:
        raise Refused(
            f"{command!r}: a command is exportpass-fix ..., python -m MODULE ..."
            " or python FILE ..."
        )
    return [sys.executable, "-c", LAUNCH, "live" if live else "recorded", *how]


def run(command: str, live: bool = False) -> "subprocess.CompletedProcess[str]":
    """Runs ``command`` in the repository. ``live`` (the docs test's run):
    importing executorch fails, so a command meant to be fast cannot pull it
    in unseen, and stderr is kept to say why a run failed; otherwise stderr
    (progress) passes through."""
    stderr = subprocess.PIPE if live else None
    return subprocess.run(
        argv_of(command, live),
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def _this_project() -> str:
    """Installed, or run from this tree through PYTHONPATH (as on the
    shared 1.0.0 environment): then pyproject.toml's version, said so."""
    installed = _version("executorch-exportpass-fix")
    if installed != "not installed":
        return installed
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r'^version = "([^"]+)"', pyproject, re.M)
    return f"{found.group(1) if found else '?'} (not installed: this tree)"


def versions() -> Dict[str, str]:
    return {  # as installed: what `pip list` shows
        "exportpass_fix": _this_project(),
        "executorch": _version("executorch"),
        "torch": _version("torch"),
        "python": platform.python_version(),
    }


def load(path: str, root: Path = REPO) -> dict:
    """The record at ``path`` (relative to ``root``), checked whole."""
    file = root / path
    if not file.is_file():
        raise Refused(f"no such record: {path}")
    try:
        record = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise Refused(f"{path}: not JSON: {error}") from None
    if not isinstance(record, dict) or sorted(record) != sorted(KEYS):
        raise Refused(f"{path}: not a record: its keys must be {', '.join(KEYS)}")
    wrong = [
        key
        for key, right in (
            ("command", isinstance(record["command"], str)),
            ("date", re.fullmatch(r"\d{4}-\d\d-\d\d", str(record["date"]))),
            ("versions", sorted(record["versions"] or ()) == sorted(versions())),
            ("exit_status", isinstance(record["exit_status"], int)),
            ("stdout", isinstance(record["stdout"], str)),
            ("made_from", _is_made_from(record["made_from"])),
        )
        if not right
    ]
    if wrong:
        raise Refused(f"{path}: not a record: a wrong {', '.join(wrong)}")
    argv_of(record["command"])
    machine = MACHINE_PATH.search(record["command"] + record["stdout"])
    if machine:
        raise Refused(
            f"{path}: holds a path of the machine it was made on: {machine.group()}..."
        )
    return record


def _is_made_from(made: object) -> bool:
    files = made.get("files") if isinstance(made, dict) else None
    return bool(files) and all(isinstance(v, str) for v in files.values())


def normalised(args: List[str]) -> Dict[str, str]:
    """Each path of this machine that ``args`` name -> its placeholder."""
    return {
        value: record_sources.PLACEHOLDERS[flag]
        for flag, value in zip(args, args[1:])
        if flag in record_sources.PLACEHOLDERS
    }


def _placed(text: str, paths: Dict[str, str]) -> str:
    for path, name in sorted(paths.items(), key=lambda item: -len(item[0])):
        text = text.replace(path.rstrip("/"), name)
    return text


def stdout_of(source: str, root: Path = REPO) -> str:
    """What a marker's source gives, without its last newline: a record's
    stdout, or a fast command's, run now (docs/tests.md, "Pasted outputs")."""
    if RECORD.match(source):
        stdout = load(source, root)["stdout"]
    elif source.split()[0].endswith(".json"):
        raise Refused(f"{source}: a record is docs/records/NAME.json")
    else:
        done = run(source, live=True)
        if done.returncode != 0:
            why = (done.stderr.strip().splitlines() or ["no stderr"])[-1]
            if "import of executorch halted" in why:
                why = "it imports executorch: record it (docs/records/NAME.json)"
            raise Refused(f"{source!r} exited {done.returncode}: {why[:200]}")
        stdout = done.stdout
    return stdout[:-1] if stdout.endswith("\n") else stdout


def update(page: Path, root: Path = REPO) -> List[str]:
    """Rewrites the marked blocks of ``page`` from their sources; returns the
    problems of the page and of the blocks it could not rewrite."""
    import docs_check  # which imports this module

    name = str(page.relative_to(root))
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks, problems = docs_check.parse(name, "\n".join(lines))
    for block in reversed(blocks):
        try:
            new = stdout_of(block.source, root).split("\n")
        except Refused as refused:
            problems.append(f"{name}:{block.start}: {refused}")
            continue
        inner = lines[block.start : block.end - 1]
        if docs_check.unfenced(inner) is not inner:
            new = [inner[0], *new, inner[-1]]
        lines[block.start : block.end - 1] = new
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return problems


def stamp(paths: List[str]) -> int:
    """Gives each record written without ``made_from`` (by a branch whose
    record_output.py predates it) the digests of its files in the commit that
    wrote it, and its machine paths their placeholders; the docs test then
    says whether it is stale. A record that has ``made_from`` is refused."""
    for path in paths:
        file = REPO / path
        record = json.loads(file.read_text(encoding="utf-8"))
        if path not in record_sources.SOURCES or "made_from" in record:
            raise Refused(f"{path}: not a record to stamp (unknown, or stamped)")
        if "command" in record:
            placed = normalised(shlex.split(record["command"]))
            record["command"] = _placed(record["command"], placed)
            record["stdout"] = _placed(record["stdout"], placed)
        record["made_from"] = record_sources.made_from_its_commit(path)
        file.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        print(f"{path}: stamped from the commit that wrote it", file=sys.stderr)
    return 0


def main(args: List[str]) -> int:
    if args == ["--update"]:
        import docs_check

        left = [problem for page in docs_check.pages() for problem in update(page)]
        print("\n".join(left) or "every marked block rewritten", file=sys.stderr)
        return 1 if left else 0
    if args[:1] == ["--stamp"] and args[1:]:
        return stamp(args[1:])
    to = None
    if args[1:2] == ["--to"]:
        to, args = Path(args[2]), args[:1] + args[3:]
    if len(args) < 3 or args[1] != "--" or not args[0].endswith(".json"):
        raise Refused(
            "usage: record_output.py docs/records/NAME.json [--to FILE] -- COMMAND..."
            " | --update"
        )
    target = args[0]
    if target not in record_sources.SOURCES:
        raise Refused(
            f"{target}: test/record_sources.py does not say what it is made from"
        )
    if record_sources.SOURCES[target].own_form:
        raise Refused(f"{target}: its own command writes it, not record_output.py")
    paths = normalised(args[2:])
    command = _placed(shlex.join(args[2:]), paths)
    argv_of(command)  # refused before anything runs
    before = record_sources.made_from(target)
    done = run(shlex.join(args[2:]))
    if record_sources.made_from(target) != before:
        raise Refused(
            f"{target}: a file it is made from changed while it ran; not written"
        )
    record = {
        "command": command,
        "date": datetime.date.today().isoformat(),
        "versions": versions(),
        "exit_status": done.returncode,
        "stdout": _placed(done.stdout, paths),
        "made_from": before,
    }
    if target == TABLE:
        if done.returncode != 0:
            raise Refused(f"{command!r} exited {done.returncode}; {TABLE} not written")
        record = {**json.loads(done.stdout), "made_from": before}
    to = to or REPO / target
    to.parent.mkdir(parents=True, exist_ok=True)
    to.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"{to}: exit status {done.returncode}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Refused as refused:
        print(f"record_output.py: {refused}", file=sys.stderr)
        sys.exit(2)
