"""Claim 7: the static-graph advantage weakens below batch size 8."""

from __future__ import annotations

import numpy as np

from tfcompare.claims.claim import Claim, Judged, plot_lines
from tfcompare.claims.verdicts import INCONCLUSIVE, check, ratio_noise

__all__ = ["CLAIM"]


def _batches(ctx):
    return (1, 4, 8, 32, 128, 512)  # the same sweep in quick and full runs: only the samples differ


def measure(ctx):
    out = {}
    for bs in _batches(ctx):
        runs = ctx.harness(f"c7-batch{bs}", ["mlp"], ["tf1-graph", "tf2-eager", "tf2-function"], batch_size=bs)
        out[bs] = {m: runs[("mlp", m)] for m in ("tf1-graph", "tf2-eager", "tf2-function")}
    return out


def judge(m):
    sizes = sorted(m, key=int)
    speed = {bs: m[bs]["tf2-eager"]["median"] / m[bs]["tf2-function"]["median"] for bs in sizes}
    small = [speed[b] for b in sizes if int(b) < 8]
    large = [speed[b] for b in sizes if int(b) >= 8]
    if not small or not large:
        return Judged(INCONCLUSIVE, "need batch sizes on both sides of 8", "speedup below batch 8 < speedup at >= 8",
                      reason="no batch size was measured on one side of 8, so there is nothing to compare")
    ratio = np.mean(large) / np.mean(small)  # > 1 means the advantage is weaker at small batch, as claimed
    noise = ratio * np.mean([ratio_noise(m[b]["tf2-eager"], m[b]["tf2-function"]) for b in sizes])
    trend = ", ".join(f"batch {b}: {speed[b]:.1f}x" for b in sizes)
    found = check(ratio, ">=", 1.1, noise, label="speedup at batch >= 8 over below 8")
    return Judged(found.verdict, f"tf.function speedup over eager by batch size: {trend}",
                  "the speedup at batch >= 8 is >= 1.1x the speedup below 8 (the claimed weakening), beyond noise",
                  (found,))


def series(m) -> dict:
    """Per mode, eager step / mode step at each batch size; eager's own line is 1 everywhere, the bar a graph
    mode must clear to be worth compiling (measured in the same runs, so it costs nothing)."""
    sizes = sorted(m, key=int)
    return {mode: ([int(b) for b in sizes], [m[b]["tf2-eager"]["median"] / m[b][mode]["median"] for b in sizes])
            for mode in ("tf1-graph", "tf2-eager", "tf2-function") if all(mode in m[b] for b in sizes)}


def plot(m, path):
    plot_lines(path, "speedup over eager vs batch size (mlp)", "batch size", "eager step / mode step", series(m),
               logx=True)


CLAIM = Claim(7, "The static-graph advantage weakens below batch size 8", measure, judge, plot)
