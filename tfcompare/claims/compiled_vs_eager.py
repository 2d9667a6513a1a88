"""Claim 1: compiled graphs beat eager on a model of many small ops."""

from __future__ import annotations

from tfcompare.claims.claim import Claim, Judged
from tfcompare.claims.verdicts import all_of, check, speed_ratio

__all__ = ["CLAIM"]


def measure(ctx):
    runs = ctx.harness("c1-elementwise", ["elementwise"], ["tf1-graph", "tf2-eager", "tf2-function"])
    return {m: runs[("elementwise", m)] for m in ("tf1-graph", "tf2-eager", "tf2-function")}


def judge(m):
    threshold = 2.0
    checks, parts = [], []
    for mode in ("tf1-graph", "tf2-function"):
        speedup = speed_ratio(m["tf2-eager"], m[mode])
        checks.append(check(speedup, ">=", threshold, label=f"{mode} speed-up over eager"))
        parts.append(f"{mode} {speedup.estimate:.1f}x faster than eager (95% CI {speedup.low:.1f}\u2013{speedup.high:.1f})")
    return Judged(all_of(checks), f"elementwise (240 small ops per step): {', '.join(parts)}",
                  f"each compiled mode >= {threshold}x eager, the whole 95% interval", tuple(checks))


CLAIM = Claim(1, "Compiled graphs beat eager on models made of many small ops (per-op dispatch disappears)", measure, judge)
