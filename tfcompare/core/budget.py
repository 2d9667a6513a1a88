"""What a run will hold in memory, estimated from the cases' input shapes before anything is allocated.

Every batch is built up front (the K equivalence batches, the timing batch, the variable-length stream)
and each mode holds its inputs as tensors, K-fold for the looped modes. That floor is computed from the
`InputSpec`s alone and compared with the memory the machine has available now, so a size that cannot
fit is refused in milliseconds instead of growing until the system kills the process.
"""

from __future__ import annotations

import math
import os

import numpy as np

__all__ = ["TooBig", "batch_bytes", "run_floor_bytes", "available_bytes", "check_fits"]


class TooBig(ValueError):
    """The run cannot fit in the memory available; nothing was allocated. `options`: the ones to change."""

    def __init__(self, message: str, options: str = ""):
        super().__init__(message)
        self.options = options


def batch_bytes(inputs, batch_size: int, length: int | None = None) -> int:
    """Bytes of one batch of these inputs (varying dims at `length` when given)."""
    total = 0
    for spec in inputs:
        dims = [length if (length is not None and i in spec.varying) else d for i, d in enumerate(spec.shape)]
        total += batch_size * math.prod(dims) * np.dtype(spec.dtype).itemsize
    return total


def run_floor_bytes(inputs, *, batch_size: int, steps: int, modes: int, loop_modes: int, loop_steps: int,
                    seq_lens: tuple[int, ...] = ()) -> int:
    """The least a run of one case holds: its batches as arrays, and as tensors in every mode."""
    one = batch_bytes(inputs, batch_size, max(seq_lens) if seq_lens else None)
    copies = (steps + 1) + len(seq_lens) + modes + loop_modes * loop_steps
    return one * copies


def available_bytes() -> int:
    """Memory available to a new allocation now (MemAvailable on Linux; physical memory elsewhere)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def _gib(n: int) -> str:
    return f"{n / 2**30:.3g} GiB"


def check_fits(what: str, needed: int, available: int | None = None, *, of: str = "its batches alone",
               options: str = "") -> None:
    """Raise `TooBig` naming `what`, the estimate (`of` what) and what is available, when `needed` cannot fit."""
    available = available_bytes() if available is None else available
    if needed > available:
        raise TooBig(f"{what} needs at least {_gib(needed)} for {of}; {_gib(available)} of memory "
                     "is available: choose a smaller size", options)
