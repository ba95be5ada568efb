"""The partitioners ExecuTorch ships, by name: how each is imported and built.

This registry is the only place that knows the list. ``construct(name)``
builds one; ``why_not(name)`` says in one line why it cannot be built here
(an optional package and the pip command, an SDK or hardware it needs, or
an ExecuTorch version that does not ship it).
"""

import importlib
import importlib.util
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

from ...shared.report import unknown_name

BACKENDS = "executorch.backends"


@dataclass(frozen=True)
class Entry:
    module: str  # under executorch.backends
    cls: str
    make: Callable[[type], object] = field(default=lambda cls: cls())
    # Set for partitioners that cannot be used on a CPU-only Linux machine.
    needs: Optional[str] = None
    # The ExecuTorch pybindings here run this backend's delegates.
    runs_here: bool = False
    # The executorch extra that installs the Python packages it imports.
    extra: Optional[str] = None
    # Python packages its lowering imports, which construction does not check.
    requires: Tuple[Tuple[str, str], ...] = ()  # (import name, pip name)
    # Why its .pte differs between identical runs: the fresh UUIDs it writes.
    # Its programs are compared by a UUID-blind digest (outputs.py), not bytes.
    uuids: Optional[str] = None


def _compile_spec(key: str, value: bytes) -> object:
    from executorch.exir.backend.compile_spec_schema import CompileSpec

    return CompileSpec(key, value)


def _arm(spec_module: str, spec_cls: str, target: str) -> Callable[[type], object]:
    def make(cls: type) -> object:
        spec = getattr(importlib.import_module(f"{BACKENDS}.{spec_module}"), spec_cls)
        return cls(spec(target))

    return make


XNNPACK = "xnnpack.partition.xnnpack_partitioner"
PARTITIONERS: Dict[str, Entry] = {
    "vulkan": Entry("vulkan.partitioner.vulkan_partitioner", "VulkanPartitioner"),
    "webgpu": Entry("webgpu.partitioner.partitioner", "WebGPUPartitioner"),
    "xnnpack": Entry(XNNPACK, "XnnpackPartitioner", runs_here=True),
    "xnnpack-fp": Entry(XNNPACK, "XnnpackFloatingPointPartitioner", runs_here=True),
    "xnnpack-quantized": Entry(XNNPACK, "XnnpackQuantizedPartitioner", runs_here=True),
    "xnnpack-dynamic": Entry(
        XNNPACK, "XnnpackDynamicallyQuantizedPartitioner", runs_here=True
    ),
    "native": Entry("native.partitioner", "NativePartitioner"),
    "coreml": Entry(
        "apple.coreml.partition",
        "CoreMLPartitioner",
        uuids="CoreML names each model executorch_<uuid4>, and its .mlpackage"
        " manifest lists entries keyed by fresh uuid4s, in their order",
    ),
    "coreai": Entry(
        "apple.coreai.partition.partitioner",
        "CoreAIPartitioner",
        requires=(("coreai_torch", "coreai-torch"),),
    ),
    "openvino": Entry(
        "openvino.partitioner",
        "OpenvinoPartitioner",
        lambda cls: cls([_compile_spec("device", b"CPU")]),
        extra="openvino",
    ),
    "tosa": Entry(
        "arm.tosa.partitioner",
        "TOSAPartitioner",
        _arm("arm.tosa.compile_spec", "TosaCompileSpec", "TOSA-1.0+FP"),
        extra="ethos-u",
    ),
    "ethos-u": Entry(
        "arm.ethosu.partitioner",
        "EthosUPartitioner",
        _arm("arm.ethosu.compile_spec", "EthosUCompileSpec", "ethos-u55-128"),
        extra="ethos-u",
    ),
    "vgf": Entry(
        "arm.vgf.partitioner",
        "VgfPartitioner",
        _arm("arm.vgf.compile_spec", "VgfCompileSpec", "TOSA-1.0+FP"),
        extra="vgf",
    ),
    "mlx": Entry("mlx.partitioner", "MLXPartitioner"),
    "mps": Entry(
        "apple.mps.partition.mps_partitioner",
        "MPSPartitioner",
        needs="macOS with Metal Performance Shaders",
    ),
    "qnn": Entry(
        "qualcomm.partition.qnn_partitioner",
        "QnnPartitioner",
        needs="the Qualcomm AI Engine Direct (QNN) SDK",
    ),
    "cuda": Entry("cuda.cuda_partitioner", "CudaPartitioner", needs="a CUDA GPU"),
    "metal": Entry(
        "apple.metal.metal_partitioner", "MetalPartitioner", needs="an Apple GPU"
    ),
    "mediatek": Entry(
        "mediatek.partitioner",
        "NeuropilotPartitioner",
        needs="MediaTek's NeuroPilot SDK",
    ),
    "samsung": Entry(
        "samsung.partition.enn_partitioner",
        "EnnPartitioner",
        needs="Samsung's Exynos AI LiteCore SDK",
    ),
    "nxp": Entry(
        "nxp.neutron_partitioner", "NeutronPartitioner", needs="NXP's eIQ Neutron SDK"
    ),
}


class Unavailable(Exception):
    """The partitioner cannot be built here; the message says why."""


def _missing_module_reason(error: ModuleNotFoundError, entry: Entry) -> str:
    from ...shared.installed import installed_version

    missing = error.name or str(error)
    if missing.startswith(f"{BACKENDS}.") or missing == "executorch.backends":
        return f"not in this ExecuTorch ({installed_version()})"
    top = missing.split(".")[0]
    if entry.extra is None:
        return f"needs the Python package {top!r}"
    pip = f'pip install "executorch[{entry.extra}]=={installed_version()}"'
    return f"needs the Python package {top!r}: {pip}"


def _shipped(entry: Entry) -> bool:
    """Whether the installed ExecuTorch has the module, without importing it."""
    from ...shared.installed import installed_executorch_dir

    package = installed_executorch_dir()
    if package is None:
        return False
    path = package.joinpath("backends", *entry.module.split("."))
    return path.with_suffix(".py").is_file() or path.is_dir()


def construct(name: str) -> object:
    """A new partitioner ``name``; raises ``Unavailable`` with the reason."""
    entry = PARTITIONERS[name]
    reason = unusable_here(name)
    if reason is not None:
        raise Unavailable(reason)
    try:
        module = importlib.import_module(f"{BACKENDS}.{entry.module}")
        cls = getattr(module, entry.cls)
    except ModuleNotFoundError as error:
        raise Unavailable(_missing_module_reason(error, entry)) from None
    except (ImportError, AttributeError) as error:
        first = (str(error).splitlines() or [type(error).__name__])[0]
        raise Unavailable(f"cannot be imported here: {first}") from None
    try:
        return entry.make(cls)
    except Exception as error:  # a constructor that needs what is not here
        first = (str(error).splitlines() or [type(error).__name__])[0]
        raise Unavailable(f"cannot be built here: {type(error).__name__}: {first}")


def why_not(name: str) -> Optional[str]:
    """None if ``name`` can be built here, else the one-line reason."""
    try:
        construct(name)
    except Unavailable as reason:
        return str(reason)
    return None


def unknown(names: List[str]) -> Optional[str]:
    """Why the first name that is no partitioner is refused, or None: the one
    check of partitioner names, for ``check`` and ``matrix``."""
    for name in names:
        if name not in PARTITIONERS:
            return unknown_name("partitioner", name, list(PARTITIONERS))
    return None


def unusable_here(name: str) -> Optional[str]:
    """What ``why_not`` can tell without importing a backend: not shipped in
    this ExecuTorch, an SDK or hardware, a Python package it requires."""
    entry = PARTITIONERS[name]
    if not _shipped(entry):
        from ...shared.installed import installed_version

        return f"not in this ExecuTorch ({installed_version()})"
    if entry.needs is not None:
        return f"needs {entry.needs}, not available on this machine"
    for module_name, pip_name in entry.requires:
        if importlib.util.find_spec(module_name) is None:
            return f"needs the Python package {module_name!r}: pip install {pip_name}"
    return None
