# The repository's exir/ directory is the import package exportpass_fix, the
# way ExecuTorch's own setup.py maps its exir/ onto executorch.exir. A bare
# top-level "exir" is never installed: it would shadow, or be shadowed by, an
# ExecuTorch checkout.
from setuptools import setup

setup(
    package_dir={"exportpass_fix": "exir"},
    packages=["exportpass_fix"],
    package_data={"exportpass_fix": ["tests/*.py"]},
)
