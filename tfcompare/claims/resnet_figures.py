"""Claim 11: the quoted ResNet-50 figures, in direction, on a CPU-sized resnet."""

from __future__ import annotations

from tfcompare.claims.claim import Claim, Judged, resnet_run
from tfcompare.claims.verdicts import INCONCLUSIVE, all_of, check, speed_ratio
from tfcompare.core.environment import memory_device

__all__ = ["CLAIM"]


def measure(ctx):
    runs = resnet_run(ctx)
    return {"scale": "resnet case (CPU-sized, 2 residual blocks, batch 16)"
                     + (" on a GPU" if memory_device().startswith("GPU") else " on the CPU"),
            **{m: runs[("resnet", m)] for m in ("tf1-graph", "tf2-eager", "tf2-function", "tf2-xla")}}


def judge(m):
    eager, static = m["tf2-eager"], m["tf2-function"]
    interval = speed_ratio(eager, static)
    faster = interval.estimate
    checks = [check(interval, ">=", 1.1, label="static speed over eager", quoted=1.29)]
    if eager["memory"]:
        checks.append(check(static["memory"] / eager["memory"], "<=", 0.9, label="static memory over eager",
                            quoted=0.8))
    start = static["first_call"] / eager["first_call"]
    checks.append(check(start, ">=", 3.0, 0.1 * start, label="static first call over eager", quoted=37.0))
    mem = f"{static['memory'] / eager['memory']:.2f}x" if eager["memory"] else "n/a"
    verdict = all_of(checks + ([] if eager["memory"] else [INCONCLUSIVE]))
    reason = "" if eager["memory"] else "eager's peak memory is 0 (no allocator statistics), so memory is not judged"
    return Judged(verdict, (
        f"{m['scale']}: static (tf.function) {faster:.2f}x eager speed per step (95% CI {interval.low:.2f}"
        f"\u2013{interval.high:.2f}; quoted 1.29x), memory {mem} of eager "
        f"(quoted 0.8x), first call {static['first_call']:.2f} s vs eager {eager['first_call']:.2f} s "
        f"(quoted 3.7 s vs 0.1 s)"), "the direction of each quoted figure: >= 1.1x faster, <= 0.9x memory, >= 3x first call",
        tuple(checks), reason=reason, direction_only=True)


# the memory part rests on the same allocator and threads as claim 8
CLAIM = Claim(11, "ResNet-50: static ~29% faster per step, ~20% less memory, ~3.7 s vs ~0.1 s first start", measure, judge,
              depends_on=("oneDNN", "threads"))
