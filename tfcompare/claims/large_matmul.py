"""Claim 2: on a model dominated by one large matmul the difference nearly vanishes."""

from __future__ import annotations

from tfcompare.claims.claim import Claim
from tfcompare.claims.verdicts import at_most, ratio_noise
from tfcompare.claims.compiled_vs_eager import measure as measure_compiled_vs_eager

__all__ = ["CLAIM"]


def measure(ctx):
    small = measure_compiled_vs_eager(ctx)
    runs = ctx.harness("c2-matmul", ["matmul"], ["tf2-eager", "tf2-function"])
    return {"matmul": {m: runs[("matmul", m)] for m in ("tf2-eager", "tf2-function")},
            "elementwise": {m: small[m] for m in ("tf2-eager", "tf2-function")}}


def judge(m):
    threshold = 1.5
    big = m["matmul"]["tf2-eager"]["median"] / m["matmul"]["tf2-function"]["median"]
    small = m["elementwise"]["tf2-eager"]["median"] / m["elementwise"]["tf2-function"]["median"]
    noise = big * ratio_noise(m["matmul"]["tf2-eager"], m["matmul"]["tf2-function"])
    return at_most(big, threshold, noise), (f"eager/function step time: {big:.2f}x on matmul vs {small:.1f}x on "
                                            f"elementwise"), f"matmul eager/function <= {threshold}x, beyond noise"


CLAIM = Claim(2, "On a model dominated by one large matmul the difference nearly vanishes", measure, judge)
