"""Each kind of file given as ``--model`` is named for what it is, and a
``.pt2`` whose saved example inputs do not fit its program is refused
before anything is lowered (not blamed on the ``.pte`` at the run step).
"""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import torch
from exportpass_fix.diagnosis.loading.pt2_file import BadModel, refuse_unreadable_pt2
from exportpass_fix.diagnosis.models.catalog import build

SCRIPT = Path(sys.executable).with_name("exportpass-fix")
# The entries of a package aoti_compile_and_package wrote here (torch
# 2.13.0, a Linear; it compiles C++ for ~36 s): a stand-in with its names.
AOTI_ENTRIES = [
    "data/aotinductor/model/c4h.wrapper.cpp",
    "data/aotinductor/model/c4h.wrapper.so",
    "data/aotinductor/model/c4h.wrapper_metadata.json",
    "archive_format",
    "archive_version",
    ".data/version",
    "byteorder",
]


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pt2")
    model, args = build("issue-reduced")
    torch.export.save(torch.export.export(model, args), str(folder / "model.pt2"))
    return folder


@pytest.mark.parametrize("cut", [20, 100, 500])
def test_a_pt2_cut_short_is_named_truncated_before_torch(
    cut: int, saved: Path, tmp_path: Path
) -> None:
    whole = (saved / "model.pt2").read_bytes()
    (tmp_path / "cut.pt2").write_bytes(whole[:-cut])
    script = (
        "import sys; from pathlib import Path\n"
        "from exportpass_fix.diagnosis.loading.pt2_file import refuse_unreadable_pt2\n"
        "try:\n    refuse_unreadable_pt2(Path('cut.pt2'))\n"
        "except ValueError as bad:\n    print(bad)\n"
        "print(any(m.split('.')[0] == 'torch' for m in sys.modules))\n"
    )

    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path
    )

    refusal, torch_imported = done.stdout.splitlines()
    assert refusal.startswith("cut.pt2 is a truncated zip archive"), refusal
    assert "torch.save" not in refusal and torch_imported == "False"


def test_an_aotinductor_package_is_named_so(tmp_path: Path) -> None:
    package = tmp_path / "compiled.pt2"
    with zipfile.ZipFile(package, "w") as archive:
        for entry in AOTI_ENTRIES:
            archive.writestr(f"compiled/{entry}", "pt2" if "format" in entry else "")

    with pytest.raises(BadModel) as refused:
        refuse_unreadable_pt2(package)

    assert "is an AOTInductor package (aoti_compile_and_package)" in str(refused.value)
    assert "corrupt" not in str(refused.value)


def test_a_saved_program_still_loads(saved: Path) -> None:
    refuse_unreadable_pt2(saved / "model.pt2")  # raises nothing


@pytest.mark.once
def test_saved_inputs_that_do_not_fit_are_refused_before_lowering(
    tmp_path: Path,
) -> None:
    model, args = build("issue-reduced")
    program = torch.export.export(model, args)
    program._example_inputs = ((torch.randn(3, 7),), {})
    torch.export.save(program, str(tmp_path / "misfit.pt2"))

    done = subprocess.run(
        [str(SCRIPT), "check", "--model", "misfit.pt2"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )

    assert done.returncode == 2, done.stdout + done.stderr
    refusal = done.stderr.strip().splitlines()[-1]
    assert refusal == (
        "exportpass-fix check: refused: misfit.pt2's saved example inputs do not"
        " fit its program: input 0 (x) is float32 [3, 7], where the program takes"
        " float32 [4, 128]; save the program with the inputs it was exported with"
    )
    assert "to_edge_transform_and_lower" not in done.stderr
