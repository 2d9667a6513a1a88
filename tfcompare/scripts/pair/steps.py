"""Each step's verdict: TF2 against TF1, loss, gradients and weights, beside TF1's own noise floor (`child.noise`).

A tensor differs when it fails the element-wise tolerance and its error relative to its norm is beyond
`noise.FACTOR` times its floor; from the second step on the weights are judged together, as one state
(`state_squares` says why). The steps as the script runs them (traced) are judged by the same rule.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from tfcompare.core.equivalence import compare
from tfcompare.scripts.child import noise
from tfcompare.scripts.child.record import SideRecord
from tfcompare.scripts.pair.findings import Finding

__all__ = ["StepCheck", "step_checks", "state_squares", "traced_findings"]


@dataclasses.dataclass
class StepCheck:
    """One step: TF2 against TF1 (element-wise, and relative to each tensor's norm) beside TF1's own noise floor
    (the same relative error between TF1 and TF1 replayed; see `noise`). None: no floor was measured."""

    step: int  # from 1
    loss_tf1: float
    loss_tf2: float
    loss_ok: bool
    gradients_max_abs_err: float
    gradients_ok: bool
    weights_max_abs_err: float
    weights_ok: bool
    worst: str = ""
    loss_rel_err: float = 0.0
    loss_floor: float | None = None
    gradients_rel_err: float = 0.0
    gradients_floor: float | None = None
    weights_rel_err: float = 0.0
    weights_floor: float | None = None
    non_finite_tf1: str = ""  # loss | gradients | weights: the first of them NaN or inf in this step on TF1
    non_finite_tf2: str = ""
    weights_as_state: bool = False  # the weights' rel err and floor are the whole state's (`state_squares`)

    @property
    def ok(self) -> bool:
        """NaN against NaN (or inf against inf) is never an agreement: a non-finite step is never ok."""
        return self.loss_ok and self.gradients_ok and self.weights_ok and not (self.non_finite_tf1 or
                                                                                self.non_finite_tf2)


def _by_tf1(tf2: SideRecord, values: dict, pairs: list[tuple[str, str, str]]) -> dict:
    mine = {b: a for a, b, _ in pairs}
    return {mine[k]: v for k, v in values.items() if k in mine}


def _judge(label: str, values: dict, reference: dict, floors: dict | None, squares: dict | None = None):
    """(max abs err, ok, max relative err, max floor, first failing tensor): a tensor fails when its element-wise
    tolerance fails and its relative error is beyond the noise floor. With `squares` (the replays' squared gaps per
    tensor, from the second step on) the tensors are judged as one state: they fail when one fails its element-wise
    tolerance and the state's error is beyond the state's floor; the error and floor returned are the state's, the
    tensor named the first that fails its tolerance."""
    eq = compare(values, reference, "float32", against="TF1")
    ok, worst, rel_max, floor_max, failing = True, "", 0.0, None, []
    for c in eq.checks:
        rel = noise.relative(reference[c.name], values[c.name]) if c.name in values and c.name in reference else \
            float("inf")
        floor = None if floors is None else floors.get(c.name)
        rel_max = max(rel_max, rel)
        if floor is not None:
            floor_max = max(floor_max or 0.0, floor)
        if not c.ok:
            failing.append(c.name)
        if not c.ok and noise.beyond(rel, floor):
            ok = False
            worst = worst or f"{label} {c.name}"
    if squares is not None and set(reference) <= set(values):
        rel_max, floor_max = noise.whole(reference, values, squares)
        if floor_max is not None:
            ok = not (failing and noise.beyond(rel_max, floor_max))
            worst = "" if ok else f"{label} {failing[0]}"
    return eq.max_abs_err, ok, rel_max, floor_max, worst


def _non_finite(rec: SideRecord, k: int) -> str:
    """The first of step k's loss, gradients and weights after it that holds a NaN or inf, in the order the
    step computes them ("" when all are finite)."""
    if not math.isfinite(rec.losses[k]):
        return "loss"
    for kind, name in (("grad", "gradients"), ("after", "weights")):
        if any(not np.all(np.isfinite(np.asarray(v, np.float64))) for v in rec.weights(kind, k).values()):
            return name
    return ""


def step_checks(tf1: SideRecord, tf2: SideRecord, pairs) -> list[StepCheck]:
    out = []
    for k in range(min(tf1.steps, tf2.steps)):
        floor = tf1.floor[k] if k < len(tf1.floor) else None
        loss = compare({"loss": tf2.losses[k]}, {"loss": tf1.losses[k]}, "float32", against="TF1")
        loss_rel = noise.relative(tf1.losses[k], tf2.losses[k])
        loss_floor = floor["loss"] if floor else None
        loss_ok = loss.ok or not noise.beyond(loss_rel, loss_floor)
        g_err, g_ok, g_rel, g_floor, g_worst = _judge("gradient of", _by_tf1(tf2, tf2.weights("grad", k), pairs),
                                                      tf1.weights("grad", k), floor and floor["gradients"])
        if k and not g_ok:
            # from step 2 on the gradients are taken at weights that already differ within the noise, and a
            # gradient jumps where a ReLU's input or an Adam update's sign crosses zero: the loss and the weights
            # after the step decide (a gradient that matters moves them), the gradient's error is still shown
            g_ok, g_worst = True, ""
        squares = state_squares(floor, k, "weights")
        w_err, w_ok, w_rel, w_floor, w_worst = _judge("weights of", _by_tf1(tf2, tf2.weights("after", k), pairs),
                                                      tf1.weights("after", k), floor and floor["weights"], squares)
        out.append(StepCheck(k + 1, tf1.losses[k], tf2.losses[k], loss_ok, g_err, g_ok, w_err, w_ok,
                             g_worst or w_worst, loss_rel, loss_floor, g_rel, g_floor, w_rel, w_floor,
                             _non_finite(tf1, k), _non_finite(tf2, k), squares is not None))
    return out


def state_squares(floor: dict | None, k: int, what: str) -> dict | None:
    """From the second step on, the replays' squared gaps per tensor (`noise.whole`), by which the tensors are
    judged as one state; None at the first step. The first step's gradients are taken at the same weights on the
    same batch on both sides, so each tensor's own floor holds its rounding. From the second step on they are taken
    at weights that already differ within the noise: where a ReLU unit's input crosses zero, or an Adam update's sign
    turns on a gradient near zero, one unit's weights move by a whole update on one side only, and which tensor that
    lands in is chance (seen on a 41-convolution ResNet: one bias element 0.00126 apart after step 3, 56x that
    bias's own floor from six replays, while the whole state was 1.9x an upper bound of its floor)."""
    if not k or not floor or "squares" not in floor:
        return None
    return floor["squares"].get(what)


def traced_findings(tf1: SideRecord, tf2: SideRecord, pairs, checks: list[StepCheck]) -> list[Finding]:
    """The steps as the script runs them (its tf.function traced, `tf2_traced`) against TF1: a step that fails or
    computes otherwise only when traced is decisive, since that is what the script does on its own."""
    if tf2.traced_error:
        return [Finding("traced", f"the TF2 step fails when traced as the script runs it (tf.function), though it "
                                  f"ran eagerly: {tf2.traced_error}", True)]
    out = []
    for k in [k for k in tf2.traced_at if k < len(checks)]:
        floor = tf1.floor[k] if k < len(tf1.floor) else None
        _, ok, rel, floor_max, worst = _judge("weights of", _by_tf1(tf2, tf2.weights("traced/after", k), pairs),
                                              tf1.weights("after", k), floor and floor["weights"],
                                              state_squares(floor, k, "weights"))
        if not ok and checks[k].weights_ok:
            out.append(Finding("traced", f"the TF2 step traced (tf.function, as the script runs it) computes "
                                         f"otherwise than its eager run: at step {k + 1} the {worst} after it are "
                                         f"{rel:.2g} from TF1's (floor {floor_max if floor_max is not None else 0:.2g}), "
                                         "while the eager step agrees (the replay starts from the same variables; "
                                         "Python state the step reads, such as a counter, is where the eager run "
                                         "left it)", True))
            break
    return out
