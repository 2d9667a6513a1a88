"""Verdicts: a measured value against a stated threshold, with its noise; never decided in advance."""

from __future__ import annotations

import contextlib
import contextvars

__all__ = ["HOLDS", "FAILS", "INCONCLUSIVE", "ERROR", "at_least", "at_most", "ratio_noise", "all_of",
           "widened_noise", "QUICK_NOISE_SCALE"]

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


def at_least(value: float, threshold: float, noise: float) -> str:
    """The claim is `value >= threshold`; `noise` is the absolute uncertainty of `value`."""
    noise *= _scale.get()
    if value - noise >= threshold:
        return HOLDS
    if value + noise < threshold:
        return FAILS
    return INCONCLUSIVE


def at_most(value: float, threshold: float, noise: float) -> str:
    """The claim is `value <= threshold`."""
    noise *= _scale.get()
    if value + noise <= threshold:
        return HOLDS
    if value - noise > threshold:
        return FAILS
    return INCONCLUSIVE


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
