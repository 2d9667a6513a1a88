"""Child processes that never outlive tfcompare, and never see the user's working folder on their import path."""

from __future__ import annotations

import ctypes
import ctypes.util
import signal
import sys

__all__ = ["die_with_parent"]

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """`preexec_fn` for `subprocess`: the kernel sends the child SIGKILL when its parent dies (Linux).

    Elsewhere it does nothing; the parent's own cleanup (`finally`, signal handlers) still stops the child.
    """
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
