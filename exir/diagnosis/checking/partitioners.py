"""The partitioners ExecuTorch ships, by name: how each is imported and built.

The only list. ``construct(name)`` builds one; ``why_not(name)`` says why it
cannot be built here (a package to pip install, an SDK or hardware, a release
without it); ``unusable_here`` says all it can without importing a backend.
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
    needs: Optional[str] = None  # what a CPU-only Linux machine lacks for it
    runs_here: bool = False  # the pybindings here run its delegates
    extra: Optional[str] = None  # the executorch extra with its packages
    # Packages it imports ((names, any one will do), pip name); a file under
    # backends/ only a source build makes. Both found without importing.
    requires: Tuple[Tuple[Tuple[str, ...], str], ...] = ()
    generated: Optional[str] = None
    # Why its .pte differs between identical runs (the fresh UUIDs it
    # writes): compared by a UUID-blind digest (steps.py), not bytes.
    uuids: Optional[str] = None


def _compile_spec(key: str, value: bytes) -> object:
    from executorch.exir.backend.compile_spec_schema import CompileSpec

    return CompileSpec(key, value)


XNNPACK = "xnnpack.partition.xnnpack_partitioner"
# The Arm backends import the TOSA serializer: as tosa_serializer (1.5.1)
# or serializer (1.0.0).
ARM_REQUIRES = ((("tosa_serializer", "serializer"), "tosa-tools"),)


def _arm_entry(folder: str, cls: str, spec: str, target: str, extra: str) -> Entry:
    def make(partitioner: type) -> object:
        module = importlib.import_module(f"{BACKENDS}.arm.{folder}.compile_spec")
        return partitioner(getattr(module, spec)(target))

    return Entry(
        f"arm.{folder}.partitioner", cls, make, extra=extra, requires=ARM_REQUIRES
    )


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
        requires=((("coreai_torch",), "coreai-torch"),),
    ),
    "openvino": Entry(
        "openvino.partitioner",
        "OpenvinoPartitioner",
        lambda cls: cls([_compile_spec("device", b"CPU")]),
        extra="openvino",
        requires=((("openvino",), "openvino"),),
    ),
    "tosa": _arm_entry(
        "tosa", "TOSAPartitioner", "TosaCompileSpec", "TOSA-1.0+FP", "ethos-u"
    ),
    "ethos-u": _arm_entry(
        "ethosu", "EthosUPartitioner", "EthosUCompileSpec", "ethos-u55-128", "ethos-u"
    ),
    "vgf": _arm_entry("vgf", "VgfPartitioner", "VgfCompileSpec", "TOSA-1.0+FP", "vgf"),
    "mlx": Entry(
        "mlx.partitioner",
        "MLXPartitioner",
        generated="mlx/serialization/mlx_graph_schema.py",
    ),
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


def _reason(entry: Entry, missing: str, pip: Optional[str] = None) -> str:
    """Why ``entry`` cannot be used: its module not shipped, or a package."""
    from ...shared.installed import installed_extras, installed_version

    if missing.startswith(BACKENDS):
        return f"not in this ExecuTorch ({installed_version()})"
    if entry.extra is not None and entry.extra in installed_extras():
        pip = f'"executorch[{entry.extra}]=={installed_version()}"'
    return f"needs the Python package {missing}" + (f": pip install {pip}" * bool(pip))


def _in_backends(*relative: str) -> bool:
    """Whether executorch/backends/``relative`` exists, importing nothing."""
    from ...shared.installed import installed_executorch_dir

    package = installed_executorch_dir()
    return package is not None and package.joinpath("backends", *relative).exists()


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
        missing = error.name or str(error)
        top = missing if missing.startswith(BACKENDS) else missing.split(".")[0]
        raise Unavailable(_reason(entry, repr(top))) from None
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
    path = entry.module.split(".")
    if not _in_backends(*path[:-1], path[-1] + ".py") and not _in_backends(*path):
        return _reason(entry, BACKENDS)
    if entry.needs is not None:
        return f"needs {entry.needs}, not available on this machine"
    for module_names, pip_name in entry.requires:
        if all(importlib.util.find_spec(m) is None for m in module_names):
            return _reason(entry, " or ".join(map(repr, module_names)), pip_name)
    if entry.generated is not None and not _in_backends(entry.generated):
        return f"needs {entry.generated}, which only a source build generates"
    return None
