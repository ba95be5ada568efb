"""What ``--model`` names, loaded: an ``ExportedProgram`` with its inputs.

A SPEC is one of:
- ``PATH.pt2``: written by ``torch.export.save``; inputs from ``example_inputs``;
- ``package.module:name``, importable from the current directory: an
  ``ExportedProgram``, or a callable returning one or a
  ``(torch.nn.Module, example_args)`` pair (exported with torch.export);
- ``builtin:NAME``: one of this project's models (``models.MODELS``).
Anything that does not fit raises ``BadModel``: a file that is no program
(``pt2_file``), saved inputs that do not fit it, a module that exits or
raises when imported or whose function does so or needs arguments
(``user_code``). A model whose export fails raises that error, which is not
bad input. Torch is imported only to load a model, so ``check`` can refuse
a bad path before any heavy import.
"""

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Optional, TextIO, Tuple, TYPE_CHECKING

from ...shared.report import unknown_name
from .pt2_file import BadModel, inputs_misfit, refuse_unreadable_pt2, SAVE_HINT
from .user_code import import_users_module, required_parameters, run_users_code

if TYPE_CHECKING:
    import torch

# Each stage of loading a model, told to ``stage`` before it runs (the
# preflight names the stage a process ended in).
Stage = Callable[[str], None]

# models.MODELS's names, without importing torch (a test holds them equal).
BUILTIN_MODELS = (
    "issue-reduced",
    "detr-sine",
    "rope-attention",
    "dinov2-interpolated",
    "t5-relative-bias",
    "conv-control",
    "buffer-table-control",
    "plain-attribute-control",
    "t5-int64-buckets",
    "timestep-sinusoid",
    "dynamic-length-sine",
)


@dataclass
class Model:
    program: "torch.export.ExportedProgram"
    inputs: Tuple[tuple, Dict]
    eager: Callable[..., object]
    how: str
    rtol: float = 1e-5
    atol: float = 1e-5


def is_pt2(spec: str) -> bool:
    return spec.endswith(".pt2") or ":" not in spec


def _from_pt2(path: Path) -> Model:
    import torch

    refuse_unreadable_pt2(path)
    try:
        program = torch.export.load(str(path))
    except Exception as error:
        first = (str(error).splitlines() or [type(error).__name__])[0]
        # torch logs the cause and points at it; that log is not shown here.
        first = first.replace(
            "Please check the warnings above for possible errors.", ""
        )
        raise BadModel(f"{path} is a corrupt .pt2 archive: {first.strip()}") from None
    return _with_inputs(program, str(path), f"loaded {path.name}")


def _with_inputs(
    program: "torch.export.ExportedProgram", where: str, how: str
) -> Model:
    """``program`` with its saved example inputs, which must fit it."""
    if program.example_inputs is None:
        raise BadModel(f"{where} has no example inputs; {SAVE_HINT}")
    misfit = inputs_misfit(program, program.example_inputs)
    if misfit:
        raise BadModel(
            f"{where}'s saved example inputs do not fit its program: {misfit};"
            " save the program with the inputs it was exported with"
        )
    args, kwargs = program.example_inputs
    return Model(program, (args, kwargs), program.module(), how)


def _exported(
    value: object, where: str, dynamic_shapes: object = None, called: bool = False
) -> Model:
    """``value`` as a model; ``called``: what calling ``where`` returned."""
    import torch

    if isinstance(value, torch.export.ExportedProgram):
        return _with_inputs(value, where, f"took {where}")
    if (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[0], torch.nn.Module)
        and isinstance(value[1], tuple)
    ):
        module, args = value
        program = torch.export.export(module, args, dynamic_shapes=dynamic_shapes)
        return Model(program, (args, {}), module, f"exported {where}")
    kind = type(value).__name__
    kind = f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}"
    said = f"{where}() returned" if called else f"{where} is"
    raise BadModel(
        f"{said} {'None' if value is None else kind}, not an ExportedProgram or a"
        " (torch.nn.Module, example_args) pair"
    )


def _from_import(spec: str, stage: Stage, echo: Optional[TextIO]) -> Model:
    module_name, _, attribute = spec.partition(":")
    stage("import")
    module = import_users_module(module_name, echo)
    if not hasattr(module, attribute):
        raise BadModel(f"{module_name!r} has no attribute {attribute!r}")
    value = getattr(module, attribute)
    torch = sys.modules.get("torch")  # no torch imported: no module given
    if callable(value) and not (torch and isinstance(value, torch.nn.Module)):
        stage("build")
        needed = required_parameters(value)
        if needed:
            raise BadModel(
                f"{spec} takes argument(s) {', '.join(needed)}; check calls it"
                " with none: name a function of no arguments that returns the"
                " model"
            )
        value = run_users_code(f"calling {spec}()", value, module_name, echo)
        stage("export")
        return _exported(value, spec, called=True)
    stage("export")
    return _exported(value, spec)


def refuse_unknown_builtin(name: str) -> None:
    """Raise ``BadModel`` for a name that is no built-in model; no torch."""
    if name not in BUILTIN_MODELS:
        raise BadModel(unknown_name("built-in model", name, BUILTIN_MODELS))


def refuse_early(spec: str) -> None:
    """``BadModel`` for what can be told of ``spec`` without torch: empty (a
    built-in model is checked only where it is named), an unknown built-in
    name, a path that is no ``.pt2`` archive."""
    if not spec.strip():
        raise BadModel(
            f"--model {spec!r} names no model;"
            " give PATH.pt2, package.module:name or builtin:NAME"
        )
    if spec.startswith("builtin:"):
        refuse_unknown_builtin(spec.split(":", 1)[1])
    elif is_pt2(spec):
        refuse_unreadable_pt2(Path(spec))


def load_model(
    spec: str,
    rtol: float = 1e-5,
    atol: float = 1e-5,
    stage: Stage = lambda name: None,
    echo: Optional[TextIO] = None,
) -> Model:
    """The model ``spec`` names; ``echo`` gets what the user's code prints
    (default: stderr)."""
    if spec.startswith("builtin:"):
        from ..models.catalog import build, dynamic_shapes

        name = spec.split(":", 1)[1]
        refuse_unknown_builtin(name)
        model = _exported(build(name), spec, dynamic_shapes(name))
    elif is_pt2(spec):
        stage("load")
        model = _from_pt2(Path(spec))
    else:
        model = _from_import(spec, stage, echo)
    model.rtol, model.atol = rtol, atol
    return model
