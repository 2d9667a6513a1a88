"""Was each paired variable initialised the same way on both sides? By scheme where it can be read, by statistics
with a threshold that grows with fewer values.

TF1's scheme is read from the variable's initial-value ops (`RandomStandardNormal`, `TruncatedNormal`,
`RandomUniform` and the multiply / add constants that scale and shift them; a fill of one value); TF2's Keras
initializer is named by its class and config. The decision tests TF2's own drawn values against TF1's scheme
(or against TF1's values when TF1's scheme cannot be read) with a two-sample Kolmogorov-Smirnov test at a
false-alarm rate of 1e-6: two draws from one scheme pass however few values they hold, a scalar included.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["tf1_scheme", "keras_scheme", "scheme_text", "differs", "ALPHA"]

ALPHA = 1e-6
_C = math.sqrt(-math.log(ALPHA / 2) / 2)  # Kolmogorov's asymptotic critical value at ALPHA
_Z = 4.89  # |z| beyond this: a two-sided Gaussian false-alarm rate of ALPHA
_REFERENCE_DRAWS = 200_000
_SEED = 20261201


def tf1_scheme(variable, sess) -> dict | None:
    """{"scheme": normal | truncated_normal | uniform | constant, parameters...} from a TF1 variable's initial
    value ops; None when they are anything else (a numpy array, another variable's value)."""
    try:
        initial = variable.initial_value
        return _walk(initial, sess, 1.0, 0.0, 0)
    except Exception:
        return None


def _walk(tensor, sess, scale: float, shift: float, depth: int) -> dict | None:
    """The distribution of `scale * tensor + shift`."""
    op = tensor.op
    if depth > 8:
        return None
    if op.type in ("Identity", "Cast"):
        return _walk(op.inputs[0], sess, scale, shift, depth + 1)
    if op.type in ("Mul", "Add", "AddV2", "Sub"):
        a, b = op.inputs
        for x, c in ((a, b), (b, a)):
            value = _constant(c, sess)
            if value is None:
                continue
            if op.type == "Mul":
                return _walk(x, sess, scale * value, shift, depth + 1)
            if op.type == "Sub" and x is a:
                return _walk(x, sess, scale, shift - scale * value, depth + 1)
            if op.type != "Sub":
                return _walk(x, sess, scale, shift + scale * value, depth + 1)
        return None
    if op.type == "RandomStandardNormal":
        return {"scheme": "normal", "mean": shift, "stddev": abs(scale)}
    if op.type == "TruncatedNormal":
        return {"scheme": "truncated_normal", "mean": shift, "stddev": abs(scale)}
    if op.type == "RandomUniform":
        low, high = sorted((shift, shift + scale))
        return {"scheme": "uniform", "low": low, "high": high}
    value = _constant(tensor, sess)
    if value is not None:
        return {"scheme": "constant", "value": scale * value + shift}
    return None


_PURE = {"Const", "Fill", "ZerosLike", "OnesLike", "Sub", "Add", "AddV2", "Mul", "RealDiv", "Sqrt", "Neg", "Cast",
         "Identity", "Maximum", "Minimum"}


def _static(tensor, depth: int = 0) -> bool:
    """Whether a tensor is computed from constants alone (no random op, placeholder or variable)."""
    op = tensor.op
    return depth < 8 and op.type in _PURE and all(_static(t, depth + 1) for t in op.inputs)


def _constant(tensor, sess) -> float | None:
    """A tensor's single value if it is computed from constants alone and all its values are one, else None."""
    if not _static(tensor):
        return None
    value = np.asarray(sess.run(tensor))
    if value.size and np.all(value == value.flat[0]):
        return float(value.flat[0])
    return None


def keras_scheme(initializer) -> dict | None:
    """A Keras initializer as {"scheme": its class name, config...}."""
    try:
        config = initializer.get_config()
    except Exception:
        config = {}
    return {"scheme": type(initializer).__name__, **{k: v for k, v in config.items() if k != "seed"}}


def scheme_text(scheme: dict | None) -> str:
    if not scheme:
        return "unread"
    if scheme["scheme"] == "assigned":
        return "assigned by the script after creating it"
    params = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in scheme.items()
                       if k != "scheme")
    return f"{scheme['scheme']}({params})"


def _draw(scheme: dict, n: int) -> np.ndarray | None:
    rng = np.random.default_rng(_SEED)
    if scheme["scheme"] == "normal":
        return rng.normal(scheme["mean"], scheme["stddev"], n)
    if scheme["scheme"] == "truncated_normal":
        out = rng.normal(0.0, 1.0, 2 * n)
        return scheme["mean"] + scheme["stddev"] * out[np.abs(out) <= 2][:n]
    if scheme["scheme"] == "uniform":
        return rng.uniform(scheme["low"], scheme["high"], n)
    return None


def _ks(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(the two-sample Kolmogorov-Smirnov statistic, its critical value at ALPHA)."""
    a, b = np.sort(a.ravel()), np.sort(b.ravel())
    grid = np.concatenate([a, b])
    d = float(np.max(np.abs(np.searchsorted(a, grid, "right") / len(a) - np.searchsorted(b, grid, "right") / len(b))))
    return d, _C * math.sqrt((len(a) + len(b)) / (len(a) * len(b)))


def differs(tf1_values: np.ndarray, tf2_values: np.ndarray, scheme: dict | None) -> str:
    """Why TF2's own initial values cannot come from TF1's scheme; "" when they can."""
    one = np.asarray(tf1_values, np.float64).ravel()
    two = np.asarray(tf2_values, np.float64).ravel()
    if not one.size or not two.size:
        return ""
    # one value is "all equal" by itself: a scalar is a constant only when TF1's ops say so
    constant1 = scheme["value"] if scheme and scheme["scheme"] == "constant" else (
        float(one[0]) if one.size > 1 and np.all(one == one[0]) else None)
    if constant1 is not None or (two.size > 1 and np.all(two == two[0])):
        if constant1 is not None and np.allclose(two, constant1, rtol=1e-6, atol=1e-7):
            return ""
        what = f"all {constant1:.3g}" if constant1 is not None else f"drawn (std {one.std():.3g})"
        mine = f"all {two[0]:.3g}" if np.all(two == two[0]) else f"drawn (std {two.std():.3g})"
        return f"TF1 {what}, TF2 {mine}"
    reference = _draw(scheme, _REFERENCE_DRAWS) if scheme else None
    against = reference if reference is not None else one
    source = "scheme" if reference is not None else "distribution"
    stats = (f"TF1 mean {one.mean():.3g} std {one.std():.3g}, TF2 mean {two.mean():.3g} std {two.std():.3g}; "
             f"false-alarm rate {ALPHA:g}")
    d, critical = _ks(two, against)
    if d > critical:
        return (f"TF2's {two.size} values cannot come from TF1's {source} (Kolmogorov-Smirnov D {d:.3g} > "
                f"{critical:.3g}; {stats})")
    z_spread, z_mean = _z_scores(one, two, _moments(scheme) if scheme else None)
    if z_spread > _Z:
        return f"TF2's standard deviation is {z_spread:.1f} standard errors from TF1's {source}'s ({stats})"
    if z_mean > _Z:
        return f"TF2's mean is {z_mean:.1f} standard errors from TF1's {source}'s ({stats})"
    return ""


def _moments(scheme: dict) -> tuple[float, float, float] | None:
    """(mean, standard deviation, kurtosis) of a scheme, exactly."""
    if scheme["scheme"] == "normal":
        return scheme["mean"], scheme["stddev"], 3.0
    if scheme["scheme"] == "truncated_normal":  # a normal cut at two standard deviations and drawn again
        return scheme["mean"], scheme["stddev"] * 0.8796, 2.36
    if scheme["scheme"] == "uniform":
        return (scheme["low"] + scheme["high"]) / 2, (scheme["high"] - scheme["low"]) / math.sqrt(12), 1.8
    return None


def _z_scores(a: np.ndarray, b: np.ndarray, exact: tuple | None) -> tuple[float, float]:
    """How many standard errors apart the two spreads (log std) and the two means are: b's against the scheme's
    exact moments when they are known (only b's sampling error counts), else against a's values."""
    if min(len(a), len(b)) < 30 or a.std() == 0 or b.std() == 0:  # too few values for a standard error
        return 0.0, 0.0
    if exact is not None:
        mean, std, kurtosis = exact
        if std == 0:
            return 0.0, 0.0
        both = 1 / len(b)
    else:
        mean, std = float(a.mean()), float(a.std())
        kurtosis = max(3.0, float(np.mean((a - a.mean()) ** 4) / a.var() ** 2))  # a normal's at least
        both = 1 / len(b) + 1 / len(a)
    z_spread = abs(math.log(b.std() / std)) / math.sqrt((kurtosis - 1) / 4 * both)
    z_mean = abs(mean - b.mean()) / (std * math.sqrt(both))
    return z_spread, z_mean
