"""executorch-exportpass-fix: the fix for pytorch/executorch#22309.

``pass_base.py`` and ``tests/test_pass_infra.py`` hold what this project
contributes to upstream's files of the same paths. The other modules are the
tooling around them: the patch maker (``python -m exportpass_fix patch``) and
the backport for installed wheels (``apply``, ``revert``, ``is_fixed``).
Importing this package imports neither torch nor executorch.
"""

from .backport import (  # noqa: F401
    applied,
    apply,
    BackportRefused,
    installed_version,
    is_fixed,
    revert,
)
