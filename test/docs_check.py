"""What keeps the README and docs/ honest: their relative links resolve,
the commands and flags they show exist in ``--help``, and every pasted
output sits under a marker naming its source and equals what that source
gives (docs/tests.md, "Pasted outputs"), and no sentence of their prose
is over 40 words. It reads and runs; it writes nothing
(``record_output.py --update`` rewrites the marked blocks)."""

import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import Dict, Iterable, List, NamedTuple, Optional, Set, Tuple

import record_output

REPO = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
COMMAND = re.compile(r"(?:exportpass-fix|python -m exportpass_fix) +([a-z][a-z-]*)")
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z-]*|-o)\b")
# Where a command's arguments end: the end of a code span, a table cell or a
# shell operator.
END = re.compile(r"[`|;&>]|\s#\s")
START = re.compile(r"^<!-- output of: (\S.*?) -->$")
END_OUTPUT = "<!-- end of output -->"
# Any other comment that looks like a marker (an old or mistyped form).
MARKERISH = re.compile(r"<!--\s*(output|end of|generated)")
# A backtick fence's line holds no other backtick (else it is a code span).
FENCE = re.compile(r"^\s*(`{3,}(?=[^`]*$)|~{3,})\s*(\S*)")
# Outside a marker a fence holds what the reader types or reads as code.
CODE = ("sh", "python")
UNMARKED = (
    "pasted output goes under <!-- output of: SOURCE -->, commands in ```sh"
    " (no $ prompt), code in ```python"
)


def pages() -> List[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def records() -> List[Path]:
    return sorted((REPO / "docs" / "records").glob("*"))


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


class Block(NamedTuple):
    """A marked block: its source, the lines of its two markers (1-based),
    and its text without the fences around it."""

    source: str
    start: int
    end: int
    text: str


def unfenced(lines: List[str]) -> List[str]:
    opening = FENCE.match(lines[0]) if lines else None
    if opening and len(lines) > 1 and lines[-1].strip() == opening.group(1):
        return lines[1:-1]
    return lines


def _unmarked(line: str, fence: Optional[Tuple[str, str]]) -> Optional[str]:
    """The problem of a line outside any marker, if it has one."""
    if fence is not None:
        prompt = fence[1] == "sh" and line.startswith("$ ")
        return "a $ prompt in a sh block" if prompt else None
    if line == END_OUTPUT:
        return f"{END_OUTPUT} without a marker before it"
    if MARKERISH.match(line.strip()) and not START.match(line):
        return f"not a marker: {line.strip()[:60]!r}; the form is <!-- output of: SOURCE -->"
    opening = FENCE.match(line)
    if opening and opening.group(2) not in CODE:
        return f"a {opening.group(1)}{opening.group(2)} block outside a marker"
    return None


def parse(name: str, text: str) -> Tuple[List[Block], List[str]]:
    """The marked blocks of a page, and the problems of its markers and of
    the lines outside them (a pasted output left unmarked)."""
    blocks, problems = [], []
    lines = text.splitlines()
    marker, fence = 0, None
    for number, line in enumerate(lines, 1):
        if marker and START.match(line):
            problems.append(
                f"{name}:{number}: a marker inside the marker of line {marker}"
            )
        elif marker and line == END_OUTPUT:
            body = "\n".join(unfenced(lines[marker : number - 1]))
            source = START.match(lines[marker - 1]).group(1)
            blocks.append(Block(source, marker, number, body))
            marker = 0
        elif not marker:
            problem = _unmarked(line, fence)
            if problem:
                hint = "" if problem.startswith("not a") else f": {UNMARKED}"
                problems.append(f"{name}:{number}: {problem}{hint}")
            opening = FENCE.match(line)
            if fence is not None and line.strip() == fence[0]:
                fence = None
            elif fence is None and opening:
                fence = (opening.group(1), opening.group(2))
            elif fence is None and START.match(line):
                marker = number
    if marker:
        problems.append(f"{name}:{marker}: marker never ends (no {END_OUTPUT})")
    return blocks, problems


def _first_difference(page: str, source: str) -> str:
    ours, theirs = page.split("\n"), source.split("\n")
    for number, (a, b) in enumerate(zip(ours, theirs), 1):
        if a != b:
            return f"line {number} of the block is {a[:70]!r}, the source's {b[:70]!r}"
    return f"the block has {len(ours)} lines, the source {len(theirs)}"


def marker_problems(name: str, text: str, root: Path = REPO) -> List[str]:
    """Every problem of a page's markers, blocks and unmarked outputs."""
    blocks, problems = parse(name, text)
    for block in blocks:
        try:
            expected = record_output.stdout_of(block.source, root)
        except record_output.Refused as refused:
            problems.append(f"{name}:{block.start}: {refused}")
            continue
        if block.text != expected:
            difference = _first_difference(block.text, expected)
            problems.append(
                f"{name}:{block.start}: differs from {block.source}: {difference}"
            )
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


MAX_WORDS = 40  # a sentence a newcomer reads once
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
LINKED = re.compile(r"\[([^\]]*)\]\([^)\s]*\)")
# A sentence ends at . ! or ? before a word that does not start in lower case.
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[^a-z])")
ITEM = re.compile(r"^\s*(?:[-*]|\d+\.)\s+")


def _prose(text: str) -> List[Tuple[int, str]]:
    """(first line, text) of each paragraph, list item and table cell outside
    code blocks and marked outputs."""
    units: List[Tuple[int, str]] = []
    blocks, _ = parse("", text)
    inside = {n for b in blocks for n in range(b.start, b.end + 1)}
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        if fence is not None or number in inside or line.startswith("<!--"):
            if fence is not None and line.strip() == fence:
                fence = None
            units.append((number, ""))
        elif FENCE.match(line):
            fence = FENCE.match(line).group(1)
            units.append((number, ""))
        elif line.lstrip().startswith("|"):
            if not re.fullmatch(r"[\s|:-]+", line):
                cells = re.split(r"(?<!\\)\|", CODE_SPAN.sub("CODE", line.strip()))
                units += [(number, cell) for cell in cells]
            units.append((number, ""))
        elif not line.strip() or line.startswith("#") or ITEM.match(line):
            units.append((number, ITEM.sub("", line)))
        elif units and units[-1][1]:
            units[-1] = (units[-1][0], f"{units[-1][1]} {line.strip()}")
        else:
            units.append((number, line.strip()))
    # A code span is one word; a link reads as its text.
    said = [(n, LINKED.sub(r"\1", CODE_SPAN.sub("CODE", unit))) for n, unit in units]
    return [(n, unit) for n, unit in said if unit.strip()]


def long_sentences(name: str, text: str, limit: int = MAX_WORDS) -> List[str]:
    """Each sentence of the page's prose (not code, not a pasted output) over
    ``limit`` words, a code span counted as one."""
    found = []
    for number, unit in _prose(text):
        for sentence in SENTENCE_END.split(unit.strip()):
            words = sentence.split()
            if len(words) > limit:
                found.append(
                    f"{name}:{number}: {len(words)} words: {' '.join(words[:8])} ..."
                )
    return found
