"""Which models of each zoo the survey takes, and each one's default input,
from the zoo's own catalog: ``python -m exportpass_fix.survey.zoo ZOO``
prints the selection as JSON (a child of ``survey``: it imports the zoo).

- timm: the smallest model of each model module, by parameter count, each
  counted on the meta device (no weights made); ties go to the first name.
  Its input: ``pretrained_cfg["input_size"]``, batch 1.
- torchvision: every model ``list_models`` lists in the classification,
  detection, segmentation, video and optical-flow modules. Its input: the
  crop size of its default weights' transforms (224 if none), batch 1;
  video clips of ``FRAMES`` frames; a list of one image for detection; a
  pair of images for optical flow.
"""

import json
import sys
from typing import Dict, List

ZOOS = ("timm", "torchvision")
TORCHVISION_KINDS = ("", "detection", "segmentation", "video", "optical_flow")
FRAMES = 16  # the clip length of torchvision's video weights' own evaluation
DEFAULT_CROP = 224


def _params(name: str) -> int:
    import timm
    import torch

    with torch.device("meta"):
        model = timm.create_model(name, pretrained=False)
    return sum(p.numel() for p in model.parameters())


def timm_selection() -> Dict[str, object]:
    """The smallest of each module, and the models that could not be counted."""
    import timm

    chosen: List[Dict] = []
    uncounted: Dict[str, str] = {}
    modules = sorted(timm.list_modules())
    for n, module in enumerate(modules, 1):
        print(f"timm: counting module {n} of {len(modules)}: {module}", file=sys.stderr)
        counted = []
        for name in sorted(timm.list_models(module=module)):
            try:
                counted.append((_params(name), name))
            except Exception as error:  # counted as not counted, with why
                uncounted[name] = f"{type(error).__name__}: {error}"[:200]
        if not counted:
            continue
        params, name = min(counted)
        size = timm.get_pretrained_cfg(name).to_dict()["input_size"]
        chosen.append(
            {
                "name": name,
                "module": module,
                "params": params,
                "input": [1, *size],
                "kind": "classification",
            }
        )
    return {"models": chosen, "not_counted": uncounted}


def _crop(name: str) -> int:
    import torchvision

    try:
        weights = torchvision.models.get_model_weights(name).DEFAULT
    except (ValueError, AttributeError):
        return DEFAULT_CROP
    crop = getattr(weights.transforms(), "crop_size", None) if weights else None
    return int(crop[0]) if crop else DEFAULT_CROP


def torchvision_selection() -> Dict[str, object]:
    import importlib

    import torchvision

    chosen = []
    for kind in TORCHVISION_KINDS:
        module = importlib.import_module(f"torchvision.models{'.' * bool(kind)}{kind}")
        for name in sorted(torchvision.models.list_models(module=module)):
            crop = _crop(name)
            shape = [1, 3, crop, crop]
            if kind == "video":
                shape = [1, 3, FRAMES, crop, crop]
            chosen.append(
                {
                    "name": name,
                    "module": module.__name__,
                    "input": shape,
                    "kind": kind or "classification",
                    "images": 2 if kind == "optical_flow" else 1,
                }
            )
    return {"models": chosen, "not_counted": {}}


def versions() -> Dict[str, str]:
    """The zoos' and the toolchain's versions, as installed."""
    from importlib import metadata

    found = {}
    for name in ("timm", "torchvision", "torch", "executorch"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    found["python"] = ".".join(map(str, sys.version_info[:3]))
    return found


if __name__ == "__main__":
    zoo = sys.argv[1]
    selected = timm_selection() if zoo == "timm" else torchvision_selection()
    print(json.dumps(selected))
