"""Claim 12: compiling only the hot path recovers most of the whole-step gain (partial conversion)."""

from __future__ import annotations

from tfcompare.claims.claim import Claim, Judged
from tfcompare.claims.verdicts import all_of, check

__all__ = ["CLAIM"]

_CASES = ("elementwise", "matmul")  # dispatch-bound and compute-bound
_MODES = ("tf2-eager", "tf2-partial", "tf2-function")
_THRESHOLD = 0.5


def measure(ctx):
    runs = ctx.harness("c12-partial", list(_CASES), list(_MODES))
    return {case: {m: runs[(case, m)] for m in _MODES} for case in _CASES}


def judge(m):
    checks, parts = [], []
    for case in _CASES:
        eager, partial, whole = (m[case][k] for k in _MODES)
        gain = eager["median"] - whole["median"]  # seconds per step the whole-step tf.function saves
        if gain <= 0:
            checks.append(check(0.0, ">=", _THRESHOLD, unit="%", label=f"{case} gain recovered"))
            parts.append(f"{case}: tf.function saved nothing over eager")
            continue
        recovered = (eager["median"] - partial["median"]) / gain
        noise = (eager["iqr"] + partial["iqr"] + whole["iqr"]) / 2 / gain
        checks.append(check(recovered, ">=", _THRESHOLD, noise, unit="%", label=f"{case} gain recovered"))
        parts.append(f"{case}: partial {partial['median'] * 1e3:.2f} ms recovers {recovered:.0%} of the "
                     f"{eager['median'] * 1e3:.2f} -> {whole['median'] * 1e3:.2f} ms gain")
    return Judged(all_of(checks), "; ".join(parts), (
        f"on each case, the step time partial conversion saves over eager is >= {_THRESHOLD:.0%} of what the "
        "whole-step tf.function saves, beyond noise"), tuple(checks))


CLAIM = Claim(12, "Compiling only the hot path (forward and gradients; the update stays eager) recovers most of the "
                  "whole-step tf.function gain", measure, judge)
