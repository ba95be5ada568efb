"""prove's trees: a ref's ``exir/`` over the installed package, whose
``exir/tests`` holds the ref's test files only, not the newer ones of the
wheel (which would count in the ref's ``exir/tests`` run)."""

from pathlib import Path

from exportpass_fix.upstream.making.trees import linked_tree, run_pytest

from exportpass_fix.upstream.proving.prove import _ref_tree
from trees import executorch_dir


def test_the_wheels_test_files_the_ref_lacks_are_left_out(tmp_path: Path) -> None:
    package = executorch_dir()
    ref = {
        str(path.relative_to(package)): path.read_text(encoding="utf-8")
        for path in (package / "exir").rglob("*.py")
        if "__pycache__" not in path.parts
    }
    newer = "exir/tests/test_pass_infra.py"  # as if only the wheel had it
    del ref[newer]

    tree = _ref_tree(tmp_path / "tree", ref) / "executorch"

    assert not (tree / newer).exists()
    assert (tree / "exir/tests/test_passes.py").is_file()
    assert (tree / "exir/pass_base.py").is_file()  # a ref's file, written
    assert (tree / "backends").is_symlink()  # outside exir/: the package's


def test_the_tests_run_from_exir_at_the_root_as_in_a_checkout(tmp_path: Path) -> None:
    # As `python -m pytest exir/tests/...` in a checkout: a test file's path
    # is not inside the package (strict export's .module() differs there).
    probe = "from pathlib import Path\n\n\ndef test_where():\n"
    probe += "    assert Path(__file__).parents[2].name != 'executorch'\n"
    tree = linked_tree(tmp_path / "tree", {"exir/tests/test_probe.py": probe})
    run = run_pytest(tree, ["exir/tests/test_probe.py"])
    assert len(run.passed) == 1 and not run.failed, run.output[-2000:]
