"""A survey process lowers each partitioner from the saved program, so that
a lowering before it cannot change what the next one is given."""

from pathlib import Path

import exportpass_fix
import pytest
import torch
from exportpass_fix.diagnosis.checking.partitioners import PARTITIONERS
from exportpass_fix.survey import lower_one


class _Indexed(torch.nn.Module):  # a buffer Vulkan delegates, as swin's index
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("index", torch.arange(4), persistent=False)
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x)[:, self.index]


@pytest.mark.once
def test_xnnpack_after_vulkan_lowers_the_saved_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Vulkan deletes the buffer from the program it lowers; lowering that
    # program again through XNNPACK failed with a KeyError on it.
    saved = tmp_path / "model.pt2"
    torch.export.save(torch.export.export(_Indexed(), (torch.randn(2, 4),)), saved)
    names = ["vulkan", "xnnpack"]
    where = {n: f"executorch.backends.{PARTITIONERS[n].module}" for n in names}
    job = {
        "program": str(saved),
        "lowerings": names,
        "partitioners": {n: f"{where[n]}:{PARTITIONERS[n].cls}" for n in names},
    }
    monkeypatch.setattr(exportpass_fix, "apply", lambda: "not applied here")
    state: dict = {}
    lower_one.backport(job, state)
    assert sorted(state) == names, "each partitioner lowered"


@pytest.mark.survey
def test_a_vit_is_built_for_its_default_weights_size() -> None:
    # vit_h_14's default weights are at 518: built at 224, it refused that input.
    pytest.importorskip("torchvision", reason="torchvision cannot be imported here")
    job = {"zoo": "torchvision", "name": "vit_b_32", "kind": "classification"}
    model, args = lower_one.build({**job, "input": [1, 3, 256, 256]})
    with torch.no_grad():
        assert model(*args).shape == (1, 1000)
