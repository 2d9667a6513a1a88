"""Claim 6: the first-call cost of compiled modes grows with depth."""

from __future__ import annotations

from tfcompare.claims.claim import Claim, Judged, plot_lines
from tfcompare.claims.verdicts import all_of, check
from tfcompare.registry import CASES

__all__ = ["CLAIM"]


def _depths(ctx):
    return (1, 2, 4, 6)  # the same sweep in quick and full runs: only the samples differ


def measure(ctx):
    out = {}
    for depth in _depths(ctx):
        case = CASES["resnet"].with_options(depth=depth)
        # first-call time is what this claim needs; a deeper resnet's XLA gradients may exceed the
        # equivalence tolerance (reported by `tfcompare run`), which does not change its compile time
        runs = ctx.harness(f"c6-depth{depth}", ["resnet"], ["tf1-graph", "tf2-function", "tf2-xla"], repeats=2,
                           min_block_s=0.005, registry={"resnet": case}, accept=("ok", "mismatch"))
        out[depth] = {m: runs[("resnet", m)]["first_call"] for m in ("tf1-graph", "tf2-function", "tf2-xla")}
    return out


def judge(m):
    depths = sorted(m, key=int)
    lo, hi = m[depths[0]], m[depths[-1]]
    checks, parts = [], []
    for mode in ("tf2-function", "tf2-xla"):
        growth = hi[mode] / lo[mode]
        # first calls are single samples: 10% noise
        checks.append(check(growth, ">=", 1.2, 0.1 * growth, label=f"{mode} first-call growth"))
        parts.append(f"{mode} {lo[mode]:.2f} s -> {hi[mode]:.2f} s")
    return Judged(all_of(checks), f"first call from depth {depths[0]} to {depths[-1]}: {'; '.join(parts)}",
                  "first call grows >= 1.2x from the shallowest to the deepest network (10% single-sample noise)",
                  tuple(checks))


def plot(m, path):
    modes = next(iter(m.values()))
    plot_lines(path, "first call vs depth (resnet)", "residual blocks", "first call (s)",
                {mode: ([int(d) for d in m], [m[d][mode] for d in m]) for mode in modes})


CLAIM = Claim(6, "Compiled modes pay a first-call cost that grows with network depth", measure, judge, plot)
