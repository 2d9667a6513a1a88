"""TF1's initial-value schemes named as the Keras initializers that draw the same distribution.

`tf.layers.dense`, `tf.get_variable` and `contrib.layers.xavier_initializer()` draw Glorot-uniform weights by
default; read back from the graph they are `uniform(-0.0753, 0.0753)` for a [784, 256] kernel, a number a reader
cannot check. Where the scheme's parameters are exactly a variance-scaling initializer's for the variable's
shape (the fans computed as TF1 and Keras both compute them), the rewrite names it (`GlorotUniform()`), else it
writes the distribution as read.
"""

from __future__ import annotations

import math

__all__ = ["named"]

_TRUNCATED = 0.87962566103423978  # the stddev of a unit normal truncated at two stddevs (Keras and TF1 divide by it)
# Keras class -> (scale, fan mode, distribution) of its VarianceScaling
_KNOWN = {
    "GlorotUniform": (1.0, "fan_avg", "uniform"), "GlorotNormal": (1.0, "fan_avg", "truncated_normal"),
    "HeUniform": (2.0, "fan_in", "uniform"), "HeNormal": (2.0, "fan_in", "truncated_normal"),
    "LecunUniform": (1.0, "fan_in", "uniform"), "LecunNormal": (1.0, "fan_in", "truncated_normal"),
}


def _fans(shape: list[int]) -> tuple[float, float]:
    """(fan_in, fan_out) of a non-empty shape, as TF1's and Keras's variance scaling compute them."""
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    receptive = math.prod(shape[:-2]) if len(shape) > 2 else 1
    return float(shape[-2] * receptive), float(shape[-1] * receptive)


def named(scheme: dict | None, shape: list[int]) -> str | None:
    """The Keras initializer whose draws have `scheme`'s distribution for `shape` (`GlorotUniform()`, or a
    `VarianceScaling(...)` no class names: an untruncated normal such as `xavier_init`'s sqrt(2 / fan_in)), or None."""
    if not scheme or not shape or any(not isinstance(d, int) or d <= 0 for d in shape) or _literal(scheme):
        return None
    fan_in, fan_out = _fans(shape)
    fans = {"fan_in": fan_in, "fan_avg": (fan_in + fan_out) / 2, "fan_out": fan_out}
    for name, (scale, mode, distribution) in _KNOWN.items():
        if _matches(scheme, scale, fans[mode], distribution):
            return f"{name}()"
    for scale in (1.0, 2.0):
        for mode, n in fans.items():
            if _matches(scheme, scale, n, "untruncated_normal"):
                return f'VarianceScaling(scale={scale}, mode="{mode}", distribution="untruncated_normal")'
    return None


def _literal(scheme: dict) -> bool:
    """A scale of three significant digits or fewer (`tf.random_normal(shape)`'s 1.0, a `stddev=0.1`): a number the
    script wrote, which fits a variance scaling only by the accident of this shape (N(0, 1) is
    `VarianceScaling(scale=2.0, mode="fan_out")` for two classes, and nothing like it for twenty)."""
    value = scheme.get("stddev") if scheme.get("scheme") in ("normal", "truncated_normal") else scheme.get("high")
    if not isinstance(value, (int, float)) or not value:
        return False
    return math.isclose(value, float(f"{value:.3g}"), rel_tol=1e-6)


def _matches(scheme: dict, scale: float, n: float, distribution: str) -> bool:
    kind = scheme.get("scheme")
    if distribution == "uniform" and kind == "uniform":
        limit = math.sqrt(3.0 * scale / n)
        return math.isclose(scheme["high"], limit, rel_tol=1e-5) and math.isclose(scheme["low"], -limit, rel_tol=1e-5)
    if distribution in ("truncated_normal", "untruncated_normal") and not scheme.get("mean") and \
            kind == {"truncated_normal": "truncated_normal", "untruncated_normal": "normal"}[distribution]:
        stddev = math.sqrt(scale / n) / (_TRUNCATED if distribution == "truncated_normal" else 1.0)
        return math.isclose(scheme["stddev"], stddev, rel_tol=1e-5)
    return False
