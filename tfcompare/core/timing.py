"""Measurement: calibrated blocks, modes interleaved in rotating order, median and IQR per step, and a
95% confidence interval on every ratio, paired by round.

Why blocks and rotation: on a shared 2-core machine absolute times drift by 2x within minutes,
and timing one mode fully before the next turns that drift into a fake speed-up. Each round runs
one block of every mode, starting with a different mode each round, after one untimed call that
brings the mode's caches back (calls alternating one by one would evict each other's caches).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import time
from typing import Callable, Mapping

import numpy as np

__all__ = ["Clock", "Timer", "Measurement", "Timed", "Interval", "Sampling", "Sampled", "interleave", "rotated",
           "median_time", "median_interval", "paired_ratio", "CONFIDENCE", "NOISY_HALF_WIDTH", "TARGET_HALF_WIDTH",
           "MIN_ROUNDS"]

Clock = Callable[[], float]

CONFIDENCE = 0.95
NOISY_HALF_WIDTH = 0.05  # an interval reaching more than 5% either side of its estimate is flagged noisy
TARGET_HALF_WIDTH = 0.03  # adaptive sampling stops once every ratio is known to within 3% either side
_OVERHEAD_BUDGET = 0.01  # timer overhead must stay under 1% of a timed block


def _order_statistic(n: int, confidence: float = CONFIDENCE) -> int | None:
    """The largest j with P(x_(j) <= median <= x_(n+1-j)) >= confidence, for any continuous distribution.

    The number of samples below the true median is Binomial(n, 1/2), so the interval between the j-th
    smallest and the j-th largest sample misses the median with probability 2 P(B <= j-1) (the sign
    test's interval). Exact and distribution-free; None when even [min, max] is not sure enough (n < 6).
    """
    best, below = None, 0.0
    for j in range(1, n // 2 + 1):
        below += math.comb(n, j - 1) / 2 ** n
        if 1 - 2 * below < confidence:
            break
        best = j
    return best


MIN_ROUNDS = next(n for n in range(1, 64) if _order_statistic(n) is not None)  # 6 at 95%


@dataclasses.dataclass(frozen=True)
class Interval:
    """An estimate (a median) with its confidence interval; `half_width` is relative to the estimate."""

    estimate: float
    low: float
    high: float
    rounds: int
    confidence: float = CONFIDENCE

    @property
    def half_width(self) -> float:
        """How far the interval reaches from the estimate, as a fraction of it (the wider side)."""
        if not self.estimate:
            return math.inf
        return max(self.high / self.estimate - 1, 1 - self.low / self.estimate)

    @property
    def noisy(self) -> bool:
        return self.half_width > NOISY_HALF_WIDTH

    def inverse(self) -> "Interval":
        """The same interval for 1/x (its ends swap)."""
        return Interval(1 / self.estimate, 1 / self.high, 1 / self.low, self.rounds, self.confidence)

    def text(self, unit: str = "x") -> str:
        """`0.82x, 95% CI 0.79-0.85`."""
        return (f"{self.estimate:.2f}{unit}, {self.confidence:.0%} CI {self.low:.2f}\u2013{self.high:.2f}")

    def to_json(self) -> dict:
        return {"estimate": self.estimate, "low": self.low, "high": self.high, "rounds": self.rounds,
                "confidence": self.confidence, "half_width": self.half_width}


def median_interval(values, confidence: float = CONFIDENCE) -> Interval | None:
    """The median of `values` with its exact distribution-free interval (order statistics); None if n < 6."""
    xs = sorted(float(v) for v in values)
    j = _order_statistic(len(xs), confidence)
    if j is None:
        return None
    return Interval(float(np.median(xs)), xs[j - 1], xs[len(xs) - j], len(xs), confidence)


def paired_ratio(numerator, denominator, confidence: float = CONFIDENCE) -> Interval | None:
    """The median over rounds of numerator[i] / denominator[i], with its interval.

    Samples at the same index come from the same interleaved round, so each ratio cancels what that
    round's machine state did to both; the interval is the order-statistic one of the per-round ratios.
    None when the rounds do not pair up (different counts) or are too few.
    """
    if len(numerator) != len(denominator) or not all(d > 0 for d in denominator):
        return None
    return median_interval([n / d for n, d in zip(numerator, denominator)], confidence)


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
    def interval(self) -> Interval | None:
        """The median step time with its confidence interval (None with fewer than 6 samples)."""
        return median_interval(self.samples)

    @property
    def noisy(self) -> bool:
        """The median's interval reaches more than 5% either side, or there are too few samples to tell."""
        interval = self.interval
        return interval is None or interval.noisy


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


@dataclasses.dataclass(frozen=True)
class Sampling:
    """When the interleaved rounds stop.

    A fixed `rounds` count (the user's `--repeats`), or adaptive: after at least `min_rounds` (the fewest
    that give a 95% interval), stop once every ratio in `pairs` (numerator mode, denominator mode) has an
    interval within `target` either side (with no pairs: every mode's own median), or when `budget_s` of
    timing is spent, or at `max_rounds`.
    """

    rounds: int | None = None
    target: float = TARGET_HALF_WIDTH
    budget_s: float = 2.0
    min_rounds: int = MIN_ROUNDS
    max_rounds: int = 200
    pairs: tuple[tuple[str, str], ...] = ()

    def __post_init__(self):
        if self.rounds is not None and (not isinstance(self.rounds, int) or self.rounds < 1):
            raise ValueError(f"`rounds` must be at least 1, got {self.rounds!r}")
        if not self.target > 0:
            raise ValueError(f"`target` must be positive, got {self.target!r}")
        if not self.budget_s > 0:
            raise ValueError(f"`budget_s` must be positive, got {self.budget_s!r}")
        if not 1 <= self.min_rounds <= self.max_rounds:
            raise ValueError(f"need 1 <= min_rounds <= max_rounds, got {self.min_rounds!r} and {self.max_rounds!r}")

    def intervals(self, samples: Mapping[str, list[float]]) -> dict[str, Interval | None]:
        """The intervals the rule watches, by label (`a/b` for a pair, the mode's name for its median)."""
        pairs = [(a, b) for a, b in self.pairs if a in samples and b in samples]
        if pairs:
            return {f"{a}/{b}": paired_ratio(samples[a], samples[b]) for a, b in pairs}
        return {name: median_interval(values) for name, values in samples.items()}

    def stop(self, samples: Mapping[str, list[float]], rounds: int, elapsed_s: float) -> str | None:
        """Why to stop after `rounds` rounds taking `elapsed_s`, or None to take another."""
        if self.rounds is not None:
            return "fixed" if rounds >= self.rounds else None
        if rounds < self.min_rounds:  # never fewer than an interval needs, whatever the budget
            return None
        widths = [i.half_width if i else math.inf for i in self.intervals(samples).values()]
        if max(widths, default=0.0) <= self.target:
            return "target"
        if elapsed_s >= self.budget_s:
            return "budget"
        if rounds >= self.max_rounds:
            return "max_rounds"
        return None


@dataclasses.dataclass
class Sampled:
    """What `sample` measured, how many rounds, and why it stopped (`fixed`, `target`, `budget`, `max_rounds`)."""

    measurements: dict[str, Measurement]
    rounds: int
    stopped: str
    elapsed_s: float
    intervals: dict[str, Interval | None]

    @property
    def widest(self) -> float | None:
        """The widest watched interval's half-width (inf when one could not be formed), None if none."""
        widths = [i.half_width if i else math.inf for i in self.intervals.values()]
        return max(widths) if widths else None

    def describe(self, sampling: Sampling) -> str:
        widest = self.widest
        width = "-" if widest is None else ("too few rounds" if math.isinf(widest) else f"\u00b1{widest:.1%}")
        why = {"fixed": "a fixed count (--repeats)",
               "target": f"stopped: every ratio within \u00b1{sampling.target:.0%}",
               "budget": f"stopped: the {sampling.budget_s:g} s budget ran out",
               "max_rounds": f"stopped: the {sampling.max_rounds}-round cap"}[self.stopped]
        return f"{self.rounds} rounds in {self.elapsed_s:.1f} s, {why}; widest 95% interval {width}"

    def to_json(self, sampling: Sampling) -> dict:
        return {"rounds": self.rounds, "stopped": self.stopped, "timing_s": self.elapsed_s, "widest": self.widest,
                "target": None if sampling.rounds else sampling.target,
                "budget_s": None if sampling.rounds else sampling.budget_s, "text": self.describe(sampling),
                "intervals": {k: (v.to_json() if v else None) for k, v in self.intervals.items()}}


def interleave(timer: Timer, timed: Mapping[str, Timed], rounds: int, *,
               on_error: Callable[[str, BaseException], None] | None = None,
               on_block: Callable[[str], None] | None = None) -> dict[str, Measurement]:
    """`sample` with a fixed number of rounds; returns one `Measurement` per mode that was not dropped."""
    if rounds < 1:
        raise ValueError(f"`rounds` must be at least 1, got {rounds!r}")
    return sample(timer, timed, Sampling(rounds=rounds), on_error=on_error, on_block=on_block).measurements


def sample(timer: Timer, timed: Mapping[str, Timed], sampling: Sampling, *,
           on_error: Callable[[str, BaseException], None] | None = None,
           on_block: Callable[[str], None] | None = None) -> Sampled:
    """Measure every entry of `timed` in rounds, one block each per round, in rotating order, until `sampling`
    says stop (its clock is the timer's, calibration included).

    A mode whose call raises is dropped from the remaining rounds and reported through `on_error`;
    the other modes go on. `on_block(name)` is told which mode runs next, before its calibration and
    before each of its blocks (never inside one).
    """
    on_block = on_block or (lambda name: None)
    started = timer.clock()
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
    r, stopped = 0, "fixed" if not live else None
    while stopped is None:
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
        r += 1
        stopped = sampling.stop(samples, r, timer.clock() - started) if live else "fixed"
    measured = {n: Measurement(samples[n], calls[n], timed[n].steps_per_call) for n in live}
    return Sampled(measured, r, stopped, timer.clock() - started, sampling.intervals(samples))
