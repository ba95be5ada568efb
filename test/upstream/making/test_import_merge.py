"""The patch maker's import merge: only missing names, where usort puts them."""

import subprocess
import sys
from pathlib import Path

import pytest

from exportpass_fix.shared.fix_source import regression_test_source, TEST_PASS_INFRA
from exportpass_fix.upstream.making.import_merge import (
    import_block,
    ImportMergeError,
    merge_imports,
)
from trees import wheel_texts

pytestmark = pytest.mark.once

HEADER = "# pyre-strict\n\n"
BODY = "\n\nclass A:\n    pass\n"


def _merged(upstream_imports: str, ours: str) -> str:
    nodes, _ = import_block(ours)
    return merge_imports(HEADER + upstream_imports + BODY, nodes)


def _usort_clean(text: str, tmp_path: Path) -> bool:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.usort]\nfirst_party_detection = false\n"
    )
    (tmp_path / "m.py").write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "usort", "check", "m.py"], cwd=tmp_path
    )
    return done.returncode == 0


def test_a_name_upstream_imports_is_not_added_again() -> None:
    upstream = "import torch\nfrom torch.export import export\n"

    assert _merged(upstream, "from torch.export import export\n") == (
        HEADER + upstream + BODY
    )


def test_a_name_joins_the_statement_of_its_module(tmp_path: Path) -> None:
    upstream = "import torch\nfrom torch.fake import FakeTensor\nfrom zz import z\n"

    merged = _merged(upstream, "from torch.fake import Mode, FakeTensor\n")

    assert "from torch.fake import FakeTensor, Mode\nfrom zz import z\n" in merged
    assert _usort_clean(merged, tmp_path)


def test_a_new_module_goes_where_usort_sorts_it(tmp_path: Path) -> None:
    upstream = (
        "import unittest\n\nimport torch\nfrom executorch.a import a\n"
        "from torch.x import x\n"
    )

    merged = _merged(
        upstream,
        "import json\nimport executorch.z as z\nfrom executorch.B import b\n"
        "from typing import List\n",
    )

    assert (
        merged
        == HEADER
        + (
            "import json\nimport unittest\nfrom typing import List\n\n"
            "import executorch.z as z\nimport torch\nfrom executorch.a import a\n"
            "from executorch.B import b\nfrom torch.x import x\n"
        )
        + BODY
    )
    assert _usort_clean(merged, tmp_path)


def test_a_long_statement_is_wrapped_as_black_wraps_it(tmp_path: Path) -> None:
    upstream = "import torch\nfrom executorch.exir.pass_base import ExportPass\n"

    merged = _merged(
        upstream,
        "from executorch.exir.pass_base import ExportPassBaseError, NodeMetadata,"
        " ProxyValue\n",
    )

    assert (
        "from executorch.exir.pass_base import (\n    ExportPass,\n"
        "    ExportPassBaseError,\n    NodeMetadata,\n    ProxyValue,\n)\n"
    ) in merged
    assert _usort_clean(merged, tmp_path)


def test_a_file_without_imports_is_refused() -> None:
    nodes, _ = import_block("import torch\n")
    with pytest.raises(ImportMergeError):
        merge_imports("x = 1\n", nodes)


def test_the_wheel_file_gets_only_the_names_it_lacks() -> None:
    upstream = wheel_texts()[TEST_PASS_INFRA]
    ours, _ = import_block(regression_test_source())

    merged = merge_imports(upstream, ours)

    merged_block, _ = import_block(merged)
    upstream_block, _ = import_block(upstream)
    names = [(type(n).__name__, a.name) for n in merged_block for a in n.names]
    assert len(names) == len(set(names)), "a name is imported twice"
    assert {a.name for n in upstream_block for a in n.names} < {
        a.name for n in merged_block for a in n.names
    }
    assert {a.name for n in ours for a in n.names} <= {
        a.name for n in merged_block for a in n.names
    }


def test_a_category_upstream_lacks_gets_its_own_block(tmp_path: Path) -> None:
    merged = _merged("import torch\n", "import json\n")

    assert merged == HEADER + "import json\n\nimport torch\n" + BODY
    assert _usort_clean(merged, tmp_path)
