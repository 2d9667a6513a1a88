"""What a training step does to its gradients between computing and applying them: clipping, as one setting.

TF1 writes the transform into the graph between `compute_gradients` and `apply_gradients`
(`tf.clip_by_global_norm`, `tf.clip_by_norm` per tensor, `tf.clip_by_value`); Keras 3 makes it an optimizer
setting (`global_clipnorm`, `clipnorm`, `clipvalue`) applied inside `apply_gradients`, and a TF2 script may also
clip by hand between `tape.gradient` and `apply_gradients`. Each is read here as the same small dict,
`{"kind", "value", "source"}`, so a pair compares the gradients before the transform on both sides, the update
after it, and the transform itself as a setting ("clipnorm vs global_clipnorm" named as such).
"""

from __future__ import annotations

import math

import numpy as np

from tfcompare.core.graphs import static_value

__all__ = ["NONE", "GLOBAL_NORM", "NORM", "VALUE", "OTHER", "none", "keras_transform", "tf1_transform",
           "inferred_transform", "apply", "cuts", "text", "difference", "KERAS_KEYS", "UNSEEN"]

# TF2's gradients reached apply_gradients as the tape gave them at the first step: no clip cut, or none is there
UNSEEN = "by hand or none: nothing cut at the first step"

NONE, GLOBAL_NORM, NORM, VALUE, OTHER = "none", "global_norm", "norm", "value", "other"
# the Keras optimizer setting of each kind, and TF1's function for it
KERAS_KEYS = {GLOBAL_NORM: "global_clipnorm", NORM: "clipnorm", VALUE: "clipvalue"}
_TF1_NAMES = {GLOBAL_NORM: "tf.clip_by_global_norm", NORM: "tf.clip_by_norm", VALUE: "tf.clip_by_value"}
_WORDS = {GLOBAL_NORM: "all gradients together clipped to a global norm of {c}",
          NORM: "each gradient clipped to a norm of {c}", VALUE: "each gradient element clipped to [-{c}, {c}]"}


def none() -> dict:
    return {"kind": NONE, "value": None, "source": ""}


def keras_transform(extras: dict) -> dict:
    """From a Keras optimizer's settings that are on (`OptimizerSide.extras`)."""
    for kind, key in KERAS_KEYS.items():
        if extras.get(key) is not None:
            return {"kind": kind, "value": float(extras[key]), "source": f"{key}={extras[key]:g}"}
    return none()


def tf1_transform(raw, applied) -> dict:
    """From a TF1 graph: the ops between the gradients `compute_gradients`/`tf.gradients` returned (`raw`) and
    those `apply_gradients` was given (`applied`), lists of tensors in the same order. The clip value is read
    where it is a constant; `other` is a transform that is none of the three (scaling, noise)."""
    from tfcompare.core.graphs import ancestors

    if all(a is r for a, r in zip(applied, raw)):
        return none()
    before = set(ancestors([r for r in raw if r is not None]))
    between = [op for op in ancestors([a for a in applied if a is not None]) if op not in before]
    for op in between:
        if op.type == "Minimum" and "clip_by_global_norm" in op.name:
            users = [c for c in op.outputs[0].consumers() if c.type == "Mul"]
            value = next((v for c in users for v in map(_static, c.inputs) if v is not None), None)
            return _tf1(GLOBAL_NORM, value)
    for op in between:
        if op.type == "Maximum" and "clip_by_norm" in op.name:
            return _tf1(NORM, _static(op.inputs[1]))
    for op in between:
        if op.type == "ClipByValue" or (op.type == "Minimum" and "clip_by_value" in op.name):
            return _tf1(VALUE, _static(op.inputs[-1]))
    return {"kind": OTHER, "value": None, "source": "ops between compute_gradients and apply_gradients: "
            + ", ".join(sorted({op.type for op in between})[:6])}


def _tf1(kind: str, value) -> dict:
    shown = "?" if value is None else f"{value:g}"
    return {"kind": kind, "value": value, "source": f"{_TF1_NAMES[kind]}(..., {shown})"}


def _static(tensor) -> float | None:
    value = static_value(tensor)
    return None if value is None or np.ndim(value) else float(value)


def inferred_transform(raw: list[np.ndarray], applied: list[np.ndarray]) -> dict:
    """From numbers only (a TF2 script that clips by hand between the tape and `apply_gradients`): the first
    step's gradients and what was applied. A transform that cut nothing that step cannot be seen: none."""
    raw = [np.asarray(r, np.float64) for r in raw]
    applied = [np.asarray(a, np.float64) for a in applied]
    if all(np.allclose(a, r, rtol=1e-6, atol=0) for a, r in zip(applied, raw)):
        return {"kind": NONE, "value": None, "source": UNSEEN}
    scales = [float(a.ravel() @ r.ravel() / (r.ravel() @ r.ravel())) if np.any(r) else 1.0
              for a, r in zip(applied, raw)]
    if all(np.allclose(a, s * r, rtol=1e-5, atol=1e-12) for a, r, s in zip(applied, raw, scales)):
        total = math.sqrt(sum(float(r.ravel() @ r.ravel()) for r in raw))
        if max(scales) - min(scales) <= 1e-5 * max(abs(s) for s in scales) and scales[0] < 1:
            return {"kind": GLOBAL_NORM, "value": scales[0] * total, "source": "tf.clip_by_global_norm (by hand)"}
        cut = [s * float(np.linalg.norm(r)) for s, r in zip(scales, raw) if s < 1 - 1e-6]
        if cut and max(cut) - min(cut) <= 1e-4 * max(cut):
            return {"kind": NORM, "value": cut[0], "source": "tf.clip_by_norm (by hand)"}
    bound = max(float(np.abs(a).max()) for a in applied if a.size)
    if all(np.allclose(a, np.clip(r, -bound, bound), rtol=1e-6, atol=1e-12) for a, r in zip(applied, raw)):
        return {"kind": VALUE, "value": bound, "source": "tf.clip_by_value (by hand)"}
    return {"kind": OTHER, "value": None, "source": "the gradients applied are not the tape's (by hand)"}


def apply(transform: dict, grads: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The transform on NumPy gradients (a replay of the update from recorded gradients)."""
    kind, c = transform.get("kind", NONE), transform.get("value")
    if kind in (NONE, OTHER) or c is None:
        return dict(grads)
    if kind == GLOBAL_NORM:
        total = math.sqrt(sum(float(np.sum(np.square(g, dtype=np.float64))) for g in grads.values()))
        scale = min(1.0, c / total) if total else 1.0
        return {k: (g * scale).astype(g.dtype) for k, g in grads.items()}
    if kind == NORM:
        out = {}
        for k, g in grads.items():
            norm = float(np.linalg.norm(np.asarray(g, np.float64)))
            out[k] = (g * (c / norm)).astype(g.dtype) if norm > c else g
        return out
    return {k: np.clip(g, -c, c) for k, g in grads.items()}


def cuts(transform: dict, grads: dict[str, np.ndarray]) -> bool:
    """Whether the transform changes these gradients (a clip whose bound they stay under changes nothing)."""
    if transform.get("kind", NONE) in (NONE, OTHER) or transform.get("value") is None:
        return transform.get("kind") == OTHER
    after = apply(transform, grads)
    return any(not np.array_equal(after[k], grads[k]) for k in grads)


def text(transform: dict) -> str:
    """`all gradients together clipped to a global norm of 1 (tf.clip_by_global_norm(..., 1))`."""
    kind = transform.get("kind", NONE)
    if kind == NONE:
        return "gradients applied as computed"
    if kind == OTHER:
        return f"gradients transformed before they are applied ({transform.get('source')})"
    value = transform.get("value")
    return f"{_WORDS[kind].format(c='c' if value is None else f'{value:.4g}')} ({transform.get('source')})"


def difference(tf1: dict, tf2: dict) -> str | None:
    """None when both sides transform their gradients the same way; else the sentence that names both and what
    the TF2 side should say instead."""
    k1, k2 = tf1.get("kind", NONE), tf2.get("kind", NONE)
    v1, v2 = tf1.get("value"), tf2.get("value")
    if k1 == k2 and (k1 in (NONE, OTHER) or v1 is None or v2 is None or math.isclose(v1, v2, rel_tol=1e-4)):
        return None
    out = f"gradient clipping: TF1 {text(tf1)}, TF2 {text(tf2)}"
    if k1 in KERAS_KEYS:
        out += f"; Keras's {KERAS_KEYS[k1]}={'c' if v1 is None else f'{v1:g}'} is what TF1 does"
    elif k1 == NONE and k2 in KERAS_KEYS and tf2.get("source", "").startswith(KERAS_KEYS[k2]):
        out += f"; TF1 clips nothing: drop {KERAS_KEYS[k2]}"
    return out
