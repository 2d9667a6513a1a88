"""Verdicts: a measured value against a stated threshold, with its noise; never decided in advance.

Each judgement is a `Check` that keeps the interval it actually judged (widened in a quick run) and its
bar, so the verdict line can show both and an inconclusive can say why.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import math

from tfcompare.core.timing import Interval, paired_ratio

__all__ = ["HOLDS", "FAILS", "INCONCLUSIVE", "ERROR", "Check", "check", "at_least", "at_most", "ratio_noise",
           "all_of", "ALL_OF_RULE", "widened_noise", "widening_rule", "QUICK_NOISE_SCALE", "speed_ratio", "number",
           "span"]

# A quick run has fewer and shorter samples, so its spread estimates are rougher: each end of a noise band
# lies this many times as far from the estimate (a ratio's on the log scale: its factor is cubed), and it
# gives a decisive verdict only where the result is far from the threshold; elsewhere it says
# inconclusive, never the opposite of a full run.
QUICK_NOISE_SCALE = 3.0
_scale = contextvars.ContextVar("noise_scale", default=1.0)


@contextlib.contextmanager
def widened_noise(scale: float):
    """Within the block, every noise band `check` uses is `scale` times wider (a ratio's as a factor)."""
    token = _scale.set(scale)
    try:
        yield
    finally:
        _scale.reset(token)

HOLDS, FAILS, INCONCLUSIVE, ERROR = "holds", "does not hold", "inconclusive", "error"


def widening_rule(scale: float = QUICK_NOISE_SCALE) -> str:
    """How a quick run widens what it judges, in words: `_widen`'s rule, said where the widened interval is shown."""
    n = f"{scale:g}"
    return (f"each verdict judges a widened interval, not the measured 95% one beside the figures: each end of a "
            f"ratio's interval moves {n}x as far from the estimate on the log scale (low -> estimate x "
            f"(low / estimate)^{n}, high likewise), each end of a fraction's (%) {n}x as far linearly "
            f"(estimate + {n} x (end - estimate)); fewer, shorter samples give rougher intervals, so a quick "
            "verdict is decisive only far from its bar")


def number(x: float, unit: str = "x") -> str:
    """`27.6x`, `2.0x`, `84x`, `25%`: three significant figures, a ratio's bar keeps one decimal."""
    if unit == "%":
        return f"{x:.0%}"
    if not math.isfinite(x):
        return f"{x}{unit}"
    text = f"{x:.0f}" if abs(x) >= 100 else f"{x:.3g}"
    if "e" in text:
        text = f"{x:.2g}"
    elif "." not in text and abs(x) < 10:
        text += ".0"
    return text + unit


def span(low: float, high: float, unit: str = "x") -> str:
    """`9.1–84x`, `-263–258%`: both ends in one unit (a fraction's both as percents)."""
    if unit == "%":
        return f"{number(low, '%')[:-1]}–{number(high, '%')}"
    return f"{number(low, '')}–{number(high, unit)}"


@dataclasses.dataclass(frozen=True)
class Check:
    """One value judged against one bar: the interval actually judged, so the verdict can be shown, not asserted."""

    verdict: str
    estimate: float
    low: float  # the judged interval: the 95% interval, or value -/+ noise, widened in a quick run
    high: float
    threshold: float
    bound: str  # ">=" or "<="
    unit: str = "x"  # "x": a ratio (widened on the log scale); "%": a fraction (widened linearly)
    label: str = ""
    quoted: float | None = None  # the magnitude a direction-only claim quotes, shown beside the measured one

    def text(self) -> str:
        """`tf1-graph over eager 27.6x (judged interval 9.1-84x) >= 2.0x`."""
        head = f"{self.label} " if self.label else ""
        value = number(self.estimate, self.unit)
        if self.quoted is not None:
            value = f"measured {value}, quoted {number(self.quoted, self.unit)}"
        if self.low == self.high == self.estimate:
            band = "exact, no noise band"
        else:
            band = f"judged interval {span(self.low, self.high, self.unit)}"
        return f"{head}{value} ({band}) {self.bound} {number(self.threshold, self.unit)}"

    def reason(self) -> str:
        """Why this verdict, in one line: where the judged interval lies against the bar."""
        where = ("the value" if self.low == self.high else
                 f"the judged interval {span(self.low, self.high, self.unit)}")
        where += f" of {self.label}" if self.label else ""
        bar = f"the {number(self.threshold, self.unit)} bar"
        if self.verdict == INCONCLUSIVE:
            return f"{where} straddles {bar}"
        above = self.low >= self.threshold if self.bound == ">=" else self.low > self.threshold
        return f"{where} lies wholly {'above' if above else 'below'} {bar}"

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def _widen(estimate: float, end: float, scale: float, ratio: bool) -> float:
    """`end` moved `scale` times as far from `estimate`: as a factor for a positive ratio, else linearly."""
    if ratio and estimate > 0 and end > 0:
        return estimate * (end / estimate) ** scale
    return estimate + (end - estimate) * scale


def _band(value, noise: float, ratio: bool) -> tuple[float, float, float]:
    """(estimate, low, high) of `value`: an `Interval`'s own ends, or value -/+ noise; widened in a quick run."""
    if isinstance(value, Interval):
        est, low, high = value.estimate, value.low, value.high
    else:
        est, low, high = value, value - noise, value + noise
    scale = _scale.get()
    return est, _widen(est, low, scale, ratio), _widen(est, high, scale, ratio)


def check(value: float | Interval, bound: str, threshold: float, noise: float = 0.0, *, unit: str = "x",
          label: str = "", quoted: float | None = None) -> Check:
    """The claim is `value >= threshold` (bound ">=") or `value <= threshold` ("<="): holds when the whole
    interval (or value -/+ `noise`) is on the claimed side, does not hold when it is wholly on the other,
    else inconclusive."""
    if bound not in (">=", "<="):
        raise ValueError(f"bound must be '>=' or '<=', got {bound!r}")
    est, low, high = _band(value, noise, unit == "x")
    if bound == ">=":
        verdict = HOLDS if low >= threshold else (FAILS if high < threshold else INCONCLUSIVE)
    else:
        verdict = HOLDS if high <= threshold else (FAILS if low > threshold else INCONCLUSIVE)
    return Check(verdict, est, low, high, threshold, bound, unit, label, quoted)


def at_least(value: float | Interval, threshold: float, noise: float = 0.0) -> str:
    """The verdict of `check(value, ">=", threshold, noise)` for a ratio."""
    return check(value, ">=", threshold, noise).verdict


def at_most(value: float | Interval, threshold: float, noise: float = 0.0) -> str:
    """The verdict of `check(value, "<=", threshold, noise)` for a ratio."""
    return check(value, "<=", threshold, noise).verdict


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


ALL_OF_RULE = "holds when every part holds, does not hold when any part does not, otherwise inconclusive"


def all_of(verdicts) -> str:
    """The verdict of several parts: `ALL_OF_RULE`. Takes verdicts or `Check`s."""
    verdicts = [getattr(v, "verdict", v) for v in verdicts]
    if all(v == HOLDS for v in verdicts):
        return HOLDS
    if any(v == FAILS for v in verdicts):
        return FAILS
    return INCONCLUSIVE
