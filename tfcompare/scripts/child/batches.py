"""What a batch array is (features, one-hot labels, class ids, a scalar) and how TF1's becomes TF2's.

Both probes and a generated case use the same rules, so a batch fed to TF2 in `pair` is the batch the case feeds.
"""

from __future__ import annotations

import numpy as np

__all__ = ["kind", "how", "apply"]


def kind(value) -> str:
    """scalar, int (class ids and other integers), onehot (rows of 0/1 summing to 1), ids (one whole float per
    example: class ids held as floats), or features."""
    value = np.asarray(value)
    if value.ndim == 0:
        return "scalar"
    if np.issubdtype(value.dtype, np.integer) or value.dtype == bool:
        return "int"
    if value.ndim == 2 and value.size and np.isin(value, (0.0, 1.0)).all() and np.allclose(value.sum(axis=1), 1.0):
        return "onehot"
    if value.size and value.size == len(value) and np.all(value >= 0) and np.all(value == np.round(value)):
        return "ids"  # one whole number per example: float class ids
    return "features"


def how(value: np.ndarray, kind1: str, kind2: str, shape2: tuple) -> str:
    """How a TF1 batch of `kind1` becomes a TF2 input of `kind2` with per-example `shape2`: "same" (reshaped and
    cast), "argmax" (one-hot to class ids), "onehot" (class ids to one-hot); "" when they cannot be one input."""
    per1, per2 = int(np.prod(value.shape[1:])), int(np.prod(shape2))
    if kind1 == kind2 and per1 == per2:
        return "same"
    if "ids" in (kind1, kind2) and {kind1, kind2} <= {"int", "ids", "features"} and per1 == per2:
        return "same"  # class ids as integers on one side, as whole floats on the other (or a float target)
    if kind2 == "int" and kind1 == "onehot" and per2 == 1:
        return "argmax"
    if kind2 == "onehot" and kind1 == "int" and per1 == 1:
        return "onehot"
    return ""


def apply(value, method: str, shape2: tuple, dtype) -> np.ndarray:
    """The TF1 batch `value` converted by `method` (see `how`) to per-example `shape2` and `dtype`."""
    value = np.asarray(value)
    n = len(value)
    if method == "argmax":
        value = value.argmax(axis=1)
    elif method == "onehot":
        return np.eye(shape2[-1], dtype=dtype)[value.reshape(n)]
    return value.reshape((n, *shape2)).astype(dtype)
