"""What a file given as ``--model`` is, and whether a ``.pt2``'s saved
example inputs fit its program.

``refuse_unreadable_pt2`` tells, from the file's first bytes and its zip
directory and without torch, anything that is not a ``torch.export.save``
archive, named for what it is: a truncated archive, an AOTInductor package,
a TorchScript file, a ``torch.save`` file, another pickle, a ``.pte``,
safetensors, Python source; a missing path that reads as a module's name is
told that a module spec needs ``:NAME``. ``inputs_misfit`` compares the
saved inputs with the program's own inputs (their layout, dtype and fixed
sizes), running nothing.
"""

import re
import zipfile
from pathlib import Path
from typing import List, Optional, TYPE_CHECKING

if TYPE_CHECKING:
    import torch


class BadModel(ValueError):
    """The SPEC does not name a model this tool can load."""


EXPORT = 'torch.export.save(torch.export.export(model, example_args), "model.pt2")'
SAVE_HINT = (
    "save it with its inputs: ep = torch.export.export(model, example_args);"
    ' torch.export.save(ep, "model.pt2")'
)
TORCH_SAVE = (
    "was written by torch.save (a state dict or a pickled module), not by"
    f" torch.export.save; save the program instead: {EXPORT}"
)
PICKLE = (
    "is a pickle file (pickle.dump), not a .pt2 archive; save the program"
    f" instead: {EXPORT}"
)
# torch.save's legacy format pickles this number first (torch.serialization's
# MAGIC_NUMBER, a 10-byte LONG1 after the protocol and any frame header).
LEGACY_MAGIC = b"\x8a\x0a" + (0x1950A86A20F9469CFC6C).to_bytes(10, "little")
TORCHSCRIPT = (
    "is a TorchScript file (torch.jit.save), not a torch.export program;"
    f" export the model instead: {EXPORT}"
)
AOTI = (
    "is an AOTInductor package (aoti_compile_and_package): code compiled for"
    " AOTInductor's runtime, with no program ExecuTorch can lower; save the"
    f" exported program instead: {EXPORT}"
)
TRUNCATED = (
    "is a truncated zip archive: it ends before its zip directory (copied or"
    " saved only in part?); save or copy it again"
)
# A zip's end-of-central-directory record: its signature and fixed size.
END_OF_ZIP, END_SIZE = b"PK\x05\x06", 22


def _cut_short(path: Path) -> bool:
    """Whether a file that starts as a zip lacks the record that ends one:
    a .pt2 cut short still holds the inner archives' records (its saved
    inputs are a torch.save zip), so ``zipfile`` would read one of those."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        handle.seek(max(0, size - (1 << 16) - END_SIZE))
        tail = handle.read()
    at = tail.rfind(END_OF_ZIP)
    if at < 0 or len(tail) - at < END_SIZE:
        return True
    comment = int.from_bytes(tail[at + 20 : at + 22], "little")
    return at + END_SIZE + comment != len(tail)


def _archive_format(path: Path) -> Optional[str]:
    """The ``archive_format`` entry ``torch.export.save`` writes, or None."""
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        entry = [n for n in names if n.rsplit("/", 1)[-1] == "archive_format"]
        found = archive.read(entry[0]) if entry else None
    inside = {part for n in names for part in f"/{n}".split("/")[2:4]}
    if found is not None and "aotinductor" in inside and "models" not in inside:
        raise BadModel(f"{path} {AOTI}")
    if found is not None:
        return found.decode("utf-8", "replace").strip()
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


# A missing path that reads as a module's name (``nu9.rope``) is a module
# spec that lacks its ``:NAME``.
MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def _module_hint(spec: str) -> str:
    if spec.endswith(".pt2") or not MODULE_NAME.fullmatch(spec):
        return ""
    return f"; to name a model in module {spec}, give {spec}:NAME"


def refuse_unreadable_pt2(path: Path) -> None:
    """Raise ``BadModel`` for a path that is no ``torch.export.save`` archive,
    saying what it is instead; imports nothing heavy."""
    if path.is_dir():
        raise BadModel(f"{path} is a directory, not a .pt2 file")
    if not path.exists():
        raise BadModel(f"{path}: no such file{_module_hint(str(path))}")
    if not path.is_file():
        raise BadModel(f"{path} is not a regular file")
    with path.open("rb") as handle:
        head = handle.read(32)
    if head[:1] == b"\x80":  # a pickle: torch.save's legacy format or another
        raise BadModel(f"{path} {TORCH_SAVE if LEGACY_MAGIC in head else PICKLE}")
    kind = _not_a_zip(head, path.suffix)
    if kind is not None:
        raise BadModel(f"{path} is {kind}, not a .pt2 archive; {SAVE_HINT}")
    if head[:4] == b"PK\x03\x04" and _cut_short(path):
        raise BadModel(f"{path} {TRUNCATED}")
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


def _described(value: object) -> str:
    import torch

    if isinstance(value, torch.Tensor):
        return f"{str(value.dtype).replace('torch.', '')} {list(value.shape)}"
    return type(value).__name__


def _fits(given: object, expected: object) -> bool:
    import torch

    if not isinstance(expected, torch.Tensor):
        return not isinstance(given, torch.Tensor)
    if not isinstance(given, torch.Tensor) or given.dtype != expected.dtype:
        return False
    sizes = list(expected.shape)  # a dynamic size is a SymInt: any fits
    return len(given.shape) == len(sizes) and all(
        not isinstance(size, int) or size == int(have)
        for size, have in zip(sizes, given.shape)
    )


def inputs_misfit(program: "torch.export.ExportedProgram", inputs: tuple) -> str:
    """Why the example inputs ``(args, kwargs)`` do not fit ``program``'s
    user inputs, or ''."""
    from torch.utils._pytree import tree_flatten

    given, layout = tree_flatten(inputs)
    names = list(program.graph_signature.user_inputs)
    values = {
        n.name: n.meta.get("val") for n in program.graph.nodes if n.op == "placeholder"
    }
    expected: List[object] = [values.get(name) for name in names]
    in_spec = program.call_spec.in_spec
    if len(given) != len(expected) or (in_spec is not None and layout != in_spec):
        return f"{len(given)} value(s) given where it takes {len(expected)}"
    for index, (name, have, want) in enumerate(zip(names, given, expected)):
        if want is not None and not _fits(have, want):
            return (
                f"input {index} ({name}) is {_described(have)}, where the program"
                f" takes {_described(want)}"
            )
    return ""
