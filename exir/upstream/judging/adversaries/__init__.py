"""Variants and witnesses written by the adversaries of #38 (adversary-1,
adversary-2, adversary-3, adversary-4, adversary-5, adversary-6), as written;
``witnesses()`` gives the witnesses as ``Witness`` objects, each named after
its adversary."""

from typing import List


# Witnesses left out, and why: no user meets their graph. A variant wrong
# only on them is acceptable.
_VAL_LESS = (
    "a placeholder without a val, through the private _ExportPassBase: every"
    " ExportPass refuses such a graph (KeyError 'val'), fixed or not"
)
_META_ARGS = "a real graph_module.meta['args']: nothing in torch or ExecuTorch sets it"
NOT_USERS_GRAPHS = {
    "adversary-1: const_and_valless_placeholder": _VAL_LESS,
    "adversary-1: meta_args_real_values": _META_ARGS,
    "adversary-4: real_meta_args": _META_ARGS,
}


def witnesses() -> List[object]:
    """Every adversary's witnesses; a witness that raises shows ``raises``."""
    from ..witnesses import Witness
    from .adversary_1_witnesses import WITNESSES as ADVERSARY_1
    from .adversary_2_witnesses import WITNESSES as ADVERSARY_2
    from .adversary_3_witnesses import WITNESSES as ADVERSARY_3
    from .adversary_4_witnesses import WITNESSES as ADVERSARY_4
    from .adversary_5_witnesses import WITNESSES as ADVERSARY_5
    from .adversary_6_witnesses import WITNESSES as ADVERSARY_6

    def caught(run):  # type: ignore[no-untyped-def]
        def shown() -> str:
            try:
                seen = run()
            except Exception as error:
                return f"raises {type(error).__name__}"
            # A message (an object's address, a counter) differs run to run;
            # the kill table's record is compared run to run.
            return seen.split(":", 1)[0] if seen.startswith("raises ") else seen

        return shown

    return [
        Witness(f"{origin}: {name}", f"written by {origin}", caught(run))
        for origin, written in (
            ("adversary-1", ADVERSARY_1),
            ("adversary-2", ADVERSARY_2),
            ("adversary-3", ADVERSARY_3),
            ("adversary-4", ADVERSARY_4),
            ("adversary-5", ADVERSARY_5),
            ("adversary-6", ADVERSARY_6),
        )
        for name, run in written
        if f"{origin}: {name}" not in NOT_USERS_GRAPHS
    ]
