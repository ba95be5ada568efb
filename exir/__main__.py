"""``exportpass-fix`` / ``python -m exportpass_fix``: the commands of the
upstream job (``patch``, ``prove``, ``mutants``, ``cherry-pick``) and of the
diagnosis (``check``, ``matrix``, ``partitioners``).

Exit status: 0 done; 1 something checked did not hold; 2 refused (bad
input), with one line saying why and nothing written or changed.
"""

import argparse
import sys
from pathlib import Path
from typing import List, Optional


CONSOLE_SCRIPT = "exportpass-fix"
DISTRIBUTION = "executorch-exportpass-fix"


def _prog() -> str:
    """As the user called it: the console script or ``python -m``."""
    called = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return CONSOLE_SCRIPT if called == CONSOLE_SCRIPT else "python -m exportpass_fix"


def _version() -> str:
    from importlib import metadata

    try:
        return f"%(prog)s {metadata.version(DISTRIBUTION)}"
    except metadata.PackageNotFoundError:
        return "%(prog)s (not installed: no distribution metadata)"


def main(argv: Optional[List[str]] = None) -> int:
    from .diagnosis import cli as diagnosis_cli
    from .upstream import cli as upstream_cli

    parser = argparse.ArgumentParser(prog=_prog())
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", required=True)
    upstream_cli.add_commands(commands)
    diagnosis_cli.add_commands(commands)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
