"""Claim 8: static graphs use less memory than eager execution."""

from __future__ import annotations

from tfcompare.claims.claim import Claim, Judged, resnet_run
from tfcompare.claims.verdicts import INCONCLUSIVE, all_of, check
from tfcompare.core import environment

__all__ = ["CLAIM"]

_QUOTED = 0.8  # "about 20% less" on ResNet-50


def measure(ctx):
    runs = resnet_run(ctx)
    return {m: runs[("resnet", m)]["memory"] for m in ("tf1-graph", "tf2-eager", "tf2-function", "tf2-xla")}


def judge(m):
    if not m["tf2-eager"]:
        return Judged(INCONCLUSIVE, "eager's peak is 0 or unmeasured", "static peak <= 0.9x eager peak",
                      reason="eager's peak is 0 or null (no allocator statistics: environment.memory_method says why), so there is no ratio to judge",
                      direction_only=True)
    ratios = {k: m[k] / m["tf2-eager"] for k in ("tf1-graph", "tf2-function")}
    # allocator bytes are exact, not sampled: no noise band
    checks = tuple(check(r, "<=", 0.9, label=f"{k} peak over eager's", quoted=_QUOTED) for k, r in ratios.items())
    return Judged(all_of(checks), ("resnet peak memory vs eager: " + ", ".join(f"{k} {r:.2f}x" for k, r in ratios.items())
                                   + f" (eager {m['tf2-eager'] / 2**20:.1f} MiB; quoted {_QUOTED}x)"),
                  "each static mode's peak <= 0.9x eager's (the direction of the quoted 0.8x)", checks,
                  direction_only=True)


def plot(m, path):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar(list(m), [(v or 0) / 2**20 for v in m.values()])
    counting = environment.counting(environment.memory_device())
    ax.set_ylabel(f"peak MiB ({counting.allocator}: {counting.counts})")
    ax.set_title("memory per mode (resnet)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# which allocator counts the buffers (BFC, tfcompare's default, counts every one; oneDNN's only those of 256 KiB or
# more: environment.counting), and how many the executors keep alive at once
# (inter-op threads), decide the peaks compared
CLAIM = Claim(8, "Static graphs use less memory than eager execution (about 20% on ResNet-50)", measure, judge, plot,
              depends_on=("oneDNN", "threads"))
