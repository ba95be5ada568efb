"""``check`` names the user's code behind a trigger-shaped delegate.

A model with a sine table in a submodule ``pos``, written to a file of its
own and saved with ``torch.export.save`` as a user saves theirs: ``check``
names the submodule and the source lines of the table's input-independent
ops, innermost user frame first, from the metadata the program keeps.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

MODEL = """import torch


class Sine(torch.nn.Module):
    def forward(self, x):
        t = torch.arange(16, dtype=torch.float32)
        freqs = torch.pow(10000.0, -t / 16)
        table = torch.sin(t[:, None] * freqs[None, :])
        return x + table


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = Sine()
        self.linear = torch.nn.Linear(16, 16)

    def forward(self, x):
        return self.linear(self.pos(x))
"""
SAVE = (
    "import torch, sine_model\n"
    "ep = torch.export.export(sine_model.M(), (torch.randn(16, 16),))\n"
    "torch.export.save(ep, 'sine.pt2')\n"
)
# The lines check prints under "where in your code:" (run in the model's folder).
WHERE = [
    "    pos (sine_model.Sine) sine_model.py:6:",
    "      t = torch.arange(16, dtype=torch.float32)",
    "    pos (sine_model.Sine) sine_model.py:7:",
    "      freqs = torch.pow(10000.0, -t / 16)",
]


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory holding sine_model.py and the program saved from it."""
    folder = tmp_path_factory.mktemp("user")
    (folder / "sine_model.py").write_text(MODEL)
    subprocess.run([sys.executable, "-c", SAVE], cwd=folder, check=True, timeout=600)
    return folder


def _check(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "check", "--model", "sine.pt2"]
        + ["--partitioner", "vulkan", *args],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=folder,
    )


@pytest.mark.once
def test_the_table_names_the_submodule_and_the_source_lines(saved: Path) -> None:
    done = _check(saved)

    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert max(map(len, lines)) <= 100
    where = lines[lines.index("  where in your code:") + 1 :][:4]
    assert where == WHERE, done.stdout
    assert not [line for line in lines if "sine_model.py:19" in line]
    assert "changed after" not in done.stdout  # saved after its source


@pytest.mark.once
def test_a_source_edited_after_the_pt2_was_saved_is_said_to_be(
    saved: Path, tmp_path: Path
) -> None:
    older = tmp_path / "older.pt2"
    shutil.copyfile(saved / "sine.pt2", older)
    edited = (saved / "sine_model.py").stat().st_mtime
    os.utime(older, (edited - 60, edited - 60))

    done = subprocess.run(
        [sys.executable, "-m", "exportpass_fix", "check", "--model", str(older)]
        + ["--partitioner", "vulkan", "--full"],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=saved,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    notes = [line for line in lines if "changed after" in line]
    assert notes == [
        "note: sine_model.py changed after older.pt2 was saved: the lines above"
        " are as they were then, and may have moved"
    ], done.stdout
    assert lines.index(notes[0]) > lines.index("  where in your code:")


def test_the_json_names_each_source_once_with_its_callers(saved: Path) -> None:
    done = _check(saved, "--json")

    assert done.returncode == 0, done.stdout + done.stderr
    (trigger,) = json.loads(done.stdout)["diagnosis"]["trigger_submodules"]
    sources = trigger["where"]["sources"]
    assert [(s["module"], s["module_class"], s["line"]) for s in sources] == [
        ("pos", "sine_model.Sine", 6),
        ("pos", "sine_model.Sine", 7),
    ]
    assert sources[0]["file"] == str(saved / "sine_model.py")
    assert sources[0]["code"] == "t = torch.arange(16, dtype=torch.float32)"
    assert [c["line"] for c in sources[0]["callers"]] == [19]
    assert trigger["where"]["note"] is None


def test_frames_inside_torch_are_not_the_users(saved: Path) -> None:
    from exportpass_fix.diagnosis.checking.constant_subgraph import where

    program = torch.export.load(str(saved / "sine.pt2"))
    (linear,) = [n for n in program.graph.nodes if n.name == "linear"]

    (source,) = where([linear], {})["sources"]

    assert (source["module"], source["line"]) == ("linear", 19)
    assert source["code"] == "return self.linear(self.pos(x))"


def test_without_metadata_it_says_so_instead_of_guessing(saved: Path) -> None:
    from exportpass_fix.diagnosis.checking.constant_subgraph import where

    program = torch.export.load(str(saved / "sine.pt2"))
    ops = [n for n in program.graph.nodes if n.op == "call_function"]
    for node in ops:
        node.meta.pop("stack_trace", None)
        node.meta.pop("nn_module_stack", None)

    found = where(ops, {})

    assert found["sources"] == []
    assert found["note"].startswith("unknown: the program carries no stack_trace")


NO_GRAD_MODEL = """import torch


class Table(torch.nn.Module):
    def forward(self, x):
        with torch.no_grad():
            t = torch.arange(128, dtype=torch.float32)
            freqs = torch.pow(10000.0, -t / 128)
        return x + torch.sin(freqs)
"""


# Measured on torch 2.13.0 (1.5.1, 1.4.1); how torch 2.9.1 (1.0.x) records an
# inlined body was not measured here.
@pytest.mark.once
def test_a_table_computed_under_no_grad_is_read_from_the_users_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # torch.no_grad() in forward puts the table in a higher-order op's body;
    # lowering inlines it, and its nodes then carry generated code's frame.
    from executorch.exir import to_edge
    from exportpass_fix.diagnosis.checking.constant_subgraph import nested_traces, where

    (tmp_path / "no_grad_model.py").write_text(NO_GRAD_MODEL)
    monkeypatch.syspath_prepend(str(tmp_path))
    from no_grad_model import Table  # type: ignore[import-not-found]

    program = torch.export.export(Table(), (torch.randn(4, 128),))
    edge = to_edge(program).exported_program()
    table_ops = [n for n in edge.graph.nodes if "arange" in n.name or "pow" in n.name]

    found = where(table_ops, nested_traces(program))

    assert [(Path(s["file"]).name, s["line"]) for s in found["sources"]] == [
        ("no_grad_model.py", 7),
        ("no_grad_model.py", 8),
    ]
    assert found["sources"][1]["code"] == "freqs = torch.pow(10000.0, -t / 128)"


HELPER_MODEL = """import torch


def inverse(n):
    return 1.0 / torch.arange(1, n + 1, dtype=torch.float32)


class Rope(torch.nn.Module):
    def _table(self, n):
        return torch.outer(torch.arange(n, dtype=torch.float32), inverse(4))

    def forward(self, x):
        table = self._table(8)
        return x * torch.cos(table)
"""


def test_a_line_that_calls_a_helper_is_said_to_be_a_call(tmp_path: Path) -> None:
    # torch records the frames of modules' forward only: the helper's ops
    # carry line 13, which calls it; line 14 computes in place.
    from exportpass_fix.diagnosis.checking.text import where_lines

    model = tmp_path / "helper_model.py"
    model.write_text(HELPER_MODEL)
    lines = HELPER_MODEL.splitlines()
    sources = [
        {"module": "", "module_class": "Rope", "file": str(model), "line": n}
        for n in (13, 14, 10)
    ]
    for source in sources:
        source["code"] = lines[source["line"] - 1].strip()

    said = where_lines({"note": None, "sources": sources, "unlocated": []})

    calls = [line.strip() for line in said if line.strip().startswith("a call")]
    assert calls == [
        "a call: the ops are in _table() (torch records the frames of modules'"
        " forward only)",
        "a call: the ops are in inverse() (torch records the frames of modules'"
        " forward only)",
    ]
    assert said.index(f"      {sources[0]['code']}") + 1 == said.index(
        f"      {calls[0]}"
    )
