"""Runs ``exportpass-fix patch ARGS`` into a temporary directory and prints
what docs/upstream.md shows of what it wrote, each under a ``==> NAME <==``
header: each patch's message, from ``### Summary`` to its ``---``, and
comment.md when there is one. Its output is recorded for the docs:

    python test/record_output.py docs/records/NAME.json -- \\
        python test/upstream/making/show_patch.py patch --tree TREE ...

The patch's own stdout (the paths it wrote) is left out; its stderr passes
through; its exit status is this script's.
"""

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List


def message(patch: str) -> str:
    """The body of a mail-formatted patch, from ``### Summary`` to ``---``."""
    lines = patch.splitlines()
    start = lines.index("### Summary")
    end = lines.index("---", start)
    return "\n".join(lines[start:end])


def main(args: List[str]) -> int:
    if args[:1] != ["patch"] or {"-o", "--output-dir"} & set(args):
        print("show_patch.py: usage: show_patch.py patch ARGS (no -o)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run(
            [sys.executable, "-m", "exportpass_fix", *args, "-o", out],
            stdout=subprocess.DEVNULL,
        )
        shown = []
        for patch in sorted(Path(out).glob("*.patch")):
            text = message(patch.read_text(encoding="utf-8"))
            shown.append(f"==> {patch.name} <==\n{text}")
        comment = Path(out) / "comment.md"
        if comment.exists():
            text = comment.read_text(encoding="utf-8").rstrip("\n")
            shown.append(f"==> comment.md <==\n{text}")
        print("\n\n".join(shown))
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
