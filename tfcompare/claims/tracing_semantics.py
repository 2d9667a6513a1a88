"""Claim 4: tracing records one path; print runs only while tracing."""

from __future__ import annotations

from tfcompare.claims.claim import Claim, Judged
from tfcompare.claims.verdicts import FAILS, HOLDS
from tfcompare.tools.pitfalls import run_pitfalls

__all__ = ["CLAIM"]


def measure(ctx):
    found = {p.name: p for p in run_pitfalls(["print", "python-branch-and-global"])}
    return {name: {"holds": p.holds, "measured": p.measured, "error": p.error} for name, p in found.items()}


def judge(m):
    p, b = m["print"]["measured"], m["python-branch-and-global"]["measured"]
    ok = p["python_print"] == 1 and p["tf_print"] == p["calls"] and b["flag_traces"] == 2 \
        and b["global_result_after"] == b["global_result_before"]
    return Judged((HOLDS if ok else FAILS), (
        f"print ran {p['python_print']}x in {p['calls']} calls (tf.print {p['tf_print']}x); a Python bool branch "
        f"gave {b['flag_traces']} traces; a changed global left the result at {b['global_result_after']}"),
        "exact counts (no noise): print once per trace, one trace per Python value, global frozen")


CLAIM = Claim(4, "Tracing records one path: a Python-value branch is frozen per trace; print runs only while tracing", measure, judge)
