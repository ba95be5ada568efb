"""The backport on the installed ExecuTorch, in this process and via the hook."""

import importlib.metadata
import importlib.util
import inspect
import subprocess
import sys
import tempfile
import types
from pathlib import Path
from typing import Iterator

import exportpass_fix
import pytest
from exportpass_fix.backport import autoapply, replace_call as backport
from exportpass_fix.shared.fix_source import FIX_FILE, fixed_call_text, PASS_BASE
from exportpass_fix.shared.installed import ENV_VAR, environ_without_hook
from trees import executorch_dir, wheel_texts, with_earlier_fix

pass_base = pytest.importorskip("executorch.exir.pass_base")


@pytest.fixture(autouse=True)
def unpatched_process() -> Iterator[None]:
    """Each test starts and ends with the installed, unfixed ``call``."""
    original = pass_base._ExportPassBase.__dict__["call"]
    exportpass_fix.revert()
    assert not exportpass_fix.is_fixed()
    yield
    exportpass_fix.revert()
    pass_base._ExportPassBase.call = original


def test_apply_fixes_the_issue_repro_and_revert_undoes_it() -> None:
    original = pass_base._ExportPassBase.__dict__["call"]

    assert exportpass_fix.apply() == backport.APPLIED
    assert exportpass_fix.is_fixed()
    assert exportpass_fix.revert() is True
    assert pass_base._ExportPassBase.__dict__["call"] is original
    assert not exportpass_fix.is_fixed()


def test_apply_twice_is_apply_once() -> None:
    assert exportpass_fix.apply() == backport.APPLIED
    installed = pass_base._ExportPassBase.__dict__["call"]

    assert exportpass_fix.apply() == backport.ALREADY_APPLIED
    assert pass_base._ExportPassBase.__dict__["call"] is installed
    assert exportpass_fix.revert() is True
    assert exportpass_fix.revert() is False
    assert not exportpass_fix.is_fixed()


def test_context_manager_reverts_even_on_error() -> None:
    with pytest.raises(RuntimeError, match="inside"):
        with exportpass_fix.applied() as status:
            assert status == backport.APPLIED and exportpass_fix.is_fixed()
            raise RuntimeError("inside")
    assert not exportpass_fix.is_fixed()


def test_backport_installs_the_code_the_patch_splices_upstream(patched: dict) -> None:
    if fixed_call_text() not in patched[PASS_BASE]:
        pytest.skip("1.0.x: the fix is spliced into its own call (test_known_calls)")
    exportpass_fix.apply()
    installed = pass_base._ExportPassBase.__dict__["call"]

    assert installed.__code__.co_filename == str(FIX_FILE)
    assert inspect.getsource(installed) == fixed_call_text()
    assert fixed_call_text() in patched[PASS_BASE]
    # Names resolve in the installed module, as in the patched upstream file.
    assert installed.__globals__ is vars(pass_base)
    assert installed.__qualname__ == "_ExportPassBase.call"


def _module_with_call(source: str, name: str) -> types.ModuleType:
    """A stand-in pass_base module whose ``_ExportPassBase.call`` is ``source``."""
    module = types.ModuleType(name)
    module.__dict__.update(vars(pass_base))
    module.__name__ = name
    path = Path(tempfile.mkdtemp()) / f"{name}.py"
    path.write_text(f"class _ExportPassBase:\n{source}")
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), vars(module), namespace)
    module._ExportPassBase = namespace["_ExportPassBase"]
    return module


def test_unknown_call_is_refused_and_nothing_changes() -> None:
    unknown = _module_with_call(
        "    def call(self, graph_module):\n        return None\n", "edited_pass_base"
    )
    before = unknown._ExportPassBase.__dict__["call"]

    with pytest.raises(exportpass_fix.BackportRefused) as refusal:
        backport.apply_to(unknown)

    message = str(refusal.value)
    assert f"executorch {exportpass_fix.installed_version()}" in message
    assert "not a version the backport knows" in message
    assert "ExecuTorch 1.0.0 to 1.5.1" in message
    assert unknown._ExportPassBase.__dict__["call"] is before
    assert backport._State.installed is None


def _module_from_text(directory, name: str, text: str) -> types.ModuleType:
    path = directory / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_executorch_that_has_the_fix_is_left_alone(patched: dict, tmp_path) -> None:
    fixed_module = _module_from_text(tmp_path, "fixed_pass_base", patched[PASS_BASE])
    before = fixed_module._ExportPassBase.__dict__["call"]

    assert backport.apply_to(fixed_module) == backport.FIXED_UPSTREAM
    assert fixed_module._ExportPassBase.__dict__["call"] is before
    assert backport._State.installed is None


def test_an_earlier_version_of_this_fix_is_recognised(tmp_path) -> None:
    earlier_module = _module_from_text(
        tmp_path, "earlier_pass_base", with_earlier_fix(wheel_texts())[PASS_BASE]
    )
    before = earlier_module._ExportPassBase.__dict__["call"]

    status = backport.apply_to(earlier_module)

    assert status == backport.EARLIER_FIX
    assert status == "already fixed (earlier version of this fix)"
    assert earlier_module._ExportPassBase.__dict__["call"] is before
    assert backport._State.installed is None


def _python(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = environ_without_hook()
    environment.update(env)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=environment
    )


IMPORT_AND_REPORT = (
    "import executorch.exir.pass_base, exportpass_fix;"
    " print('fixed' if exportpass_fix.is_fixed() else 'unfixed')"
)


def test_env_var_applies_the_fix_when_pass_base_is_imported() -> None:
    on = _python("-c", IMPORT_AND_REPORT, EXPORTPASS_FIX="1")
    off = _python("-c", IMPORT_AND_REPORT)

    assert on.stdout.strip().splitlines()[-1:] == ["fixed"], on.stderr[-2000:]
    assert off.stdout.strip().splitlines()[-1:] == ["unfixed"], off.stderr[-2000:]


@pytest.mark.parametrize("env_value", ["", "1"])
def test_interpreter_start_imports_no_torch_or_executorch(env_value: str) -> None:
    started = _python("-X", "importtime", "-c", "pass", EXPORTPASS_FIX=env_value)
    imported = {
        line.rsplit("|", 1)[-1].strip()
        for line in started.stderr.splitlines()
        if line.startswith("import time:")
    }

    assert started.returncode == 0
    assert "site" in imported  # the .pth files were processed
    assert not {m for m in imported if m.split(".")[0] in ("torch", "executorch")}
    # With the variable too: the .pth's own finder, no module of the package.
    assert not {m for m in imported if m.startswith("exportpass_fix")}


# The finder first on sys.meta_path at start-up, and the modules loaded.
SHOW_START = (
    "import sys; f = sys.meta_path[0];"
    " print(type(f).__module__, getattr(type(f), 'exportpass_fix_hook', None));"
    " print(' '.join(sorted(sys.modules)))"
)


@pytest.mark.parametrize(
    "value", [*autoapply.YES, "TRUE", " On ", "yes\n", *autoapply.NO, " OFF", ""]
)
def test_the_hook_at_start_up_loads_no_module(value: str) -> None:
    # What EXPORTPASS_FIX costs a program that never imports ExecuTorch: once
    # ~32 modules (importlib.abc and importlib.resources, tempfile, random,
    # bz2, lzma), then 3 (the package, backport and autoapply, compiled at
    # each start where bytecode is not written); now the .pth's own finder
    # for a yes, nothing for a no, and no module either way.
    plain = _python("-c", SHOW_START)
    started = _python("-c", SHOW_START, EXPORTPASS_FIX=value)

    assert (started.returncode, started.stderr) == (0, ""), started.stderr
    finder, modules = started.stdout.splitlines()
    plain_finder, plain_modules = plain.stdout.splitlines()
    if value.strip().lower() in autoapply.YES:
        assert finder == f"{autoapply.PTH_NAMESPACE} True"
    else:
        assert finder == plain_finder
    assert set(modules.split()) - set(plain_modules.split()) == set()
    assert autoapply.ENV_VAR == ENV_VAR  # its own copy, to import nothing


def test_pth_hook_is_installed_in_site_packages() -> None:
    import site

    pth_files = [
        Path(directory) / "exportpass_fix.pth"
        for directory in site.getsitepackages()
        if (Path(directory) / "exportpass_fix.pth").exists()
    ]
    assert pth_files, "pip install did not put exportpass_fix.pth in site-packages"
    assert "EXPORTPASS_FIX" in pth_files[0].read_text()
    assert executorch_dir().exists()


def test_a_call_without_readable_source_is_refused() -> None:
    namespace: dict = {}
    exec(
        compile(
            "class _ExportPassBase:\n    def call(self, gm): pass\n", "<x>", "exec"
        ),
        {},
        namespace,
    )
    module = types.ModuleType("sourceless_pass_base")
    module._ExportPassBase = namespace["_ExportPassBase"]
    before = module._ExportPassBase.__dict__["call"]

    with pytest.raises(exportpass_fix.BackportRefused, match="cannot read the source"):
        backport.apply_to(module)
    assert module._ExportPassBase.__dict__["call"] is before


def test_a_newer_executorch_is_judged_by_its_call_not_its_version(
    monkeypatch: pytest.MonkeyPatch, patched: dict, tmp_path: Path
) -> None:
    # No upper cap on the dependency: a release newer than any known one gets
    # what its call deserves, and the refusal names it.
    real_version = importlib.metadata.version
    monkeypatch.setattr(
        importlib.metadata,
        "version",
        lambda name: "9.0.0" if name == "executorch" else real_version(name),
    )
    assert exportpass_fix.installed_version() == "9.0.0"

    assert exportpass_fix.apply() == backport.APPLIED  # the known unfixed call
    assert exportpass_fix.is_fixed()
    exportpass_fix.revert()
    fixed_module = _module_from_text(tmp_path, "newer_fixed", patched[PASS_BASE])
    assert backport.apply_to(fixed_module) == backport.FIXED_UPSTREAM
    unknown = _module_with_call(
        "    def call(self, graph_module):\n        return None\n", "newer_edited"
    )
    with pytest.raises(exportpass_fix.BackportRefused, match="executorch 9.0.0"):
        backport.apply_to(unknown)
    assert backport._State.installed is None
