"""Measurement: calibrated blocks, modes interleaved in rotating order, median and IQR per step.

Why blocks and rotation: on a shared 2-core machine absolute times drift by 2x within minutes,
and timing one mode fully before the next turns that drift into a fake speed-up. Each round runs
one block of every mode, starting with a different mode each round, after one untimed call that
brings the mode's caches back (calls alternating one by one would evict each other's caches).
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from typing import Callable, Mapping

import numpy as np

__all__ = ["Clock", "Timer", "Measurement", "Timed", "interleave", "rotated", "median_time", "NOISE_THRESHOLD"]

Clock = Callable[[], float]

NOISE_THRESHOLD = 0.10  # IQR/median above which a measurement is flagged noisy (as torch.utils.benchmark)
_OVERHEAD_BUDGET = 0.01  # timer overhead must stay under 1% of a timed block


@dataclasses.dataclass
class Measurement:
    """Per-step times of one mode, one sample per timed block (seconds per step)."""

    samples: list[float]
    calls_per_block: int = 1
    steps_per_call: int = 1

    @property
    def median(self) -> float | None:
        return float(np.median(self.samples)) if self.samples else None

    @property
    def q1(self) -> float | None:
        return float(np.percentile(self.samples, 25)) if self.samples else None

    @property
    def q3(self) -> float | None:
        return float(np.percentile(self.samples, 75)) if self.samples else None

    @property
    def iqr(self) -> float | None:
        return self.q3 - self.q1 if self.samples else None

    @property
    def noisy(self) -> bool:
        """IQR/median above the threshold, or too few samples to tell."""
        if len(self.samples) < 3 or not self.median:
            return True
        return self.iqr / self.median > NOISE_THRESHOLD


@dataclasses.dataclass(frozen=True)
class Timed:
    """One thing to time: `fn()` runs `steps_per_call` steps and returns when their results are on the host."""

    fn: Callable[[], object]
    steps_per_call: int = 1


class Timer:
    """Times blocks of calls with an injectable clock (tests pass a fake one and get exact statistics).

    Args:
        clock: returns seconds; `time.perf_counter` by default.
        min_block_s: a timed block lasts at least this long (calibrated per mode).
        max_calls_per_block: cap for very fast steps.
    """

    def __init__(self, clock: Clock = time.perf_counter, *, min_block_s: float = 0.02,
                 max_calls_per_block: int = 4096):
        if min_block_s <= 0:
            raise ValueError(f"`min_block_s` must be positive, got {min_block_s!r}")
        if max_calls_per_block < 1:
            raise ValueError(f"`max_calls_per_block` must be at least 1, got {max_calls_per_block!r}")
        self.clock = clock
        self.min_block_s = min_block_s
        self.max_calls_per_block = max_calls_per_block

    @property
    def name(self) -> str:
        return getattr(self.clock, "__qualname__", type(self.clock).__name__)

    def overhead(self, pairs: int = 101) -> float:
        """Median cost of one clock reading pair: what a timed block pays for being timed."""
        costs = []
        for _ in range(pairs):
            t0 = self.clock()
            costs.append(self.clock() - t0)
        return statistics.median(costs)

    def time_block(self, fn: Callable[[], object], calls: int) -> float:
        t0 = self.clock()
        for _ in range(calls):
            fn()
        return self.clock() - t0

    def calibrate(self, fn: Callable[[], object]) -> int:
        """Calls per block: double until one block lasts `min_block_s` (this also warms the mode up)."""
        floor = max(self.min_block_s, self.overhead(11) / _OVERHEAD_BUDGET)
        calls = 1
        while calls < self.max_calls_per_block:
            if self.time_block(fn, calls) >= floor:
                break
            calls *= 2
        return min(calls, self.max_calls_per_block)

    def first_call(self, fn: Callable[[], object]) -> tuple[float, object]:
        """Time one call and return (seconds, result)."""
        t0 = self.clock()
        out = fn()
        return self.clock() - t0, out


def rotated(items: list, shift: int) -> list:
    """`items` starting at position `shift` (mod len), wrapping round: the order of round `shift`."""
    if not items:
        return []
    shift %= len(items)
    return items[shift:] + items[:shift]


def median_time(fn: Callable[[], object], repeats: int, clock: Clock = time.perf_counter) -> tuple[float, list[float]]:
    """(median seconds of one call, every sample) over `repeats` calls, one sample per call.

    For things too slow to batch into blocks (a served model's call, a whole scenario).
    """
    samples = []
    for _ in range(repeats):
        t0 = clock()
        fn()
        samples.append(clock() - t0)
    return statistics.median(samples), samples


def interleave(timer: Timer, timed: Mapping[str, Timed], rounds: int, *,
               on_error: Callable[[str, BaseException], None] | None = None,
               on_block: Callable[[str], None] | None = None) -> dict[str, Measurement]:
    """Measure every entry of `timed` over `rounds` rounds, one block each per round, in rotating order.

    A mode whose call raises is dropped from the remaining rounds and reported through `on_error`;
    the other modes go on. `on_block(name)` is told which mode runs next, before its calibration and
    before each of its blocks (never inside one). Returns one `Measurement` per mode that was not dropped.
    """
    on_block = on_block or (lambda name: None)
    if rounds < 1:
        raise ValueError(f"`rounds` must be at least 1, got {rounds!r}")
    names = list(timed)
    calls: dict[str, int] = {}
    for name in names:
        on_block(name)
        try:
            calls[name] = timer.calibrate(timed[name].fn)
        except Exception as exc:  # a mode that fails here must not stop the others
            if on_error is None:
                raise
            on_error(name, exc)
    live = [n for n in names if n in calls]
    samples: dict[str, list[float]] = {n: [] for n in live}
    for r in range(rounds):
        order = rotated(live, r)
        for name in order:
            if name not in live:
                continue
            entry = timed[name]
            on_block(name)
            try:
                entry.fn()  # untimed: bring this mode's caches back after the others ran
                elapsed = timer.time_block(entry.fn, calls[name])
            except Exception as exc:
                if on_error is None:
                    raise
                on_error(name, exc)
                live.remove(name)
                samples.pop(name, None)
                continue
            samples[name].append(elapsed / (calls[name] * entry.steps_per_call))
    return {n: Measurement(samples[n], calls[n], timed[n].steps_per_call) for n in live}
