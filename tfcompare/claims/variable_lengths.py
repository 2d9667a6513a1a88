"""Claim 5: variable input lengths retrace; buckets or a None signature restore the gain."""

from __future__ import annotations

import numpy as np

from tfcompare.claims.claim import Claim, Judged, plot_lines
from tfcompare.claims.verdicts import FAILS, check
from tfcompare.core.environment import session_config
from tfcompare.registry import CASES, rnn_batch
from tfcompare.run.shapes import GRAPH_VARIANTS, run_variants

__all__ = ["CLAIM"]


def _distinct_lengths(ctx):
    return (1, 2, 4, 8)  # the same sweep in quick and full runs: only the samples differ


def measure(ctx):
    case = CASES["rnn"]
    weights = case.init_weights(np.random.default_rng(ctx.seed))
    rng = np.random.default_rng(ctx.seed + 1)
    pool = [7, 13, 20, 31, 9, 17, 26, 11]
    out = {}
    for k in _distinct_lengths(ctx):
        lengths = (pool[:k] * (8 // k + 1))[:8]
        # no tf2-eager: its hand-written LSTM dispatches every op of every time step (~0.1-0.5 s a batch on 2
        # cores), about 17 s more over this sweep; `run --seq-lens` shows eager beside the variants
        found = run_variants(case, weights, lambda n: rnn_batch(rng, 8, steps=n), lengths, passes=2,
                             session_config=session_config(2, 2), variants=GRAPH_VARIANTS)
        out[k] = {v.variant: {"traces": v.traces, "total_s": v.total_s, "step_s": v.step_median_s} for v in found}
    return out


def judge(m):
    k = max(m, key=int)
    worst = m[k]
    eaten = worst["no-signature"]["total_s"] / worst["none-signature"]["total_s"]
    restored = min(worst[v]["total_s"] for v in ("none-signature", "buckets", "reduce-retracing"))
    traces_ok = worst["no-signature"]["traces"] == int(k) and worst["none-signature"]["traces"] == 1
    found = check(eaten, ">=", 1.5, 0.15 * eaten, label="no-signature total over None-signature total")
    return Judged(found.verdict if traces_ok else FAILS,
                  (f"{k} distinct lengths: no signature traced {worst['no-signature']['traces']}x, total "
                   f"{worst['no-signature']['total_s'] * 1e3:.0f} ms vs {restored * 1e3:.0f} ms for the best fix "
                   f"({eaten:.1f}x)"), "no-signature total >= 1.5x the None-signature total; traces = distinct lengths",
                  (found,), reason="" if traces_ok else "the trace counts are not one per distinct length")


def plot(m, path):
    plot_lines(path, "total time vs distinct lengths", "distinct lengths in the stream", "total seconds (8 batches x 2)",
                {v: ([int(k) for k in m], [m[k][v]["total_s"] for k in m]) for v in next(iter(m.values()))})


CLAIM = Claim(5, "Variable input lengths cause retracing that can eat the gain; buckets or a None signature restore it", measure, judge, plot)
