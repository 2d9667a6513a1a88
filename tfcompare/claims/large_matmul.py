"""Claim 2: on a model dominated by one large matmul the difference nearly vanishes."""

from __future__ import annotations

from tfcompare.claims.claim import Claim, Judged
from tfcompare.claims.verdicts import check, speed_ratio
from tfcompare.claims.compiled_vs_eager import measure as measure_compiled_vs_eager

__all__ = ["CLAIM"]


def measure(ctx):
    small = measure_compiled_vs_eager(ctx)
    runs = ctx.harness("c2-matmul", ["matmul"], ["tf2-eager", "tf2-function"])
    return {"matmul": {m: runs[("matmul", m)] for m in ("tf2-eager", "tf2-function")},
            "elementwise": {m: small[m] for m in ("tf2-eager", "tf2-function")}}


def judge(m):
    threshold = 1.5
    big = speed_ratio(m["matmul"]["tf2-eager"], m["matmul"]["tf2-function"])
    small = m["elementwise"]["tf2-eager"]["median"] / m["elementwise"]["tf2-function"]["median"]
    found = check(big, "<=", threshold, label="matmul eager/function")
    return Judged(found.verdict, (f"eager/function step time: {big.estimate:.2f}x (95% CI {big.low:.2f}\u2013"
                                  f"{big.high:.2f}) on matmul vs {small:.1f}x on elementwise"),
                  f"matmul eager/function <= {threshold}x, the whole 95% interval", (found,))


# the matmul kernel's speed, so how much of the step dispatch is, rests on the CPU's vector units and oneDNN
CLAIM = Claim(2, "On a model dominated by one large matmul the difference nearly vanishes", measure, judge,
              depends_on=("AVX", "oneDNN"))
