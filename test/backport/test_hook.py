"""The EXPORTPASS_FIX start-up hook: the values it takes, and a refusal or an
error of its own that never breaks the import it rides on."""

import multiprocessing
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import exportpass_fix
import pytest
from conftest import REPO
from exportpass_fix.backport import autoapply, identify, replace_call
from exportpass_fix.shared import known_calls
from exportpass_fix.shared.installed import environ_without_hook

pass_base = pytest.importorskip("executorch.exir.pass_base")

# A user's script whose import of pass_base the hook refuses (no known call).
REFUSED_IMPORT = """\
import exportpass_fix.shared.known_calls as known_calls
known_calls.UNFIXED_CALL_SHA256.clear()
import executorch.exir.pass_base  # the user's import
import exportpass_fix
print("imported", "fixed" if exportpass_fix.is_fixed() else "unfixed")
"""


def _python(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = environ_without_hook()
    environment.update(env)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=environment
    )


@pytest.fixture(autouse=True)
def unpatched_process() -> Iterator[None]:
    original = pass_base._ExportPassBase.__dict__["call"]
    yield
    exportpass_fix.revert()
    pass_base._ExportPassBase.call = original


@pytest.mark.parametrize("warnings_as_errors", [False, True])
def test_a_refusal_never_breaks_the_import_and_names_the_users_line(
    tmp_path: Path, warnings_as_errors: bool
) -> None:
    script = tmp_path / "export_model.py"
    script.write_text(REFUSED_IMPORT)
    flags = ["-W", "error::UserWarning"] if warnings_as_errors else []

    run = _python(*flags, str(script), EXPORTPASS_FIX="1")

    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1:] == ["imported unfixed"]
    refusal = [line for line in run.stderr.splitlines() if "not applied" in line]
    assert len(refusal) == 1, run.stderr[-2000:]
    if warnings_as_errors:  # on stderr, since a warning would raise
        assert refusal[0].startswith("exportpass_fix: EXPORTPASS_FIX is set")
    else:  # a warning located at the user's import, not at the hook
        assert refusal[0].startswith(f"{script}:3: UserWarning:")


@pytest.mark.filterwarnings("error")
def test_under_pytests_warnings_as_errors_a_refusal_goes_to_stderr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr(identify, "classify_call", lambda text: known_calls.UNKNOWN)

    autoapply.install()  # pass_base is imported already: applies now

    assert "not a version the backport knows" in capsys.readouterr().err
    assert not exportpass_fix.is_fixed()


@pytest.mark.filterwarnings("error")
def test_an_error_of_the_hooks_own_is_reported_not_raised(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    def broken(module: object) -> str:
        raise KeyError("call")

    monkeypatch.setattr(replace_call, "apply_to", broken)

    autoapply.install()

    assert "not applied: KeyError: 'call'" in capsys.readouterr().err


def test_under_plain_w_error_the_hook_changes_nothing_of_the_import() -> None:
    # Pins: with every warning an error, the import of executorch.exir ends
    # as it does without the variable (on 1.5.1 it fails on ExecuTorch's own
    # DeprecationWarning before pass_base is loaded; backport.md says so).
    script = "import executorch.exir.pass_base; print('imported')"
    runs = [_python("-W", "error", "-c", script, EXPORTPASS_FIX=v) for v in "01"]

    def outcome(run: subprocess.CompletedProcess) -> tuple:
        return run.returncode, run.stdout, run.stderr.strip().splitlines()[-1:]

    assert outcome(runs[1]) == outcome(runs[0]), runs[1].stderr[-2000:]
    assert "not applied" not in runs[1].stderr


# The .pth's finder, probed, then the user's import; the .pth run once more.
PROBE_IMPORT_AGAIN = """\
import sys
assert "exportpass_fix" not in sys.modules  # the .pth imported nothing
sys.meta_path[0].find_spec("executorch.exir.pass_base", None)  # a probe
import executorch.exir.pass_base  # the user's import
import exportpass_fix
exec(open(sys.argv[1]).read())  # site may run the .pth twice
hooks = [f for f in sys.meta_path if hasattr(type(f), "exportpass_fix_hook")]
print(len(hooks), exportpass_fix.is_fixed())
"""


def test_a_probe_leaves_the_pths_finder_armed_and_a_second_run_adds_none() -> None:
    run = _python(
        "-c", PROBE_IMPORT_AGAIN, str(REPO / "exportpass_fix.pth"), EXPORTPASS_FIX="1"
    )

    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1:] == ["1 True"]


def test_the_pth_applies_the_fix_at_once_when_pass_base_is_loaded_already() -> None:
    script = (
        "import os, sys, executorch.exir.pass_base, exportpass_fix;"
        " os.environ['EXPORTPASS_FIX'] = '1'; exec(open(sys.argv[1]).read());"
        " print(exportpass_fix.is_fixed())"
    )
    run = _python("-c", script, str(REPO / "exportpass_fix.pth"))

    assert run.stdout.strip().splitlines()[-1:] == ["True"], run.stderr[-2000:]


def test_when_the_pths_finder_cannot_import_the_package_the_import_goes_on() -> None:
    script = (
        "import sys; sys.modules['exportpass_fix'] = None;"
        " import executorch.exir.pass_base; print('imported')"
    )
    run = _python("-W", "error::UserWarning", "-c", script, EXPORTPASS_FIX="1")

    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1:] == ["imported"]
    refusal = [line for line in run.stderr.splitlines() if "not applied" in line]
    assert len(refusal) == 1, run.stderr[-2000:]
    assert refusal[0].startswith(
        "exportpass_fix: EXPORTPASS_FIX is set but the fix was not applied:"
        " ModuleNotFoundError:"
    )


def test_an_error_in_the_finders_answer_is_a_warning_at_the_users_line(
    tmp_path: Path,
) -> None:
    # The .pth's finder's frame, compiled from a string, is the hook's too.
    script = tmp_path / "export_model.py"
    script.write_text(
        "from exportpass_fix.backport import autoapply\n"
        "autoapply._spec_of_the_others = lambda *args: 1 / 0\n"
        "import executorch.exir.pass_base  # the user's import\n"
        "print('imported')\n"
    )
    run = _python(str(script), EXPORTPASS_FIX="1")

    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1:] == ["imported"]
    refusal = [line for line in run.stderr.splitlines() if "not applied" in line]
    assert len(refusal) == 1, run.stderr[-2000:]
    assert refusal[0].startswith(f"{script}:3: UserWarning:"), refusal


# Threads of a user's program importing pass_base and other modules at once.
THREADS = """\
import importlib, threading
names = ["executorch.exir.pass_base"] * 3 + ["json", "decimal", "csv", "fractions"]
barrier, failed = threading.Barrier(len(names)), []
def load(name):
    barrier.wait()
    try:
        importlib.import_module(name)
    except BaseException as error:
        failed.append(f"{name}: {error!r}")
threads = [threading.Thread(target=load, args=(name,)) for name in names]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
import exportpass_fix
print(failed, exportpass_fix.is_fixed(), exportpass_fix.apply())
"""


def test_imports_in_threads_all_complete_and_the_fix_is_applied_once() -> None:
    run = _python("-c", THREADS, EXPORTPASS_FIX="1")

    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1:] == ["[] True already applied"]
    assert "not applied" not in run.stderr


def test_true_applies_the_fix() -> None:
    run = _python(
        "-c",
        "import executorch.exir.pass_base, exportpass_fix;"
        " print(exportpass_fix.is_fixed())",
        EXPORTPASS_FIX="true",
    )
    assert run.stdout.strip().splitlines()[-1:] == ["True"], run.stderr[-2000:]


@pytest.mark.parametrize("value", ["1", "true", " On ", "YES", "yes\n"])
def test_the_usual_true_values_install_the_hook(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    installed = []
    monkeypatch.setattr(autoapply, "_read", False)
    monkeypatch.setattr(autoapply, "install", lambda: installed.append(True))
    monkeypatch.setenv("EXPORTPASS_FIX", value)

    autoapply.from_environment()

    assert installed == [True]


@pytest.mark.parametrize("value", ["maybe", "2", "enabled"])
def test_any_other_value_says_once_why_the_fix_is_not_applied(value: str) -> None:
    run = _python("-c", "pass", EXPORTPASS_FIX=value)

    assert run.returncode == 0
    assert run.stderr.splitlines() == [
        f"exportpass_fix: EXPORTPASS_FIX={value!r} is not one of 1, true, yes, on"
        " (or 0, false, no, off): the fix is not applied"
    ]


@pytest.mark.parametrize("value", ["0", "off", "  "])
def test_a_false_or_blank_value_is_quietly_off(value: str) -> None:
    run = _python("-c", "pass", EXPORTPASS_FIX=value)
    assert (run.returncode, run.stderr) == (0, "")


def test_python_dash_s_runs_no_hook() -> None:
    run = _python(
        "-S",
        "-c",
        "import sys; print('exportpass_fix' in str(sys.modules))",
        EXPORTPASS_FIX="1",
    )
    assert run.stdout.strip() == "False", run.stderr[-2000:]


def _worker_is_fixed() -> bool:
    import executorch.exir.pass_base  # noqa: F401 (the worker's own import)

    return exportpass_fix.is_fixed()


def test_spawned_workers_get_the_variable_not_the_parents_apply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    context = multiprocessing.get_context("spawn")
    exportpass_fix.apply()
    monkeypatch.delenv("EXPORTPASS_FIX", raising=False)
    with context.Pool(1) as pool:
        without_variable = pool.apply(_worker_is_fixed)
    monkeypatch.setenv("EXPORTPASS_FIX", "1")
    with context.Pool(1) as pool:
        with_variable = pool.apply(_worker_is_fixed)

    assert (without_variable, with_variable) == (False, True)
