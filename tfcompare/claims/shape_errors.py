"""Claim 9: static graphs catch shape errors before data; eager errors name the line."""

from __future__ import annotations

from tfcompare.claims.claim import Claim, Judged
from tfcompare.claims.verdicts import FAILS, HOLDS
from tfcompare.tools.pitfalls import run_pitfalls

__all__ = ["CLAIM"]


def measure(ctx):
    return run_pitfalls(["shape-error"])[0].measured


def judge(m):
    ok = m.get("tf1-graph", "").startswith("graph construction") and m.get("tf2-eager", "").startswith("run time") \
        and "line" in m.get("tf2-eager", "")
    return Judged((HOLDS if ok else FAILS), "; ".join(f"{k}: {v}" for k, v in m.items()),
                  "TF1 raises while building (no data); eager raises on data, naming the user's line")


CLAIM = Claim(9, "Static graphs catch shape errors before any data runs; eager errors point at the user's line", measure, judge)
