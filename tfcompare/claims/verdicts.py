"""Verdicts: a measured value against a stated threshold, with its noise; never decided in advance."""

from __future__ import annotations

import contextlib
import contextvars

from tfcompare.core.timing import Interval, paired_ratio

__all__ = ["HOLDS", "FAILS", "INCONCLUSIVE", "ERROR", "at_least", "at_most", "ratio_noise", "all_of",
           "widened_noise", "QUICK_NOISE_SCALE", "speed_ratio"]

# A quick run has fewer and shorter samples, so its spread estimates are rougher: its noise bands are this much
# wider, and it gives a decisive verdict only where the result is far from the threshold; elsewhere it says
# inconclusive, never the opposite of a full run.
QUICK_NOISE_SCALE = 3.0
_scale = contextvars.ContextVar("noise_scale", default=1.0)


@contextlib.contextmanager
def widened_noise(scale: float):
    """Within the block, every noise band `at_least`/`at_most` use is `scale` times wider."""
    token = _scale.set(scale)
    try:
        yield
    finally:
        _scale.reset(token)

HOLDS, FAILS, INCONCLUSIVE, ERROR = "holds", "does not hold", "inconclusive", "error"


def _band(value, noise: float) -> tuple[float, float]:
    """(low, high) of `value`: an `Interval`'s own ends, or value -/+ noise; widened in a quick run."""
    scale = _scale.get()
    if isinstance(value, Interval):
        est = value.estimate
        return est - (est - value.low) * scale, est + (value.high - est) * scale
    return value - noise * scale, value + noise * scale


def at_least(value: float | Interval, threshold: float, noise: float = 0.0) -> str:
    """The claim is `value >= threshold`: holds when the whole interval (or value -/+ `noise`) is at or
    above it, does not hold when the whole interval is below it, else inconclusive."""
    low, high = _band(value, noise)
    if low >= threshold:
        return HOLDS
    if high < threshold:
        return FAILS
    return INCONCLUSIVE


def at_most(value: float | Interval, threshold: float, noise: float = 0.0) -> str:
    """The claim is `value <= threshold`, judged the same way."""
    low, high = _band(value, noise)
    if high <= threshold:
        return HOLDS
    if low > threshold:
        return FAILS
    return INCONCLUSIVE


def speed_ratio(a: dict, b: dict) -> Interval:
    """median(a) / median(b) as an interval: paired by round when both carry their interleaved `samples`
    (core.timing.paired_ratio, 95%), else the ratio of medians -/+ `ratio_noise` (stats without samples)."""
    found = paired_ratio(a.get("samples") or [], b.get("samples") or []) if a.get("samples") else None
    if found is not None:
        return found
    value = a["median"] / b["median"]
    noise = value * ratio_noise(a, b)
    return Interval(value, value - noise, value + noise, 0)


def ratio_noise(a: dict, b: dict) -> float:
    """Relative uncertainty of median(a)/median(b): the mean of the two relative IQRs, halved.

    Half an IQR is the spread around the median that half of the samples stay within; averaging the two
    relative spreads is deliberately cautious for a ratio of two medians from the same interleaved run.
    """
    return (a["iqr"] / a["median"] + b["iqr"] / b["median"]) / 4


def all_of(verdicts: list[str]) -> str:
    """Holds when every part holds; does not hold when any part does not; otherwise inconclusive."""
    if all(v == HOLDS for v in verdicts):
        return HOLDS
    if any(v == FAILS for v in verdicts):
        return FAILS
    return INCONCLUSIVE
