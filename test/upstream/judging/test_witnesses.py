"""The witnesses that judge variants of ``call``: each shows a failure
unfixed and ``one mode`` with the fix, run here in this process."""

from typing import Dict, Iterator

import exportpass_fix
import pytest

witnesses = pytest.importorskip("exportpass_fix.upstream.judging.witnesses")


@pytest.fixture
def unfixed() -> Iterator[None]:
    exportpass_fix.revert()
    yield
    exportpass_fix.revert()


def _seen() -> Dict[str, str]:
    return {witness.name: witness.run() for witness in witnesses.WITNESSES}


def test_every_witness_fails_unfixed_and_holds_with_the_fix(unfixed: None) -> None:
    without = _seen()
    with exportpass_fix.applied():
        fixed = _seen()

    assert fixed == {name: witnesses.OK for name in fixed}
    assert all(shown != witnesses.OK for shown in without.values()), without
    assert len(fixed) >= 7
