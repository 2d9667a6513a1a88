"""A `tf.function`'s `input_signature`, kept when pair runs its body eagerly.

Traced, a function with `input_signature=[tf.TensorSpec([None, 1], tf.float32)]` casts a float64 NumPy batch to
float32, as a TF1 feed did; run eagerly (pair's TF2 child reads every step inside), the Python body would get the
float64 array and fail where the script, run as written, works. So in the TF2 child each such function's body
first converts its NumPy and Python arguments to the signature's dtypes (a tensor of another dtype only reaches it
from tfcompare's own probes, which trace the body without the signature), and the function object stays
TensorFlow's own.
"""

from __future__ import annotations

import functools

import numpy as np
import tensorflow as tf

__all__ = ["install"]


def _cast(value, spec):
    if not isinstance(spec, tf.TensorSpec):
        return value
    # NumPy values and nested lists take the spec's dtype; a NumPy scalar (a float64 example of `for x, y in
    # zip(xs, ys)`) stays a NumPy scalar of that dtype (`x * W` then reads W as the script's own call does, which
    # the probe sees); a Python scalar converts as it would unsigned
    if isinstance(value, np.generic) and np.ndim(value) == 0:
        return np.asarray(value).astype(spec.dtype.as_numpy_dtype)[()]
    if isinstance(value, np.ndarray) or (isinstance(value, (list, tuple)) and np.ndim(value)):
        return tf.constant(np.asarray(value).astype(spec.dtype.as_numpy_dtype))
    if isinstance(value, tf.Tensor) and value.dtype != spec.dtype:  # tfcompare's own probes trace it unsigned
        return tf.cast(value, spec.dtype)
    return value


def _casting(fn, signature):
    specs = tf.nest.flatten(signature)

    @functools.wraps(fn)
    def body(*args, **kwargs):
        if not kwargs and len(args) in (len(specs), len(specs) + 1):
            skip = len(args) - len(specs)  # a method: `self` comes first
            args = args[:skip] + tuple(_cast(a, s) for a, s in zip(args[skip:], specs))
        return fn(*args, **kwargs)
    return body


def install() -> None:
    """For this whole process (pair's TF2 child)."""
    original = tf.function

    def function(func=None, *args, **kwargs):
        signature = kwargs.get("input_signature", args[0] if args else None)
        if signature is None:
            return original(func, *args, **kwargs)
        if func is None:
            return lambda f: original(_casting(f, signature), *args, **kwargs)
        return original(_casting(func, signature), *args, **kwargs)

    tf.function = function
