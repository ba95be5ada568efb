"""The fix as a change to each known unfixed ``call``: on 1.1.0 and later it
is exactly this package's ``call``; on 1.0.x (before #16222) it is 1.0.x's
own ``call`` with the same change, so graphs without any FakeTensor keep
1.0.x's retrace. 1.0.x's text is made here from the installed one by
undoing #16222 and checked by its fingerprint, so every release line tests
it without a copy of upstream's source."""

import hashlib
import tempfile
from pathlib import Path
from typing import Iterator, List

import exportpass_fix
import pytest
import torch
from exportpass_fix.backport import replace_call as backport
from exportpass_fix.shared.fix_source import (
    fixed_call_text,
    PATCHED_CLASS,
    PATCHED_METHOD,
    spliced_fix,
    unspliced_fix,
)
from exportpass_fix.shared.known_calls import (
    is_fix_of_a_known_call,
    UNFIXED_CALL_SHA256,
)
from exportpass_fix.shared.repro import constant_mul_graph, fake_modes
from exportpass_fix.shared.source_spans import method_span
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

pass_base = pytest.importorskip("executorch.exir.pass_base")

V1_0_SHA256 = next(k for k, v in UNFIXED_CALL_SHA256.items() if "v1.0.0" in v)
V1_1_SHA256 = next(k for k, v in UNFIXED_CALL_SHA256.items() if "v1.1.0" in v)
# #16222 (1.1.0), as (1.0.x's lines, 1.1.0's lines), in the order they stand.
PR_16222 = [
    (
        "            self.tracer.fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)\n"  # noqa: B950
        "            fake_tensor_mode = nullcontext()  # type: ignore[assignment]\n",
        "            fake_tensor_mode = FakeTensorMode(allow_non_fake_inputs=True)\n",
    ),
    (
        "            fake_tensor_mode.allow_non_fake_inputs = True\n"
        "            self.tracer.fake_tensor_mode = fake_tensor_mode\n",
        "            fake_tensor_mode.allow_non_fake_inputs = True\n",
    ),
    (
        "        self.fake_tensor_mode = self.tracer.fake_tensor_mode\n",
        "        self.tracer.fake_tensor_mode = fake_tensor_mode\n"
        "        self.fake_tensor_mode = fake_tensor_mode\n",
    ),
]


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def installed_call() -> str:
    source = Path(pass_base.__file__).read_text(encoding="utf-8")
    span = method_span(source, PATCHED_CLASS, PATCHED_METHOD)
    assert span is not None
    return span.text


def call_of_1_0() -> str:
    """1.0.x's ``call``: the installed one, or 1.1.0's with #16222 undone."""
    text = installed_call()
    if _sha256(text) == V1_1_SHA256:
        for old, new in reversed(PR_16222):
            assert text.count(new) == 1, new
            text = text.replace(new, old)
    return text


@pytest.fixture
def installed_as(tmp_path: Path) -> Iterator:
    """Install a ``call`` text on the live class, from a file (so that its
    source can be read); restore the original afterwards."""
    original = pass_base._ExportPassBase.__dict__[PATCHED_METHOD]
    exportpass_fix.revert()

    def install(text: str) -> None:
        path = Path(tempfile.mkdtemp(dir=tmp_path)) / "stand_in_pass_base.py"
        path.write_text(f"class {PATCHED_CLASS}:\n{text}")
        namespace: dict = {}
        exec(compile(path.read_text(), str(path), "exec"), vars(pass_base), namespace)
        call = namespace[PATCHED_CLASS].__dict__[PATCHED_METHOD]
        setattr(pass_base._ExportPassBase, PATCHED_METHOD, call)

    yield install
    exportpass_fix.revert()
    setattr(pass_base._ExportPassBase, PATCHED_METHOD, original)


class _OperatorResults(pass_base.ExportPass):
    """Records whether each retraced operator computed a FakeTensor."""

    def __init__(self) -> None:
        super().__init__()
        self.fake: List[bool] = []

    def call_operator(self, op, args, kwargs, meta):  # type: ignore[no-untyped-def]
        result = super().call_operator(op, args, kwargs, meta)
        self.fake.append(isinstance(result.data, FakeTensor))
        return result


def _no_fake_graph() -> torch.fx.GraphModule:
    graph_module = constant_mul_graph(FakeTensorMode(allow_non_fake_inputs=True))
    for node in graph_module.graph.nodes:
        if node.op == "placeholder":
            node.meta["val"] = node.meta["val"].constant
        else:
            node.meta.pop("val", None)
    return graph_module


def test_splicing_the_fix_into_1_1_gives_this_packages_call() -> None:
    text = installed_call()
    if _sha256(text) != V1_1_SHA256:
        pytest.skip("the installed call is not 1.1.0's; see the 1.0.x tests")
    assert spliced_fix(text) == fixed_call_text()


def test_undoing_16222_gives_the_text_of_1_0() -> None:
    assert _sha256(call_of_1_0()) == V1_0_SHA256


def test_the_fix_on_1_0_keeps_one_mode_and_1_0s_retrace_of_real_graphs(
    installed_as,
) -> None:
    installed_as(call_of_1_0())
    unfixed = _OperatorResults()
    unfixed(_no_fake_graph())
    assert not exportpass_fix.is_fixed()

    assert exportpass_fix.apply() == backport.APPLIED
    assert exportpass_fix.is_fixed()
    graph_module = constant_mul_graph(FakeTensorMode(allow_non_fake_inputs=True))
    result = pass_base.ExportPass()(graph_module).graph_module
    assert len(fake_modes(result)) == 1
    # A graph without FakeTensors is retraced on real tensors, as 1.0.x did
    # (1.1.0's #16222 retraces it under a fresh fake mode): not pulled in.
    fixed = _OperatorResults()
    fixed(_no_fake_graph())
    assert fixed.fake == unfixed.fake == [False]


def test_the_fix_on_1_1_retraces_real_graphs_under_a_fake_mode(installed_as) -> None:
    if _sha256(installed_call()) != V1_1_SHA256:
        pytest.skip("the installed call is not 1.1.0's")
    assert exportpass_fix.apply() == backport.APPLIED
    fixed = _OperatorResults()
    fixed(_no_fake_graph())
    assert fixed.fake == [True]


def test_a_call_without_the_lines_the_fix_changes_gets_no_splice() -> None:
    text = installed_call()
    assert spliced_fix(text) is not None
    scan = text.replace("for i in inputs:", "for i in list(inputs):")
    assert spliced_fix(scan) is None
    assert spliced_fix(text.replace("        fake_tensor_mode = None\n", "")) is None


def test_a_call_the_fix_was_made_to_is_recognised_as_fixed(installed_as) -> None:
    for unfixed in (installed_call(), call_of_1_0()):
        fixed = spliced_fix(unfixed)
        assert fixed is not None
        assert unspliced_fix(fixed) == unfixed
        assert is_fix_of_a_known_call(fixed) and not is_fix_of_a_known_call(unfixed)
        installed_as(fixed)
        assert exportpass_fix.apply() == backport.FIXED_UPSTREAM
        assert pass_base._ExportPassBase.__dict__[
            PATCHED_METHOD
        ].__code__.co_filename.endswith("stand_in_pass_base.py")
