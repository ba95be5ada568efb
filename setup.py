# The repository's exir/ directory is the import package exportpass_fix, the
# way ExecuTorch's own setup.py maps its exir/ onto executorch.exir. A bare
# top-level "exir" is never installed: it would shadow, or be shadowed by, an
# ExecuTorch checkout.
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.editable_wheel import editable_wheel

PTH = "exportpass_fix.pth"
PTH_SOURCE = str(Path(__file__).parent / PTH)


class BuildPyWithPth(build_py):
    """Puts exportpass_fix.pth at the top of site-packages, for the opt-in
    EXPORTPASS_FIX=1 activation (see exir/backport/autoapply.py)."""

    def run(self) -> None:
        super().run()
        self.copy_file(PTH_SOURCE, str(Path(self.build_lib) / PTH))

    def get_outputs(self, include_bytecode: bool = True) -> list:
        return [*super().get_outputs(include_bytecode), str(Path(self.build_lib) / PTH)]

    def get_output_mapping(self) -> dict:
        mapping = super().get_output_mapping()
        mapping[str(Path(self.build_lib) / PTH)] = PTH_SOURCE
        return mapping


class EditableWheelWithPth(editable_wheel):
    """The same .pth for `pip install -e`: an editable wheel carries what its
    unpacked directory holds, which is where setuptools puts its own .pth
    files for namespace packages."""

    def _install_namespaces(self, installation_dir: str, pth_prefix: str) -> None:
        super()._install_namespaces(installation_dir, pth_prefix)
        self.copy_file(PTH_SOURCE, str(Path(installation_dir) / PTH))


setup(
    package_dir={"exportpass_fix": "exir"},
    packages=[
        "exportpass_fix",
        "exportpass_fix.shared",
        "exportpass_fix.upstream",
        "exportpass_fix.upstream.making",
        "exportpass_fix.upstream.proving",
        "exportpass_fix.backport",
        "exportpass_fix.diagnosis",
        "exportpass_fix.diagnosis.checking",
        "exportpass_fix.diagnosis.evidence",
        "exportpass_fix.diagnosis.loading",
        "exportpass_fix.diagnosis.models",
        "exportpass_fix.survey",
    ],
    package_data={
        "exportpass_fix": ["tests/*.py"],
        "exportpass_fix.shared": ["*.json"],
        "exportpass_fix.upstream.making": ["*.md"],
    },
    cmdclass={"build_py": BuildPyWithPth, "editable_wheel": EditableWheelWithPth},
)
