"""Verdicts: a measured value against a stated threshold, with its noise; never decided in advance."""

from __future__ import annotations

__all__ = ["HOLDS", "FAILS", "INCONCLUSIVE", "ERROR", "at_least", "at_most", "ratio_noise", "all_of"]

HOLDS, FAILS, INCONCLUSIVE, ERROR = "holds", "does not hold", "inconclusive", "error"


def at_least(value: float, threshold: float, noise: float) -> str:
    """The claim is `value >= threshold`; `noise` is the absolute uncertainty of `value`."""
    if value - noise >= threshold:
        return HOLDS
    if value + noise < threshold:
        return FAILS
    return INCONCLUSIVE


def at_most(value: float, threshold: float, noise: float) -> str:
    """The claim is `value <= threshold`."""
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
