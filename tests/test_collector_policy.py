"""The collector policy's one owner (runners/_gc.py): overlapping pauses from any
threads (the loader's and each platform's runs) turn the collector back on only when
the last ends, and only if it was on when the first began."""

from __future__ import annotations

import gc
import threading

from runners import _gc


def test_overlapping_pauses_restore_the_collector_once_the_last_ends() -> None:
    assert gc.isenabled()
    first, second = _gc.paused(), _gc.paused()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert not gc.isenabled()  # the loader's pause ended while a run's goes on
    second.__exit__(None, None, None)
    assert gc.isenabled()


def test_a_pause_leaves_a_disabled_collector_disabled() -> None:
    gc.disable()
    try:
        with _gc.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_pauses_from_threads() -> None:
    inside = threading.Barrier(3)
    leave = threading.Event()

    def pause() -> None:
        with _gc.paused():
            inside.wait()
            leave.wait()

    threads = [threading.Thread(target=pause) for _ in range(2)]
    for t in threads:
        t.start()
    inside.wait()
    assert not gc.isenabled()
    leave.set()
    for t in threads:
        t.join()
    assert gc.isenabled()
