"""What the backport recognises on the class (its own code, not a wrapper's
``__wrapped__``, and not a source file edited under it), and its state under
nested and overlapping scopes and threads."""

import functools
import importlib.util
import os
import sys
import threading
from pathlib import Path
from typing import Callable, Iterator, List

import exportpass_fix
import pytest
from exportpass_fix.backport import replace_call as backport
from exportpass_fix.shared.fix_source import PASS_BASE
from trees import wheel_texts

pass_base = pytest.importorskip("executorch.exir.pass_base")
cls = pass_base._ExportPassBase


@pytest.fixture(autouse=True)
def unpatched_process() -> Iterator[None]:
    original = cls.__dict__["call"]
    exportpass_fix.revert()
    assert not exportpass_fix.is_fixed()
    yield
    backport._State.scopes = 0
    exportpass_fix.revert()
    cls.call = original


def _wrapped(call: Callable) -> Callable:
    @functools.wraps(call)
    def profiled(*args: object, **kwargs: object) -> object:
        return call(*args, **kwargs)

    return profiled


def test_a_wrapper_of_the_unfixed_call_is_refused_and_left_in_place() -> None:
    wrapper = _wrapped(cls.__dict__["call"])
    cls.call = wrapper

    with pytest.raises(exportpass_fix.BackportRefused) as refusal:
        exportpass_fix.apply()

    assert "profiled" in str(refusal.value)
    assert "a wrapper of _ExportPassBase.call" in str(refusal.value)
    assert cls.__dict__["call"] is wrapper
    assert not exportpass_fix.is_fixed()


def test_a_wrapper_of_a_fixed_call_needs_nothing_and_is_left_alone() -> None:
    wrapper = _wrapped(backport.fixed_call(pass_base))
    cls.call = wrapper

    assert exportpass_fix.apply() == backport.FIXED_UPSTREAM
    assert cls.__dict__["call"] is wrapper


def test_a_wrapper_of_this_processs_fix_is_already_applied() -> None:
    assert exportpass_fix.apply() == backport.APPLIED
    cls.call = _wrapped(cls.__dict__["call"])

    assert exportpass_fix.apply() == backport.ALREADY_APPLIED


def test_a_source_file_edited_to_the_fix_under_a_running_process_is_refused(
    patched: dict, tmp_path: Path
) -> None:
    path = tmp_path / "upgraded_pass_base.py"
    path.write_text(wheel_texts()[PASS_BASE])
    spec = importlib.util.spec_from_file_location("upgraded_pass_base", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    before = module._ExportPassBase.__dict__["call"]
    path.write_text(patched[PASS_BASE])  # the upgrade; memory keeps the old code
    os.utime(path, (1, 1))

    with pytest.raises(exportpass_fix.BackportRefused, match="no longer holds"):
        backport.apply_to(module)
    assert module._ExportPassBase.__dict__["call"] is before


def test_revert_says_true_only_when_it_restored_the_original() -> None:
    original = cls.__dict__["call"]
    assert exportpass_fix.apply() == backport.APPLIED
    theirs = _wrapped(original)
    cls.call = theirs  # someone replaced the fix since

    assert exportpass_fix.revert() is False
    assert cls.__dict__["call"] is theirs


def test_scopes_nest_and_an_apply_inside_one_outlives_it() -> None:
    with exportpass_fix.applied() as outer:
        with exportpass_fix.applied() as inner:
            assert (outer, inner) == (backport.APPLIED, backport.ALREADY_APPLIED)
        assert exportpass_fix.is_fixed()  # the outer block still holds it
        assert exportpass_fix.apply() == backport.ALREADY_APPLIED  # a library's
    assert exportpass_fix.is_fixed()
    assert exportpass_fix.revert() is True
    assert not exportpass_fix.is_fixed()


def test_overlapping_scopes_in_two_threads_keep_the_fix_until_the_last_exits() -> None:
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen: List[bool] = []

    def a() -> None:  # enters first, exits first
        with exportpass_fix.applied():
            a_in.set()
            b_in.wait(10)
        a_out.set()

    def b() -> None:
        a_in.wait(10)
        with exportpass_fix.applied():
            b_in.set()
            a_out.wait(10)
            seen.append(exportpass_fix.is_fixed())

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    assert seen == [True]
    assert not exportpass_fix.is_fixed()


def test_an_apply_paused_between_reading_and_installing_blocks_the_other() -> None:
    original = cls.__dict__["call"]
    paused, go = threading.Event(), threading.Event()
    make_fix = backport._fixed_for
    statuses: List[str] = []

    def slow_fixed_for(*args: object) -> Callable:
        if not paused.is_set():
            paused.set()
            assert go.wait(10)
        return make_fix(*args)

    def apply() -> None:
        statuses.append(exportpass_fix.apply())

    backport._fixed_for = slow_fixed_for
    try:
        threads = [threading.Thread(target=apply) for _ in range(2)]
        threads[0].start()
        assert paused.wait(10)
        threads[1].start()
        threads[1].join(0.5)  # it waits for the first, not past it
        go.set()
        for thread in threads:
            thread.join(10)
    finally:
        backport._fixed_for = make_fix

    assert sorted(statuses) == [backport.ALREADY_APPLIED, backport.APPLIED]
    assert exportpass_fix.revert() is True
    assert cls.__dict__["call"] is original


def test_concurrent_applies_never_take_the_fix_for_an_upstream_one() -> None:
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    statuses: List[str] = []
    try:
        for _ in range(50):
            threads = [
                threading.Thread(target=lambda: statuses.append(backport.apply()))
                for _ in range(2)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(10)
            assert exportpass_fix.revert() is True
    finally:
        sys.setswitchinterval(interval)

    assert statuses.count(backport.APPLIED) == 50
    assert statuses.count(backport.ALREADY_APPLIED) == 50
