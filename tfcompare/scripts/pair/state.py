"""The non-trainable state both steps change, compared: batch-norm moving statistics, moving averages.

A training-mode loss never reads a moving statistic, so two scripts can agree on every loss, gradient and weight
while their models predict differently at inference: a Keras momentum of 0.99 against TF1's decay of 0.9, or a
TF1 train op that does not run its batch norm's UPDATE_OPS. Each side records every non-trainable float variable
of rank >= 1 (optimizer slots left out) just before the first step and after it (TF1: around the script's own
first `Session.run`) and after every step; they pair by shape, then by what their names say (mean, variance),
then by creation order. Nothing of tfcompare's runs a TF1 update between steps (the learning rate is a fetch of the
script's own run), so the sides' states can be compared at every step.
"""

from __future__ import annotations

import numpy as np

from tfcompare.scripts.child.noise import beyond, relative
from tfcompare.scripts.child.record import SideRecord
from tfcompare.scripts.pair.findings import Finding

__all__ = ["pair_state", "state_findings", "REL_TOL"]

# moving statistics are sums of batch statistics scaled by constants: faithful sides differ by float32 rounding
# (relative ~1e-7 over a few steps); a decay of 0.9 against 0.99 or a missing update moves them by 1e-2 and more
REL_TOL = 1e-4
_TOKENS = ("mean", "var")


def _token(name: str) -> str | None:
    last = name.lower().rsplit("/", 1)[-1]
    found = [t for t in _TOKENS if t in last]
    return found[0] if len(found) == 1 else None


def pair_state(tf1: SideRecord, tf2: SideRecord) -> tuple[list[tuple[dict, dict]], list[dict], list[dict]]:
    """(paired, TF1's unpaired, TF2's unpaired): by shape; within a shape by name token where every name has
    one, else by creation order."""
    pairs, left1, left2 = [], [], []
    for shape in dict.fromkeys(tuple(s["shape"]) for s in tf1.state + tf2.state):
        one = [s for s in tf1.state if tuple(s["shape"]) == shape]
        two = [s for s in tf2.state if tuple(s["shape"]) == shape]
        if all(_token(s["name"]) for s in one + two):
            for token in _TOKENS:
                a = [s for s in one if _token(s["name"]) == token]
                b = [s for s in two if _token(s["name"]) == token]
                pairs += list(zip(a, b))
                left1 += a[len(b):]
                left2 += b[len(a):]
        else:
            pairs += list(zip(one, two))
            left1 += one[len(two):]
            left2 += two[len(one):]
    return pairs, left1, left2


def _steps(rec: SideRecord, key: str) -> list[np.ndarray]:
    """[before the first step, after step 1, after step 2, ...] as far as the side recorded."""
    out, step = [rec.arrays[f"state/init/{key}"]], 0
    while f"state/{step}/{key}" in rec.arrays:
        out.append(rec.arrays[f"state/{step}/{key}"])
        step += 1
    return out


def state_findings(tf1: SideRecord, tf2: SideRecord) -> list[Finding]:
    """A decisive finding per paired state that differs after a step (the first such step), naming the likely
    cause. Beyond REL_TOL and beyond TF1's own noise floor for that state and step, where the replays measured one
    (a moving mean of activations that follow a weight Adam moves by the sign of a rounding-sized gradient moves as
    far in TF1's own replays)."""
    out = []
    for a, b in pair_state(tf1, tf2)[0]:
        one, two = _steps(tf1, a["key"]), _steps(tf2, b["key"])
        for step in range(1, min(len(one), len(two))):
            err = relative(one[step], two[step])
            if err <= REL_TOL or np.allclose(one[step], two[step], rtol=REL_TOL, atol=1e-6):
                continue
            floor = tf1.floor[step - 1].get("state", {}).get(a["key"]) if step - 1 < len(tf1.floor) else None
            if floor is not None and not beyond(err, floor):
                continue
            cause = _cause(a, b, one[:2], two[:2]) if step == 1 else "step 1 agreed (a difference that builds up)"
            over = f"over {REL_TOL:g}" + (f", floor {floor:.2g}" if floor is not None else "")
            out.append(Finding("state", f"{_label(a, b)} after step {step}: rel err {err:.2g} ({over}); "
                                        f"{cause}", True))
            break
    return out


def _label(a: dict, b: dict) -> str:
    return f"non-trainable state {a['name']} {tuple(a['shape'])} (TF1) vs {b['name']} (TF2)"


def _cause(a: dict, b: dict, one: list, two: list) -> str:
    moved1, moved2 = not np.array_equal(one[0], one[1]), not np.array_equal(two[0], two[1])
    if moved2 and not moved1:
        return (f"TF1 never updates {a['name']}: the train op does not run its update (a batch norm's UPDATE_OPS "
                "not made a control dependency of the train op)")
    if moved1 and not moved2:
        return f"TF2 never updates {b['name']} (a layer called with training=False in the step?)"
    if not relative(one[0], two[0]) <= REL_TOL:
        return "they start from other values (the initial moving statistics differ)"
    d1, d2 = np.asarray(one[1], np.float64) - one[0], np.asarray(two[1], np.float64) - two[0]
    big = np.abs(d1) > 1e-6 * max(float(np.abs(d1).max()), 1e-30)
    if not big.any():
        return "their updates differ"
    ratio = float(np.median(d2[big] / d1[big]))
    text = f"after step 1 TF2 moved it {ratio:.3g}x as far as TF1"
    momentum = b.get("momentum")
    if isinstance(momentum, (int, float)) and ratio > 0:
        decay = 1.0 - (1.0 - momentum) / ratio
        text += (f": Keras momentum {momentum:g} against a TF1 decay of {decay:.3g} "
                 f"(each step keeps momentum x the old value and adds (1 - momentum) x the batch's)")
    return text
