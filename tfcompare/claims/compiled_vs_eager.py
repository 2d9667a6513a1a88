"""Claim 1: compiled graphs beat eager on a model of many small ops."""

from __future__ import annotations

from tfcompare.claims.claim import Claim
from tfcompare.claims.verdicts import all_of, at_least, ratio_noise

__all__ = ["CLAIM"]


def measure(ctx):
    runs = ctx.harness("c1-elementwise", ["elementwise"], ["tf1-graph", "tf2-eager", "tf2-function"])
    return {m: runs[("elementwise", m)] for m in ("tf1-graph", "tf2-eager", "tf2-function")}


def judge(m):
    threshold = 2.0
    verdicts, parts = [], []
    for mode in ("tf1-graph", "tf2-function"):
        speedup = m["tf2-eager"]["median"] / m[mode]["median"]
        verdicts.append(at_least(speedup, threshold, speedup * ratio_noise(m["tf2-eager"], m[mode])))
        parts.append(f"{mode} {speedup:.1f}x faster than eager")
    return all_of(verdicts), f"elementwise (240 small ops per step): {', '.join(parts)}", \
        f"each compiled mode >= {threshold}x eager, beyond noise"


CLAIM = Claim(1, "Compiled graphs beat eager on models made of many small ops (per-op dispatch disappears)", measure, judge)
