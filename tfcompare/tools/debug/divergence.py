"""The first training step at which a mode leaves tolerance against tf1-graph, and what left first.

Each mode's trajectory (loss and every weight after each of K steps, from the shared initial weights) is compared
step by step, so a difference that compounds is caught where it starts, not only after K steps.
"""

from __future__ import annotations

import numpy as np

from tfcompare.core.equivalence import Tolerance
from tfcompare.tools.debug.report import Divergence

__all__ = ["trajectory", "divergence"]


def trajectory(runner, batches: list[dict], on_step=None) -> tuple[list[float], list[dict]]:
    """Loss and weights after each step, from the initial weights."""
    runner.reset()
    losses, weights = [], []
    for i, batch in enumerate(batches):
        if on_step is not None:
            on_step(i + 1)
        losses.append(float(runner.train([batch])[0]))
        weights.append({k: np.array(v, copy=True) for k, v in runner.weights().items()})
    return losses, weights


def _excess(value, ref, tol: Tolerance) -> float:
    """How far past tolerance (> 0: outside), NaN/inf on one side only counting as infinitely far."""
    value, ref = np.asarray(value, np.float64), np.asarray(ref, np.float64)
    same_nonfinite = ~np.isfinite(ref) & ~np.isfinite(value) & ((value == ref) | (np.isnan(value) & np.isnan(ref)))
    with np.errstate(invalid="ignore"):
        diff = np.where(same_nonfinite, 0.0, np.abs(value - ref))
        allowed = tol.atol + tol.rtol * np.abs(np.where(np.isfinite(ref), ref, 0.0))
        excess = np.where(np.isnan(diff), np.inf, diff / allowed)
    return float(excess.max()) if excess.size else 0.0


def divergence(mode: str, against: str, mine: tuple[list, list], reference: tuple[list, list],
               tol: Tolerance) -> Divergence:
    losses, weights = mine
    ref_losses, ref_weights = reference
    out = Divergence(mode, against, len(ref_losses), None, losses=losses, reference_losses=ref_losses)
    for k, (loss, ref_loss, w, ref_w) in enumerate(zip(losses, ref_losses, weights, ref_weights)):
        both = [name for name, mine_v, ref_v in [("loss", loss, ref_loss), *((n, w[n], ref_w[n]) for n in ref_w)]
                if not np.all(np.isfinite(mine_v)) and not np.all(np.isfinite(ref_v))]
        if both:  # NaN against NaN: the same non-finite value is no evidence that the modes agree
            out.non_finite_step, out.non_finite = k + 1, both
            break
        excess = {"loss": _excess(loss, ref_loss, tol)}
        excess.update({name: _excess(w[name], ref_w[name], tol) for name in ref_w})
        outside = sorted((n for n, e in excess.items() if e > 1.0), key=lambda n: -excess[n])
        if outside:
            out.first_step, out.left_first = k + 1, outside
            break
    return out
