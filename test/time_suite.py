"""How long the README's test command takes: runs ``pytest`` (or the pytest
arguments given) as one process in the repository, and prints its closing
counts, its wall time, the machine's cores and its load average before and
at its highest while the suite ran. README.md quotes the record of a run:

    python test/record_output.py docs/records/suite_time.json -- python test/time_suite.py

Progress goes to stderr, a line a minute; the exit status is pytest's.
"""

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# pytest's closing line, e.g. "350 passed, 3 skipped, 13 deselected in 912.3s".
CLOSING = re.compile(r"^=* ?(\d+ \w+(?:, \d+ \w+)*) in [\d.]+s")


def load() -> float:
    return os.getloadavg()[0]


def main() -> int:
    args = sys.argv[1:]
    before, highest = load(), 0.0
    started = time.monotonic()
    with tempfile.TemporaryFile("w+") as log:
        suite = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
            cwd=REPO,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        while suite.poll() is None:
            time.sleep(5)
            highest = max(highest, load())
            minutes = (time.monotonic() - started) / 60
            if int(minutes * 12) % 12 == 0:  # about once a minute
                print(f"pytest running, {minutes:.0f} min", file=sys.stderr)
        wall = time.monotonic() - started
        log.seek(0)
        lines = log.read().splitlines()
    counts = [m.group(1) for m in map(CLOSING.match, lines) if m]
    print(
        f"pytest {' '.join(args)}".rstrip()
        + f": {counts[-1] if counts else 'no closing line'}"
    )
    print(f"wall time: {wall / 60:.1f} minutes on {os.cpu_count()} cores")
    print(f"load average before: {before:.1f}, highest while it ran: {highest:.1f}")
    if suite.returncode:
        print("\n".join(lines[-30:]), file=sys.stderr)
    return suite.returncode


if __name__ == "__main__":
    sys.exit(main())
