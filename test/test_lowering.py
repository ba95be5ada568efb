"""Real lowering through real partitioners, unpatched and with the backport."""

from typing import Iterator

import exportpass_fix
import pytest
import torch
from exportpass_fix.diagnosis import innermost_error
from exportpass_fix.models import build

exir = pytest.importorskip("executorch.exir")
vulkan = pytest.importorskip(
    "executorch.backends.vulkan.partitioner.vulkan_partitioner"
)
xnnpack = pytest.importorskip(
    "executorch.backends.xnnpack.partition.xnnpack_partitioner"
)
runtime = pytest.importorskip("executorch.extension.pybindings.portable_lib")

# Both models add fp32 sines, cosines and powers of 10000; XNNPACK and the
# portable kernels may round differently from eager PyTorch by a few ulps.
RTOL = 1e-5
ATOL = 1e-5


@pytest.fixture
def fixed() -> Iterator[None]:
    with exportpass_fix.applied():
        assert exportpass_fix.is_fixed()
        yield
    assert not exportpass_fix.is_fixed()


TRIGGER_MODELS = ["issue-reduced", "detr-sine"]


def _lower(name: str, partitioner: object) -> bytes:
    model, args = build(name)
    exported = torch.export.export(model, args)
    edge = exir.to_edge_transform_and_lower(exported, partitioner=[partitioner])
    return edge.to_executorch().buffer


@pytest.mark.parametrize("model", TRIGGER_MODELS)
def test_vulkan_lowering_fails_unpatched_with_the_fake_mode_assertion(
    model: str,
) -> None:
    assert not exportpass_fix.is_fixed()
    with pytest.raises(Exception) as raised:
        _lower(model, vulkan.VulkanPartitioner())

    # The pass manager's message names an unrelated pass ...
    assert "An error occurred when running the" in str(raised.value)
    assert "FuseBatchNormPass" in str(raised.value)
    # ... and the fake-mode assertion sits underneath it.
    innermost = innermost_error(raised.value)
    assert innermost.startswith("AssertionError: fake mode")
    assert "doesn't match mode" in innermost


@pytest.mark.parametrize("model", TRIGGER_MODELS)
def test_vulkan_lowering_and_serialization_succeed_with_the_fix(
    fixed: None, model: str
) -> None:
    buffer = _lower(model, vulkan.VulkanPartitioner())

    assert len(buffer) > 1000
    assert b"VulkanBackend" in buffer


@pytest.mark.parametrize("model", TRIGGER_MODELS)
def test_xnnpack_program_matches_eager_with_the_fix(fixed: None, model: str) -> None:
    eager, args = build(model)
    buffer = _lower(model, xnnpack.XnnpackPartitioner())

    assert b"XnnpackBackend" in buffer
    (output,) = runtime._load_for_executorch_from_buffer(buffer).forward(args)
    torch.testing.assert_close(output, eager(*args), rtol=RTOL, atol=ATOL)
