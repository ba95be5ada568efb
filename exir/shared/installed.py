"""The installed ExecuTorch, found without importing it, and the process
environment that child processes get.

``EXPORTPASS_FIX`` is the backport's opt-in start-up hook; the patch
proof, the upstream test runs and the diagnosis's unpatched column all
start children that must run unpatched whatever the caller's shell sets.
"""

import importlib.util
import os
from pathlib import Path
from typing import Dict, List, Optional

ENV_VAR = "EXPORTPASS_FIX"


def environ_without_hook() -> Dict[str, str]:
    """``os.environ`` less ``EXPORTPASS_FIX``, for a child that must run
    unpatched whatever the caller's shell sets."""
    return {k: v for k, v in os.environ.items() if k != ENV_VAR}


def installed_executorch_dir() -> Optional[Path]:
    """The installed ``executorch`` package directory, without importing it."""
    spec = importlib.util.find_spec("executorch")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def installed_extras() -> List[str]:
    """The extras the installed ExecuTorch declares (1.0.0 declares none)."""
    import importlib.metadata

    try:
        declared = importlib.metadata.metadata("executorch").get_all("Provides-Extra")
    except importlib.metadata.PackageNotFoundError:
        declared = None
    return declared or []


def installed_version() -> str:
    import importlib.metadata  # here: the start-up hook imports this module

    try:
        return importlib.metadata.version("executorch")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (no executorch distribution metadata)"
