"""What ``--model`` names, loaded: an ``ExportedProgram`` with its inputs.

A SPEC is one of:
- ``PATH.pt2``: written by ``torch.export.save``; inputs from ``example_inputs``;
- ``package.module:name``, importable from the current directory: an
  ``ExportedProgram``, or a callable returning one or a
  ``(torch.nn.Module, example_args)`` pair (exported with torch.export);
- ``builtin:NAME``: one of this project's models (``models.MODELS``).
Anything that does not fit raises ``BadModel``; a model whose own export
fails raises that error, which is not bad input. Torch is imported only to
load a model, so ``check`` can refuse a bad path before any heavy import.
"""

import importlib
import os
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Optional, Tuple, TYPE_CHECKING

from ...shared.report import unknown_name

if TYPE_CHECKING:
    import torch

SAVE_HINT = (
    "save it with its inputs: ep = torch.export.export(model, example_args);"
    ' torch.export.save(ep, "model.pt2")'
)
TORCH_SAVE = (
    "was written by torch.save (a state dict or a pickled module), not by"
    " torch.export.save; save the program instead:"
    ' torch.export.save(torch.export.export(model, example_args), "model.pt2")'
)
TORCHSCRIPT = (
    "is a TorchScript file (torch.jit.save), not a torch.export program;"
    " export the model instead: " + TORCH_SAVE.split(": ", 1)[1]
)
# models.MODELS's names, without importing torch (a test holds them equal).
BUILTIN_MODELS = (
    "issue-reduced",
    "detr-sine",
    "rope-attention",
    "dinov2-interpolated",
    "t5-relative-bias",
    "conv-control",
    "buffer-table-control",
    "plain-attribute-control",
    "t5-int64-buckets",
    "timestep-sinusoid",
    "dynamic-length-sine",
)


class BadModel(ValueError):
    """The SPEC does not name a model this tool can load."""


@dataclass
class Model:
    program: "torch.export.ExportedProgram"
    inputs: Tuple[tuple, Dict]
    eager: Callable[..., object]
    how: str
    rtol: float = 1e-5
    atol: float = 1e-5


def is_pt2(spec: str) -> bool:
    return spec.endswith(".pt2") or ":" not in spec


def _archive_format(path: Path) -> Optional[str]:
    """The ``archive_format`` entry ``torch.export.save`` writes, or None."""
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        entry = [n for n in names if n.rsplit("/", 1)[-1] == "archive_format"]
        if entry:
            return archive.read(entry[0]).decode("utf-8", "replace").strip()
    if any("/code/" in n or n.endswith("constants.pkl") for n in names):
        raise BadModel(f"{path} {TORCHSCRIPT}")
    if any(n.rsplit("/", 1)[-1] == "data.pkl" for n in names):
        raise BadModel(f"{path} {TORCH_SAVE}")
    return None


def _not_a_zip(head: bytes, suffix: str) -> Optional[str]:
    """What a file is by its first bytes, where that is not a .pt2 archive."""
    if not head:
        return "empty"
    if head[4:6] == b"ET" and head[6:8].isdigit():  # flatbuffer identifier
        return "an ExecuTorch program (.pte), already lowered"
    if head[8:9] == b"{" and int.from_bytes(head[:8], "little") < 1 << 30:
        return "a safetensors file (weights only)"
    if suffix == ".py":
        return "Python source (name a model in it as module:name)"
    return None


def refuse_unreadable_pt2(path: Path) -> None:
    """Raise ``BadModel`` for a path that is no ``torch.export.save`` archive,
    saying what it is instead; imports nothing heavy."""
    if path.is_dir():
        raise BadModel(f"{path} is a directory, not a .pt2 file")
    if not path.exists():
        raise BadModel(f"{path}: no such file")
    if not path.is_file():
        raise BadModel(f"{path} is not a regular file")
    with path.open("rb") as handle:
        head = handle.read(16)
    if head[:1] == b"\x80":  # a pickle: torch.save's legacy format
        raise BadModel(f"{path} {TORCH_SAVE}")
    kind = _not_a_zip(head, path.suffix)
    if kind is not None:
        raise BadModel(f"{path} is {kind}, not a .pt2 archive; {SAVE_HINT}")
    if not zipfile.is_zipfile(path):
        raise BadModel(f"{path} is not a .pt2 archive (torch.export.save writes one)")
    found = _archive_format(path)
    if found is None:
        raise BadModel(f"{path} is a zip archive without the entries of a .pt2 one")
    if found != "pt2":
        raise BadModel(
            f"{path} is a corrupt .pt2 archive: its archive_format says"
            f" {found[:40]!r}, not 'pt2'"
        )


def _from_pt2(path: Path) -> Model:
    import torch

    refuse_unreadable_pt2(path)
    try:
        program = torch.export.load(str(path))
    except Exception as error:
        first = (str(error).splitlines() or [type(error).__name__])[0]
        # torch logs the cause and points at it; that log is not shown here.
        first = first.replace(
            "Please check the warnings above for possible errors.", ""
        )
        raise BadModel(f"{path} is a corrupt .pt2 archive: {first.strip()}") from None
    if program.example_inputs is None:
        raise BadModel(f"{path} has no example inputs; {SAVE_HINT}")
    args, kwargs = program.example_inputs
    return Model(program, (args, kwargs), program.module(), f"loaded {path.name}")


def _exported(value: object, where: str, dynamic_shapes: object = None) -> Model:
    import torch

    if isinstance(value, torch.export.ExportedProgram):
        if value.example_inputs is None:
            raise BadModel(f"{where} has no example inputs; {SAVE_HINT}")
        args, kwargs = value.example_inputs
        return Model(value, (args, kwargs), value.module(), f"took {where}")
    if (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[0], torch.nn.Module)
        and isinstance(value[1], tuple)
    ):
        module, args = value
        program = torch.export.export(module, args, dynamic_shapes=dynamic_shapes)
        return Model(program, (args, {}), module, f"exported {where}")
    raise BadModel(
        f"{where} is a {type(value).__name__}, not an ExportedProgram or a"
        " (torch.nn.Module, example_args) pair"
    )


def _from_import(spec: str) -> Model:
    module_name, _, attribute = spec.partition(":")
    sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise BadModel(f"cannot import {module_name!r}: {error}") from None
    finally:
        sys.path.pop(0)
    if not hasattr(module, attribute):
        raise BadModel(f"{module_name!r} has no attribute {attribute!r}")
    value = getattr(module, attribute)
    import torch

    if callable(value) and not isinstance(value, torch.nn.Module):
        value = value()
    return _exported(value, spec)


def refuse_unknown_builtin(name: str) -> None:
    """Raise ``BadModel`` for a name that is no built-in model; no torch."""
    if name not in BUILTIN_MODELS:
        raise BadModel(unknown_name("built-in model", name, BUILTIN_MODELS))


def load_model(spec: str, rtol: float = 1e-5, atol: float = 1e-5) -> Model:
    if spec.startswith("builtin:"):
        from ..models.catalog import build, dynamic_shapes

        name = spec.split(":", 1)[1]
        refuse_unknown_builtin(name)
        model = _exported(build(name), spec, dynamic_shapes(name))
    elif is_pt2(spec):
        model = _from_pt2(Path(spec))
    else:
        model = _from_import(spec)
    model.rtol, model.atol = rtol, atol
    return model
