"""A wall-clock limit on one piece of a run, that holds even when the piece is stuck inside TensorFlow.

The piece runs on a daemon worker thread while the calling (main) thread waits in short slices. If the
limit passes, the caller gets `TimedOut` and goes on; the stuck thread is abandoned (it cannot be killed
from Python, and it keeps whatever it holds until the process ends). Waiting in slices also keeps the
main thread able to take Ctrl-C at once, where a call blocked inside a TensorFlow kernel would delay
it, or see it wrapped in a TensorFlow error.

Cost: one thread start per guarded piece (about 0.1 ms), never inside a timed block.
"""

from __future__ import annotations

import threading
from typing import Callable, TypeVar

__all__ = ["TimedOut", "run_with_limit", "abandoned_threads"]

T = TypeVar("T")
_SLICE_S = 0.05
_abandoned: list[threading.Thread] = []


class TimedOut(Exception):
    """The guarded piece did not finish within its limit (its thread was abandoned)."""


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
