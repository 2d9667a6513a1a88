"""TF2's own first batch against TF1's, before TF1's replaced it: the data a rewrite feeds its model.

Both scripts' known loaders give the same seeded examples in the same order, so the n-th example of one side's
first batch is the n-th of the other's unless a script changed it. Each TF2 step input that took a TF1 feed is
compared with that feed (after the format conversion `pair` itself applies: reshaped, cast, one-hot to ids):
batch size, then equal values, else the common mistakes by name: a constant scale (/255 forgotten), an affine
change (a normalisation on one side), a transposed or permuted layout (NHWC vs NCHW, an image transposed), and
otherwise different examples, compared by per-feature statistics only (said once).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from tfcompare.scripts.child import batches

__all__ = ["Issue", "compare_batches"]

_Z = 6.0  # a per-feature mean this many standard errors apart is not sampling


class Issue:
    """One input difference: text, and whether it changes the verdict (a note otherwise)."""

    def __init__(self, text: str, decisive: bool = True):
        self.text, self.decisive = text, decisive


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    scale = float(np.max(np.abs(b))) if b.size else 0.0
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-5, atol=1e-6 * max(scale, 1.0)))


def _shapes(size: int) -> list[tuple[int, ...]]:
    """Per-example shapes of 2 and 3 axes (each > 1) holding `size` values."""
    out = []
    for a in range(2, size):
        if size % a == 0 and size // a > 1:
            out.append((a, size // a))
            rest = size // a
            for b in range(2, rest):
                if rest % b == 0 and rest // b > 1:
                    out.append((a, b, rest // b))
    return sorted(out, key=_likely)


def _likely(shape: tuple) -> tuple:
    """Images with 3 or 4 channels first, then 2 axes before 3, square before long."""
    channels = len(shape) == 3 and (shape[2] in (3, 4) or shape[0] in (3, 4))
    spatial = (shape[:2] if shape[2] in (3, 4) else shape[1:]) if channels else shape
    channels = channels and max(spatial) <= 2 * min(spatial)
    return (not channels, len(shape), max(spatial) / min(spatial))


def _layout(one: np.ndarray, two: np.ndarray) -> str:
    """How TF2's examples are TF1's with their axes permuted; "" when they are not."""
    one, two = one[:8], two[:8]  # a few examples tell a layout
    m, size = len(two), int(np.prod(two.shape[1:]))
    flat = one.reshape(m, size)
    for shape in _shapes(size):
        for order in itertools.permutations(range(len(shape))):
            if order == tuple(range(len(shape))):
                continue
            moved = flat.reshape(m, *shape).transpose(0, *[1 + i for i in order])
            if _close(moved.reshape(two.shape), two):
                return _layout_name(shape, order)
    return ""


def _layout_name(shape: tuple, order: tuple) -> str:
    moved = tuple(shape[i] for i in order)
    if len(shape) == 2:
        return f"TF2's examples are TF1's read as {shape} and transposed"
    if len(shape) == 3 and order == (2, 0, 1) and shape[2] in (1, 3, 4):
        return f"channels last in TF1 (NHWC, {shape} per example), channels first in TF2 (NCHW, {moved})"
    if len(shape) == 3 and order == (1, 2, 0) and shape[0] in (1, 3, 4):
        return f"channels first in TF1 (NCHW, {shape} per example), channels last in TF2 (NHWC, {moved})"
    return f"TF2's examples are TF1's read as {shape} with the axes permuted to {order} ({moved})"


def _statistics(one: np.ndarray, two: np.ndarray) -> Issue:
    """Different examples: per-feature means and standard deviations, with the sampling error of each."""
    a, b = one.reshape(len(one), -1).astype(np.float64), two.reshape(len(two), -1).astype(np.float64)
    if a.shape[1] != b.shape[1]:
        return Issue(f"per example TF1 has {a.shape[1]} values, TF2 {b.shape[1]}")
    error = np.sqrt(a.var(axis=0) / len(a) + b.var(axis=0) / len(b))
    gap = np.abs(a.mean(axis=0) - b.mean(axis=0))
    apart = gap > _Z * np.maximum(error, 1e-12 * max(float(np.abs(a).max(initial=0)), 1.0))
    spread = np.abs(np.log((b.std() + 1e-12) / (a.std() + 1e-12)))
    summary = (f"TF1 range [{a.min():.3g}, {a.max():.3g}] mean {a.mean():.3g} std {a.std():.3g}, TF2 range "
               f"[{b.min():.3g}, {b.max():.3g}] mean {b.mean():.3g} std {b.std():.3g}")
    if apart.mean() > 0.05 or spread > math.log(1.5):
        return Issue(f"their values differ in distribution: {apart.sum()} of {apart.size} features' means are over "
                     f"{_Z:g} standard errors apart; {summary}")
    return Issue("the two sides' first batches hold different examples (another file, order or augmentation?), so "
                 f"they were compared by statistics only, which agree: {summary}", decisive=False)


def compare_batches(one: np.ndarray, kind1: str, two: np.ndarray, spec: dict) -> list[Issue]:
    """TF1's feed `one` (of batches.kind `kind1`) against TF2's own input `two`, converted as `spec` says."""
    n1, n2 = len(one), len(two)
    out = []
    if n1 != n2:
        out.append(Issue(f"batch size: {n1} in TF1, {n2} in TF2"))
    m = min(n1, n2)
    converted = batches.apply(one[:m], spec["convert"], tuple(two.shape[1:]) if spec["convert"] != "onehot" else
                              tuple(spec["shape"]), two.dtype) if m else one[:0]
    mine = two[:m]
    if m == 0 or _close(mine.astype(np.float64), converted.astype(np.float64)):
        return out
    a, b = converted.astype(np.float64), mine.astype(np.float64)
    if kind1 in ("int", "onehot") or spec["convert"] in ("argmax", "onehot"):
        same = int(np.sum(np.all((a == b).reshape(m, -1), axis=1)))
        out.append(Issue(f"labels: {m - same} of the first {m} examples' labels differ (TF1 {a.ravel()[:5]}, TF2 "
                         f"{b.ravel()[:5]}, ...)"))
        return out
    scale = float(a.ravel() @ b.ravel()) / float(a.ravel() @ a.ravel()) if np.any(a) else 0.0
    if scale and _close(b, scale * a):
        why = ("; TF1 divides by 255, TF2 does not" if math.isclose(scale, 255, rel_tol=1e-3) else
               "; TF2 divides by 255, TF1 does not" if math.isclose(scale, 1 / 255, rel_tol=1e-3) else "")
        out.append(Issue(f"scale: TF2's values are TF1's x {scale:.4g} (TF1 range [{a.min():.3g}, {a.max():.3g}], "
                         f"TF2 [{b.min():.3g}, {b.max():.3g}]{why})"))
        return out
    design = np.stack([a.ravel(), np.ones(a.size)], axis=1)
    (slope, shift), *_ = np.linalg.lstsq(design, b.ravel(), rcond=None)
    if _close(b, slope * a + shift):
        out.append(Issue(f"normalisation: TF2's values are TF1's x {slope:.4g} + {shift:.4g} (TF1 mean {a.mean():.3g} "
                         f"std {a.std():.3g}, TF2 mean {b.mean():.3g} std {b.std():.3g})"))
        return out
    layout = _layout(a, b) if a.size == b.size else ""
    if layout:
        out.append(Issue(f"layout: {layout}"))
        return out
    out.append(_statistics(a, b))
    return out
