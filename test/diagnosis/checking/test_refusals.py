"""``check`` refuses bad input at once and names it for what it is.

Each refusal is one line on stderr, named as the program was invoked, exit
status 2, nothing on stdout and nothing written; what can be told without
torch is told before torch is imported (``-X importtime`` shows the imports).
"""

import pickle
import struct
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest
import torch
from exportpass_fix.diagnosis.checking.partitioners import (
    PARTITIONERS,
    unusable_here,
    why_not,
)
from exportpass_fix.shared.installed import installed_extras

SCRIPT = Path(sys.executable).with_name("exportpass-fix")
# The partitioners that were refused only after the workers imported
# ExecuTorch: each needs a package or a generated file this wheel lacks.
LATE_BEFORE = ["openvino", "tosa", "ethos-u", "vgf", "mlx"]


def _refused_early(args: List[str], cwd: Path) -> str:
    """Run ``check`` under ``-X importtime``; the refusal line, after asserting
    exit 2, one line, nothing on stdout, nothing written, no torch imported."""
    before = sorted(cwd.iterdir())
    done = subprocess.run(
        [sys.executable, "-X", "importtime", str(SCRIPT), "check", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
    )
    lines = [x for x in done.stderr.splitlines() if not x.startswith("import time:")]
    imported = {
        x.rsplit("|", 1)[-1].strip()
        for x in done.stderr.splitlines()
        if x.startswith("import time:")
    }
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and done.stdout == "", done.stdout + done.stderr
    assert lines[0].startswith("exportpass-fix check: refused: "), lines
    assert not {m for m in imported if m.split(".")[0] in ("torch", "executorch")}
    assert sorted(cwd.iterdir()) == before
    return lines[0]


@pytest.mark.parametrize("name", LATE_BEFORE + ["coreai"])
def test_an_unusable_partitioner_is_refused_before_torch_with_what_it_needs(
    name: str, tmp_path: Path
) -> None:
    if unusable_here(name) is None and why_not(name) is None:
        pytest.skip(f"{name} can be used here")

    refusal = _refused_early(["--partitioner", name], tmp_path)

    assert f"partitioner {name!r} cannot be used here: " in refusal
    assert "needs" in refusal or "not in this ExecuTorch" in refusal


def test_every_partitioner_that_cannot_be_built_is_known_so_without_a_backend() -> None:
    # why_not imports each backend; unusable_here imports none of them.
    late = [
        (name, why_not(name))
        for name in PARTITIONERS
        if why_not(name) is not None and unusable_here(name) is None
    ]

    assert late == []


def test_a_hint_names_an_executorch_extra_only_where_the_release_declares_it() -> None:
    # 1.0.0 declares no extras: there the hint names the package itself.
    for name, entry in PARTITIONERS.items():
        reason = unusable_here(name)
        if entry.extra is None or reason is None or "pip install" not in reason:
            continue
        named = f'"executorch[{entry.extra}]==' in reason
        assert named is (entry.extra in installed_extras()), reason


@pytest.mark.parametrize(
    "args",
    [
        ["--atol", "-1"],
        ["--rtol", "nan"],
        ["--atol", "inf"],
        ["--rtol=-1e-9"],
        ["--atol", "abc"],
    ],
)
def test_a_bad_tolerance_is_refused_before_any_work(
    args: List[str], tmp_path: Path
) -> None:
    refusal = _refused_early(args, tmp_path)

    assert "must be a finite number >= 0" in refusal


@pytest.mark.parametrize(
    "args, meant",
    [
        (["--partitioner", "XNNPACK"], "xnnpack"),
        # difflib finds 'vulkan' for 'Vulkan' too: the hint is said once.
        (["--partitioner", "Vulkan"], "vulkan"),
        (["--model", "builtin:DETR-SINE"], "detr-sine"),
    ],
)
def test_a_case_only_difference_gets_one_did_you_mean(
    args: List[str], meant: str, tmp_path: Path
) -> None:
    refusal = _refused_early(args, tmp_path)

    assert refusal.count("did you mean") == 1
    assert f"did you mean {meant!r}?" in refusal


@pytest.mark.parametrize("given", ["", "  "])
def test_an_empty_model_is_refused_not_taken_for_the_built_in_one(
    given: str, tmp_path: Path
) -> None:
    refusal = _refused_early(["--model", given], tmp_path)

    assert refusal == (
        f"exportpass-fix check: refused: --model {given!r} names no model;"
        " give PATH.pt2, package.module:name or builtin:NAME"
    )


def test_a_module_spec_without_its_name_is_told_to_add_it(tmp_path: Path) -> None:
    refusal = _refused_early(["--model", "nu9.rope"], tmp_path)

    assert refusal == (
        "exportpass-fix check: refused: nu9.rope: no such file;"
        " to name a model in module nu9.rope, give nu9.rope:NAME"
    )
    assert "give" not in _refused_early(["--model", "gone.pt2"], tmp_path)


def _files(tmp_path: Path) -> dict:
    """Each kind of file a user may pass instead of a .pt2, and its name."""
    scripted = tmp_path / "scripted.pt"
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), str(scripted))
    # A stand-in .pte: the 8 bytes of a flatbuffer header with ExecuTorch's
    # file identifier, as to_executorch().buffer starts.
    pte = tmp_path / "model.pte"
    pte.write_bytes(b"<\x00\x00\x00ET12" + bytes(56))
    header = b'{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(struct.pack("<Q", len(header)) + header + bytes(4))
    empty = tmp_path / "empty.pt2"
    empty.write_bytes(b"")
    source = tmp_path / "model.py"
    source.write_text("import torch\n")
    pickled = tmp_path / "model.pkl"
    pickled.write_bytes(pickle.dumps({"weights": [1.0, 2.0]}))
    return {
        "torchscript": (scripted, "is a TorchScript file (torch.jit.save)"),
        "pte": (pte, "is an ExecuTorch program (.pte)"),
        "safetensors": (weights, "is a safetensors file"),
        "empty": (empty, "is empty"),
        "python source": (source, "is Python source (name a model in it as"),
        "pickle": (pickled, "is a pickle file (pickle.dump), not a .pt2 archive"),
    }


@pytest.mark.parametrize(
    "kind", ["torchscript", "pte", "safetensors", "empty", "python source", "pickle"]
)
def test_each_kind_of_file_is_named_for_what_it_is(kind: str, tmp_path: Path) -> None:
    path, named = _files(tmp_path)[kind]

    refusal = _refused_early(["--model", path.name], tmp_path)

    assert named in refusal
    assert "torch.save" not in refusal.split(";")[0]


def test_an_unknown_option_is_named_by_its_command(tmp_path: Path) -> None:
    refusal = _refused_early(["--partitioners", "vulkan"], tmp_path)

    assert refusal == (
        "exportpass-fix check: refused: unrecognized arguments: --partitioners vulkan"
    )


@pytest.mark.once
def test_an_unwritable_stdout_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [str(SCRIPT), "check", "--json"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            timeout=900,
        )

    assert done.returncode == 2, done.stderr
    lines = [x for x in done.stderr.splitlines() if not x.startswith("[")]
    assert lines == [
        "exportpass-fix check: refused: cannot write the result to stdout:"
        " No space left on device"
    ], done.stderr
