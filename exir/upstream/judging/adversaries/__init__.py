"""Variants and witnesses written by the adversaries of #38, as written;
``witnesses()`` gives the witnesses as ``Witness`` objects, each named after
its adversary."""

from typing import List


def witnesses() -> List[object]:
    """Every adversary's witnesses; a witness that raises shows ``raises``."""
    from ..witnesses import Witness
    from .adversary_1_witnesses import WITNESSES as ADVERSARY_1

    def caught(run):  # type: ignore[no-untyped-def]
        def shown() -> str:
            try:
                return run()
            except Exception as error:
                return f"raises {type(error).__name__}"

        return shown

    return [
        Witness(f"adversary-1: {name}", "written by adversary-1", caught(run))
        for name, run in ADVERSARY_1
    ]
