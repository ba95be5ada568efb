"""What the command-line tools print: plain-text tables, the program's name as
it was invoked, and the one-line refusal that goes with exit status 2."""

import difflib
import os
import sys
import textwrap
import time
from pathlib import Path
from typing import Callable, List, Optional, Sequence

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_REFUSED = 2
CONSOLE_SCRIPT = "exportpass-fix"


def prog() -> str:
    """As the user called it: the console script or ``python -m``."""
    called = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return CONSOLE_SCRIPT if called == CONSOLE_SCRIPT else "python -m exportpass_fix"


def progress(line: str) -> None:
    """A progress line of long work: stderr, so that stdout is the result."""
    print(line, file=sys.stderr, flush=True)


def timed_progress(full: bool = False) -> Callable[[str], None]:
    """``progress`` with the seconds since this call before each line, cut
    to a terminal's 100 columns unless ``full``."""
    started = time.perf_counter()

    def say(line: str) -> None:
        line = f"[{time.perf_counter() - started:5.1f} s] {line}"
        progress(line if full else cut(line, 100))

    return say


def refuse(command: str, reason: object) -> int:
    """One line on stderr, named as argparse names its own errors."""
    print(f"{prog()} {command}: refused: {reason}", file=sys.stderr)
    return EXIT_REFUSED


def print_result(command: str, text: str) -> Optional[int]:
    """The result on stdout; where stdout cannot be written (a full disk,
    ``> /dev/full``, a closed pipe), one line on stderr and exit status 2."""
    try:
        print(text, flush=True)
    except OSError as error:
        # Point stdout at devnull so the exit's own flush raises nothing more.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        reason = error.strerror or type(error).__name__
        return refuse(command, f"cannot write the result to stdout: {reason}")
    return None


def unknown_name(kind: str, name: str, known: Sequence[str]) -> str:
    """Why ``name`` is refused: the closest known names first, then all."""
    same_but_case = [k for k in known if k.lower() == name.lower()]
    close = same_but_case or difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
    return f"unknown {kind} {name!r}{hint}; known: {', '.join(known)}"


def text_table(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    widths: Optional[Sequence[int]] = None,
    whole_words: bool = False,
) -> str:
    """Columns padded to their widest cell, a rule under the header; with
    ``widths``, a longer cell wraps onto lines of its own column (with
    ``whole_words``, as ``wrap_between_words`` does)."""
    table: List[Sequence[str]] = [header, *rows]
    natural = [max(len(row[i]) for row in table) for i in range(len(header))]
    if widths is not None:
        natural = [min(limit, width) for limit, width in zip(widths, natural)]
    lines = []
    for row in table:
        cells = [
            (
                wrap_between_words(cell, width)
                if whole_words
                else textwrap.wrap(cell, width, subsequent_indent="  ")
            )
            or [""]
            for cell, width in zip(row, natural)
        ]
        for k in range(max(map(len, cells))):
            parts = [
                (c[k] if k < len(c) else "").ljust(w) for c, w in zip(cells, natural)
            ]
            lines.append(" | ".join(parts).rstrip())
    lines.insert(1, "-+-".join("-" * width for width in natural))
    return "\n".join(lines)


def _pieces(word: str, room: int) -> List[str]:
    """``word`` in pieces of at most ``room``, each ending at a joint of a
    file name (``/ _ - .``) where one is within reach."""
    pieces = []
    while len(word) > room:
        at = max(word.rfind(joint, 0, room) for joint in "/_-.") + 1
        pieces.append(word[: at or room])
        word = word[at or room :]
    return pieces + [word]


def wrap_between_words(text: str, width: int) -> List[str]:
    """``text`` in lines of at most ``width``, continued lines indented by
    two, broken between words; a word wider than a line (a long file name)
    is broken at its joints, and only where it must."""
    lines: List[str] = []
    line = ""
    for word in text.split():
        glue = " " if line else ""
        for piece in _pieces(word, max(width - 2, 1)):
            if line and len(line) + len(glue) + len(piece) > width:
                lines.append(line)
                line = "  " + piece
            else:
                line += glue + piece
            glue = ""
    return lines + [line] * bool(line)


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, ``…`` where it was cut."""
    return text if len(text) <= width else text[: width - 1] + "…"
