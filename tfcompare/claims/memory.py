"""Claim 8: static graphs use less memory than eager execution."""

from __future__ import annotations

from tfcompare.claims.claim import Claim, resnet_run
from tfcompare.claims.verdicts import INCONCLUSIVE, all_of, at_most

__all__ = ["CLAIM"]


def measure(ctx):
    runs = resnet_run(ctx)
    return {m: runs[("resnet", m)]["memory"] for m in ("tf1-graph", "tf2-eager", "tf2-function", "tf2-xla")}


def judge(m):
    if not m["tf2-eager"]:
        return INCONCLUSIVE, "the allocator counted no large buffer in eager", "static peak <= 0.9x eager peak"
    ratios = {k: m[k] / m["tf2-eager"] for k in ("tf1-graph", "tf2-function")}
    verdict = all_of([at_most(r, 0.9, 0.0) for r in ratios.values()])  # allocator bytes are exact, not sampled
    return verdict, ("resnet peak memory vs eager: " + ", ".join(f"{k} {r:.2f}x" for k, r in ratios.items())
                     + f" (eager {m['tf2-eager'] / 2**20:.1f} MiB)"), "each static mode's peak <= 0.9x eager's"


def plot(m, path):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar(list(m), [v / 2**20 for v in m.values()])
    ax.set_ylabel("peak MiB (allocator, large buffers)")
    ax.set_title("memory per mode (resnet)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


CLAIM = Claim(8, "Static graphs use less memory than eager execution (about 20% on ResNet-50)", measure, judge, plot)
