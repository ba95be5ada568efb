"""apply() checks what it installed: #22309's graph through the installed
ExportPass, once per process; anything but one fake mode puts the original
back and refuses, in this process, under threads and via the hook."""

import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Iterator, List, Optional

import exportpass_fix
import pytest
import torch
from exportpass_fix.backport import identify, replace_call as backport
from exportpass_fix.shared.installed import environ_without_hook
from torch._subclasses.fake_tensor import FakeTensor

pass_base = pytest.importorskip("executorch.exir.pass_base")
constant_subgraph = pytest.importorskip(
    "exportpass_fix.diagnosis.checking.constant_subgraph"
)
cls = pass_base._ExportPassBase


@pytest.fixture(autouse=True)
def unpatched_and_unchecked() -> Iterator[None]:
    """Each test starts with the unfixed ``call`` and no check run yet."""
    exportpass_fix.revert()  # first: an earlier module may leave the fix on
    original = cls.__dict__["call"]
    assert not exportpass_fix.is_fixed()
    checked = set(backport._State.checked)
    backport._State.checked.clear()
    yield
    exportpass_fix.revert()
    cls.call = original
    backport._State.checked.update(checked)


def _no_python_dispatcher() -> None:
    raise RuntimeError("simulated torch: the python dispatcher cannot be enabled")


def _lowering_outcome() -> str:
    try:
        return f"lowered, {constant_subgraph.lower_constant_subgraph()} delegate(s)"
    except Exception as error:  # first line: 1.0.x appends the caller's stack
        first = (str(error).splitlines() or [""])[0]
        return re.sub(r"0x[0-9a-f]+", "0x…", f"{type(error).__name__}: {first}")


def test_apply_checks_its_fix_once_per_process(monkeypatch) -> None:
    # Pins: the first apply() runs the graph through the fix as
    # installed on the class; later applies reuse that verdict.
    seen: List[object] = []

    def check(module: object) -> Optional[str]:
        seen.append(cls.__dict__["call"])
        return identify.check_installed(module)  # type: ignore[arg-type]

    monkeypatch.setattr(backport, "check_installed", check)

    assert exportpass_fix.apply() == backport.APPLIED
    assert seen == [cls.__dict__["call"]] and seen[0] is backport._State.installed
    assert exportpass_fix.revert() is True
    assert exportpass_fix.apply() == backport.APPLIED
    assert len(seen) == 1


def test_an_unsuitable_torch_is_refused_with_the_original_back(monkeypatch) -> None:
    # Pins: a torch the fix does not suit (simulated: the python dispatcher the
    # fix enters for a recovered mode raises) gets BackportRefused naming what
    # the check saw and both versions; the original call is back, nothing is
    # installed, and lowering behaves exactly as it does unpatched.
    original = cls.__dict__["call"]
    unpatched = _lowering_outcome()
    monkeypatch.setattr(pass_base, "enable_python_dispatcher", _no_python_dispatcher)

    with pytest.raises(exportpass_fix.BackportRefused) as refusal:
        exportpass_fix.apply()
    with pytest.raises(exportpass_fix.BackportRefused):
        with exportpass_fix.applied():
            pass
    monkeypatch.undo()

    message = str(refusal.value)
    assert f"executorch {exportpass_fix.installed_version()}" in message
    assert f"torch {torch.__version__}" in message
    assert "ExportPass raised RuntimeError: simulated torch" in message
    assert cls.__dict__["call"] is original
    assert backport._State.installed is None and not backport._State.checked
    assert not exportpass_fix.is_fixed()
    assert not unpatched.startswith("lowered")  # #22309, unpatched
    assert _lowering_outcome() == unpatched


def test_a_constant_that_carries_no_value_still_gets_the_fix(monkeypatch) -> None:
    # Pins: where the placeholders' constants carry no value (simulated: a
    # FakeTensor whose ``constant`` is a meta tensor), the fix still keeps one
    # mode, so the check lets it stand.
    def meta_only(self: FakeTensor) -> Optional[torch.Tensor]:
        value = self.__dict__.get("_simulated_constant")
        if value is None:
            return None
        return torch.empty(value.shape, dtype=value.dtype, device="meta")

    def keep(self: FakeTensor, value: Optional[torch.Tensor]) -> None:
        self.__dict__["_simulated_constant"] = value

    monkeypatch.setattr(FakeTensor, "constant", property(meta_only, keep), False)

    assert exportpass_fix.apply() == backport.APPLIED
    assert exportpass_fix.is_fixed()


def test_a_check_in_progress_holds_other_threads_off(monkeypatch) -> None:
    # Pins: while one thread's check runs, another apply() waits for it; after
    # a failed check each is refused and the original is back.
    original = cls.__dict__["call"]
    in_check, go = threading.Event(), threading.Event()
    outcomes: List[str] = []

    def failing_check(module: object) -> str:
        if not in_check.is_set():
            in_check.set()
            assert go.wait(10)
        return "simulated: ExportPass left 2 FakeTensorModes in its graph, not 1"

    def apply() -> None:
        try:
            outcomes.append(exportpass_fix.apply())
        except exportpass_fix.BackportRefused as refusal:
            outcomes.append(f"refused: {refusal}")

    monkeypatch.setattr(backport, "check_installed", failing_check)
    threads = [threading.Thread(target=apply) for _ in range(2)]
    threads[0].start()
    assert in_check.wait(10)
    threads[1].start()
    threads[1].join(0.5)
    assert threads[1].is_alive() and outcomes == []  # it waits for the check
    go.set()
    for thread in threads:
        thread.join(10)

    assert len(outcomes) == 2
    assert all("simulated: ExportPass left 2" in o for o in outcomes), outcomes
    assert cls.__dict__["call"] is original and backport._State.installed is None


# A user's script: the hook's check fails (simulated), and the import goes on.
CHECK_FAILS_AT_IMPORT = """\
from exportpass_fix.backport import replace_call
replace_call.check_installed = lambda module: "simulated: 2 FakeTensorModes"
import executorch.exir.pass_base  # the user's import
import exportpass_fix
print("imported", "fixed" if exportpass_fix.is_fixed() else "unfixed")
"""


def test_the_hook_turns_a_failed_check_into_its_usual_warning(tmp_path: Path) -> None:
    # Pins: EXPORTPASS_FIX=1 with a failed check warns at the user's import
    # line, completes the import and leaves the unfixed call in place.
    script = tmp_path / "export_model.py"
    script.write_text(CHECK_FAILS_AT_IMPORT)
    environment = dict(environ_without_hook(), EXPORTPASS_FIX="1")

    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=environment
    )

    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1:] == ["imported unfixed"]
    refusal = [line for line in run.stderr.splitlines() if "not applied" in line]
    assert len(refusal) == 1, run.stderr[-2000:]
    assert refusal[0].startswith(f"{script}:3: UserWarning: EXPORTPASS_FIX is set")
    assert f"torch {torch.__version__}" in refusal[0]
    assert "simulated: 2 FakeTensorModes" in refusal[0]
