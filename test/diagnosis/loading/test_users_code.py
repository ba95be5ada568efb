"""Whatever a ``--model`` module does instead of giving a model, ``check``
refuses it in one line, exit status 2, naming what the code did: it never
says "not affected" (exit 0) for a program it did not lower.

The modules that end the process (``sys.exit``, ``os._exit``, ``argparse``)
run through the command, whose preflight child loads them before ExecuTorch
is imported (about 2 s each); what raises is loaded here, in this process.
"""

import subprocess
import sys
from pathlib import Path

import pytest
from exportpass_fix.diagnosis.checking.findings import failure
from exportpass_fix.diagnosis.loading.model_spec import BadModel, load_model

MODULES = {
    "exits_at_import": "import sys\nsys.exit(0)\n",
    "ends_at_import": "import os\nos._exit(0)\n",
    "exits_three": "import sys\nsys.exit(3)\n",
    "raises_at_import": 'raise RuntimeError("no GPU here\\nmore")\n',
    "not_python": "def broken(:\n    pass\n",
    "parses_arguments": (
        "import argparse\n"
        "parser = argparse.ArgumentParser()\n"
        'parser.add_argument("--checkpoint", required=True)\n'
        "parser.parse_args()\n"
    ),
    "builders": (
        "def exits():\n    raise SystemExit(0)\n\n\n"
        "def needs(size, depth=2):\n    return None\n\n\n"
        "def raises():\n    raise ValueError('bad config')\n\n\n"
        "def nothing():\n    print('built')\n"
    ),
    "wrong_type": "answer = 42\n",
    "talks_then_raises": (
        "import sys\n"
        'print("reading config.yaml")\n'
        'print("no GPU: using the CPU", file=sys.stderr)\n'
        'raise RuntimeError("giving up")\n'
    ),
    "two_for_one": (
        "import torch\n\n\n"
        "class One(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x + 1\n\n\n"
        "def model():\n"
        "    x = torch.randn(2)\n"
        "    return One(), (x, x)\n"
    ),
    "prints": (
        'print("{ not a record, and not on stdout")\n'
        "from exportpass_fix.diagnosis.models.catalog import build\n\n\n"
        "def model():\n"
        '    print("building")\n'
        '    return build("issue-reduced")\n'
    ),
}


@pytest.fixture
def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in MODULES.items():
        (tmp_path / f"{name}.py").write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.once
@pytest.mark.parametrize(
    "spec, said",
    [
        ("exits_at_import:m", "importing 'exits_at_import' exited with status 0"),
        (
            "ends_at_import:m",
            "importing 'ends_at_import' ended the process (exit status 0)",
        ),
        ("builders:exits", "calling builders:exits() exited with status 0"),
        (
            "parses_arguments:m",
            "importing 'parses_arguments' exited with status 2 (SystemExit):"
            " parses_arguments: error: the following arguments are required:"
            " --checkpoint",
        ),
    ],
)
def test_a_module_that_ends_the_process_is_refused_not_passed(
    spec: str, said: str, models: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "check", "--model", spec],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=models,
    )

    assert done.returncode == 2, done.stdout + done.stderr
    refusal = done.stderr.strip().splitlines()[-1]
    assert refusal.startswith("python -m exportpass_fix check: refused: " + said)
    assert done.stdout == "" and "not affected" not in done.stderr


@pytest.mark.parametrize(
    "spec, said",
    [
        ("exits_three:m", "importing 'exits_three' exited with status 3 (SystemExit)"),
        ("raises_at_import:m", "importing 'raises_at_import' raised RuntimeError:"),
        ("not_python:m", "importing 'not_python' raised SyntaxError: invalid syntax"),
        ("builders:needs", "builders:needs takes argument(s) size; check calls it"),
        ("builders:raises", "calling builders:raises() raised ValueError: bad config"),
        ("no_such_module:m", "cannot import 'no_such_module'"),
        ("wrong_type:answer", "wrong_type:answer is an int, not an ExportedProgram"),
        (
            "builders:nothing",
            "builders:nothing() returned None, not an ExportedProgram or a"
            " (torch.nn.Module, example_args) pair",
        ),
    ],
)
def test_a_module_that_raises_is_refused_with_what_it_raised(
    spec: str, said: str, models: Path
) -> None:
    with pytest.raises(BadModel) as refused:
        load_model(spec)

    assert str(refused.value).startswith(said), refused.value
    assert "\n" not in str(refused.value)


def test_a_module_that_prints_is_loaded_and_its_output_kept_off_stdout(
    models: Path, capfd: pytest.CaptureFixture
) -> None:
    argv = list(sys.argv)

    model = load_model("prints:model")

    out, err = capfd.readouterr()
    assert model.how == "exported prints:model"
    assert out == "" and "not on stdout" in err and "building" in err
    assert sys.argv == argv


def test_a_failed_export_is_named_by_what_torch_raised_not_what_it_hid(
    models: Path,
) -> None:
    # torch raises TypeError "from None" inside an except StopIteration: the
    # StopIteration is a context Python does not show, nor does check.
    with pytest.raises(TypeError) as raised:
        load_model("two_for_one:model")

    said = failure(raised.value)["error"]

    assert said == "TypeError: too many positional arguments", said


@pytest.mark.once
def test_what_the_model_prints_as_check_loads_it_is_on_checks_stderr(
    models: Path,
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "check"]
        + ["--model", "talks_then_raises:m"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=models,
    )

    assert done.returncode == 2 and done.stdout == "", done.stderr
    lines = done.stderr.strip().splitlines()
    # Once, as printed, before the refusal (the last line, as ever).
    assert lines[-3:-1] == ["reading config.yaml", "no GPU: using the CPU"], lines
    assert done.stderr.count("reading config.yaml") == 1
    assert lines[-1].startswith(
        "python -m exportpass_fix check: refused: importing 'talks_then_raises'"
        " raised RuntimeError: giving up"
    )
