"""A wall-clock limit on one piece of a run, that holds even when the piece is stuck inside TensorFlow.

The piece runs on a daemon worker thread while the calling (main) thread waits in short slices. If the
limit passes, the caller gets `TimedOut` and goes on; the stuck thread is abandoned (it cannot be killed
from Python, and it keeps whatever it holds until the process ends). Waiting in slices also keeps the
main thread able to take Ctrl-C at once, where a call blocked inside a TensorFlow kernel would delay
it, or see it wrapped in a TensorFlow error.

Cost: one thread start per guarded piece (about 0.1 ms), never inside a timed block.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Callable, TypeVar

__all__ = ["TimedOut", "run_with_limit", "abandoned_threads", "deferred_interrupts", "check_interrupt"]

T = TypeVar("T")
_SLICE_S = 0.05
_abandoned: list[threading.Thread] = []


class TimedOut(Exception):
    """The guarded piece did not finish within its limit (its thread was abandoned)."""


_pending = threading.Event()  # Ctrl-C arrived while interrupts are deferred


def check_interrupt() -> None:
    """Raise KeyboardInterrupt here, at a safe point, if Ctrl-C arrived while interrupts were deferred."""
    if _pending.is_set():
        _pending.clear()
        raise KeyboardInterrupt


@contextlib.contextmanager
def deferred_interrupts():
    """Within the block, Ctrl-C only sets a flag that `check_interrupt` (and every wait in
    `run_with_limit`) turns into KeyboardInterrupt.

    Python raises KeyboardInterrupt wherever the main thread is; inside a TensorFlow call that runs Python
    callbacks (summary writers, tracing), an exception thrown through C++ can abort the process (seen:
    SIGABRT, results.json not rewritten). Deferring it to points where only Python runs makes Ctrl-C safe.
    Outside the main thread, or when the user installed their own handler, nothing changes.
    """
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    _pending.clear()
    previous = signal.signal(signal.SIGINT, lambda signum, frame: _pending.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    check_interrupt()


def abandoned_threads() -> int:
    """How many abandoned pieces are still running in this process."""
    return sum(t.is_alive() for t in _abandoned)


def run_with_limit(fn: Callable[[], T], limit_s: float | None, what: str) -> T:
    """`fn()` on a worker thread; its result, or its exception re-raised here, or `TimedOut` after `limit_s`.

    `limit_s=None` runs `fn` on the calling thread (no limit, no thread).
    """
    if limit_s is None:
        return fn()
    box: dict = {}

    def work():
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the caller, which decides
            box["error"] = exc

    thread = threading.Thread(target=work, name=f"tfcompare: {what}", daemon=True)
    thread.start()
    waited = 0.0
    try:
        while thread.is_alive():
            thread.join(_SLICE_S)  # returns every slice, so Ctrl-C reaches the main thread at once
            check_interrupt()
            waited += _SLICE_S
            if thread.is_alive() and waited >= limit_s:
                raise TimedOut(f"timed out after {limit_s:g} s ({what})")
    except BaseException:  # timed out or interrupted: the piece may still be running; leave it
        if thread.is_alive():
            _abandoned.append(thread)
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]
