"""Witnesses: programs a user meets through ExecuTorch, each run through the
flow that meets it, under whatever ``_ExportPassBase.call`` is installed.
Each says what the user sees: ``ok`` (the flow ran to ``to_executorch()``,
every program computes what eager does, and what a pass was given or made
holds the right values), or ``raises T``, ``wrong values``, ``not
delegated``.

One run of a flow shows several witnesses: the lowering's backend runs
several pass lists over its delegate, each on its own; ``to_edge`` of the
methods is transformed in several orders. A variant of ``call`` is wrong
only where a witness shows it a failure and the fix ``ok`` (``judge_run``).
Which older witnesses each one stands for, and which were dropped and why:
``witness_audit.json``.
"""

import copy
import functools
from dataclasses import dataclass
from typing import Callable, Dict, List, Sequence, Tuple

import torch
from executorch.backends.nxp.edge_passes.convert_reshaping_nodes_to_view import (
    ConvertReshapingNodesToViewPass,
)
from executorch.exir import EdgeProgramManager, to_edge, to_edge_transform_and_lower
from executorch.exir.capture import ExecutorchBackendConfig
from executorch.exir.pass_base import ExportPass
from judge_programs import (
    CAPTURED,
    ConstantsPartitioner,
    IntInput,
    IntInputUnsqueezed,
    Ones,
    Recorder,
    Sine,
    Table,
    Tripling,
)
from torch._subclasses.fake_tensor import FakeTensor
from torch.export import Dim, export, ExportedProgram

OK = "ok"
LOWERED = "to_edge_transform_and_lower, the partitioner delegating #22309's table"
TRANSFORMED = "EdgeProgramManager.transform, one pass instance over the methods"


@dataclass(frozen=True)
class Flow:
    """A flow a user runs, and the witnesses one run of it shows."""

    flow: str
    witnesses: Tuple[str, ...]
    run: Callable[[], Dict[str, str]]


def _equal(got: object, want: torch.Tensor) -> bool:
    return isinstance(got, torch.Tensor) and torch.equal(got, want)


def _raised(error: Exception) -> str:
    return f"raises {type(error).__name__}"


_X = (torch.randn(4, 128),)


@functools.lru_cache(maxsize=None)
def delegate(dynamic: bool, tag_constants: bool, casts: bool = True) -> ExportedProgram:
    """The delegate #22309's flow hands a backend's preprocess: Sine lowered
    through the partitioner. Run once, in the process the variants fork
    from: before preprocess, ``call`` sees only graphs with a plain input."""
    CAPTURED.clear()
    to_edge_transform_and_lower(
        export(Sine(), _X, dynamic_shapes={"x": {1: Dim("n")}} if dynamic else None),
        partitioner=[ConstantsPartitioner(tag_constants, casts)],
    )
    (captured,) = CAPTURED
    return captured


def _inputs(program: ExportedProgram) -> Tuple[List[object], List[torch.Tensor]]:
    """What the delegate's module takes (x's size, untagged constants' values)
    and the values of all its constants, in placeholder order."""
    state = {**program.state_dict, **program.constants}
    args, constants = [], []
    for spec, node in zip(program.graph_signature.input_specs, program.graph.nodes):
        val = node.meta["val"]
        value = state[spec.target] if spec.target is not None else None
        if spec.target is None and isinstance(val, torch.Tensor):
            value = val.constant
        if spec.target is None:
            args.append(_X[0].shape[1] if value is None else value)
        if value is not None:
            constants.append(value)
    return args, constants


def _equal_all(got: Sequence[object], want: Sequence[torch.Tensor]) -> bool:
    return len(got) == len(want) and all(map(_equal, got, want))


def _lowered(dynamic: bool, tag_constants: bool = True) -> Flow:
    """A backend's preprocess running each pass list over #22309's delegate;
    each list is a witness. The delegate then computes what it did before
    (three times that, with the tensor-making pass), and a recording pass
    received the constants' values."""
    after = ", x's size dynamic (a SymInt input)" if dynamic else ""
    after += "" if tag_constants else ", constants untagged (after the SymInt)"
    lists: Dict[str, Callable[[], List[ExportPass]]] = {
        "ExportPass": lambda: [ExportPass()],
        "two ExportPasses": lambda: [ExportPass(), ExportPass()],
        "a pass that makes a tensor": lambda: [Tripling()],
        "placeholder()": lambda: [Recorder()],
        "placeholder() after a pass": lambda: [ExportPass(), Recorder()],
    }
    names = {k: f"#22309's delegate through {k}{after}" for k in lists}

    def run() -> Dict[str, str]:
        program = delegate(dynamic, tag_constants)
        args, constants = _inputs(program)
        (before,) = program.module()(*args)
        shown = {}
        for key, name in names.items():
            passes = lists[key]()
            try:
                done = EdgeProgramManager(program).transform(passes)
                (got,) = done.exported_program().module()(*args)
            except Exception as error:
                shown[name] = _raised(error)
                continue
            factor = 3 if key == "a pass that makes a tensor" else 1
            right = _equal(got, before * factor)
            if isinstance(passes[-1], Recorder):
                received = [
                    a for a in passes[-1].received if isinstance(a, torch.Tensor)
                ]
                real = not any(isinstance(a, FakeTensor) for a in received)
                right = right and real and _equal_all(received, constants)
            shown[name] = OK if right else "wrong values"
        return shown

    return Flow(
        LOWERED + after + ", the preprocess run on its delegate",
        tuple(names.values()),
        run,
    )


Methods = Sequence[Tuple[str, torch.nn.Module, Tuple[object, ...]]]
METHODS: Methods = [
    ("sine", Sine(), _X),  # lifted constants, then x
    ("int", IntInput(), (3,)),  # a lifted constant, then an int
    ("int again", IntInput(), (4,)),  # the same, exported on its own
    ("int unsqueezed", IntInputUnsqueezed(), (3,)),  # the same, then a reshape
    ("ones", Ones(), ()),  # no placeholder at all
    ("ones again", Ones(), ()),  # the same, exported on its own
    ("table", Table(), ()),  # lifted constants only
]
# Each order of the methods one list of pass instances runs over, the pass
# classes, and what the methods then compute, times what eager does.
Order = Tuple[Tuple[str, ...], Tuple[Callable[[], ExportPass], ...], float]
E, T, NXP = ExportPass, Tripling, ConvertReshapingNodesToViewPass
ORDERS: Dict[str, Order] = {
    "a plain method, then a constant beside an int": (("sine", "int"), (E,), 1.0),
    "a constant beside an int, then a plain method": (("int", "sine"), (E,), 1.0),
    "a constant beside an int, then a method without placeholders": (
        ("int", "ones"),
        (E, E),
        1.0,
    ),
    "a plain method, then one without placeholders": (("sine", "ones"), (E,), 1.0),
    "two methods, each a constant beside an int": (("int", "int again"), (E,), 1.0),
    "a pass that makes a tensor: two methods, each a constant beside an int": (
        ("int", "int again"),
        (T,),
        3.0,
    ),
    "two methods without placeholders": (("ones", "ones again"), (E,), 1.0),
    "a method without placeholders, then a constant beside an int": (
        ("ones", "int"),
        (E,),
        1.0,
    ),
    # NXP's upstream pass, run as NXP's flow runs it (transform_passes): it
    # gives the node it adds a val of a mode of its own, then retraces.
    "NXP's ConvertReshapingNodesToViewPass: a constant beside an int": (
        ("int unsqueezed",),
        (NXP,),
        1.0,
    ),
    "a pass that makes a tensor and ExportPass: plain, then a constant": (
        ("sine", "int"),
        (T, E),
        3.0,
    ),
}


FRESH = (
    "to_edge of a plain method and of methods without a tensor input (constants"
    " only; none at all)"
)


def _fresh_to_edge() -> str:
    """``to_edge`` itself, where its passes see no plain tensor input, and
    where they see one (a guard on it must still hold, run for real)."""
    methods = [m for m in METHODS if m[0] in ("sine", "table", "ones")]
    try:
        edge = to_edge({name: export(m, args) for name, m, args in methods})
        edge.to_executorch()
    except Exception as error:
        return _raised(error)
    for name, module, args in methods:
        if not _equal(edge.exported_program(name).module()(*args), module(*args)):
            return "wrong values"
    return OK


@functools.lru_cache(maxsize=None)
def edge_methods() -> EdgeProgramManager:
    """``to_edge`` of the methods, once, under the fix, in the process the
    variants fork from; ``FRESH`` runs ``to_edge`` itself under each."""
    return to_edge({name: export(m, args) for name, m, args in METHODS})


def _transformed() -> Dict[str, str]:
    """For each order, one list of pass instances over the methods in that
    order (``transform``); each method then computes its factor times what
    eager does, and the programs the passes ran over are left as they were."""
    edge = edge_methods()
    shown = {FRESH: _fresh_to_edge()}
    for key, (order, kinds, factor) in ORDERS.items():
        name = f"one instance over {key}"
        programs = {method: edge.exported_program(method) for method in order}
        if NXP in kinds:  # it edits the graph it is given: a copy, kept from others
            programs = copy.deepcopy(programs)
        try:
            after = EdgeProgramManager(programs).transform([k() for k in kinds])
            after.to_executorch()
        except Exception as error:
            shown[name] = _raised(error)
            continue
        shown[name] = OK
        for method, module, args in METHODS:
            if method not in order:
                continue
            want = module(*args)
            got = after.exported_program(method).module()(*args)
            kept = edge.exported_program(method).module()(*args)
            if not (_equal(got, want * factor) and _equal(kept, want)):
                shown[name] = "wrong values"
    return shown


FOLDED = (
    "one instance over a plain method, then two constant-only ones folded in"
    " to_executorch (do_quant_fusion_and_const_prop), from its passes"
)


FOLDED_METHODS = (("sine", Sine(), _X), ("table", Table(), ()), ("again", Table(), ()))


@functools.lru_cache(maxsize=None)
def _edge_to_fold() -> EdgeProgramManager:
    """``to_edge`` of a plain method and two constant-only ones, once, under
    the fix, in the process the variants fork from (as ``edge_methods``)."""
    return to_edge({name: export(m, args) for name, m, args in FOLDED_METHODS})


def _folded_in_to_executorch() -> Dict[str, str]:
    """``to_executorch`` folds the constant-only methods in place, then runs
    its config's one pass instance over the methods; the user's edge
    program keeps what it folded."""
    edge = copy.deepcopy(_edge_to_fold())  # folded in place: a copy each run
    try:
        config = ExecutorchBackendConfig(
            do_quant_fusion_and_const_prop=True, passes=[ExportPass()]
        )
        edge.to_executorch(config)
        edge.to_executorch()  # the programs the pass ran over, still usable
    except Exception as error:
        return {FOLDED: _raised(error)}
    for name, module, args in FOLDED_METHODS:
        if not _equal(edge.exported_program(name).module()(*args), module(*args)):
            return {FOLDED: "wrong values"}
    return {FOLDED: OK}


FLOWS: List[Flow] = [
    _lowered(dynamic=False),
    _lowered(dynamic=True),
    _lowered(dynamic=True, tag_constants=False),
    Flow(
        TRANSFORMED,
        (FRESH, *(f"one instance over {k}" for k in ORDERS)),
        _transformed,
    ),
    Flow(
        "to_executorch with a pass in its config", (FOLDED,), _folded_in_to_executorch
    ),
]


def programs_made_afresh() -> None:
    """Make again, under whatever ``call`` is installed (the fix), the
    programs the flows share, so that no flow has run over them yet: a fake
    mode that a run under the fix has used keeps what it converted then,
    which can hide how a variant would treat it (as in a user's process)."""
    for made in (delegate, edge_methods, _edge_to_fold):
        made.cache_clear()
    for dynamic, tag_constants in ((False, True), (True, True), (True, False)):
        delegate(dynamic, tag_constants)
    delegate(True, True, casts=False)
    edge_methods()
    _edge_to_fold()
