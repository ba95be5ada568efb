"""What keeps the README and docs/ honest: their relative links resolve,
and the commands and flags they show exist in ``--help``."""

import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import Dict, Iterable, List, Set

REPO = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
COMMAND = re.compile(r"(?:exportpass-fix|python -m exportpass_fix) +([a-z][a-z-]*)")
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z-]*|-o)\b")
# Where a command's arguments end: the end of a code span, a table cell or a
# shell operator.
END = re.compile(r"[`|;&>]|\s#\s")


def pages() -> List[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(text: str) -> Set[str]:
    outside_code = re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.M | re.S)
    return {slug(h) for h in re.findall(r"^#+ (.+)$", outside_code, re.M)}


def bad_links(page: Path, text: str) -> List[str]:
    problems = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            problems.append(f"{page.name}: link to {target}: no such file")
        elif anchor and resolved.suffix == ".md":
            if anchor not in anchors(resolved.read_text(encoding="utf-8")):
                problems.append(f"{page.name}: link to {target}: no such heading")
    return problems


@lru_cache(maxsize=None)
def help_text(command: str = "") -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "exportpass_fix",
            *([command] if command else []),
            "--help",
        ],
        capture_output=True,
        text=True,
    )
    return done.stdout if done.returncode == 0 else ""


def commands() -> List[str]:
    listing = help_text().split("positional arguments:")[0]
    return re.findall(r"^  ([a-z][a-z-]*)  ", listing, re.M)


def shown(text: str) -> Iterable[tuple]:
    """(command, its arguments) for each command shown in ``text``."""
    joined = re.sub(r"\\\n\s*", " ", text)
    for line in joined.splitlines():
        for found in COMMAND.finditer(line):
            rest = line[found.end() :]
            end = END.search(rest)
            yield found.group(1), rest[: end.start()] if end else rest


def bad_commands(page: str, text: str) -> List[str]:
    known = set(commands())
    problems = []
    for command, arguments in shown(text):
        if command not in known:
            problems.append(f"{page}: unknown command {command!r}")
            continue
        options = help_text(command)
        for flag in FLAG.findall(arguments):
            if not re.search(rf"(?<![\w-]){re.escape(flag)}\b", options):
                problems.append(f"{page}: {command} has no flag {flag}")
    return problems


def unshown_commands(texts: Dict[str, str]) -> List[str]:
    seen = {command for text in texts.values() for command, _ in shown(text)}
    return [command for command in commands() if command not in seen]
