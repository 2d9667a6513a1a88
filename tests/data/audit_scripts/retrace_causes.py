"""How a TF2 script calls its tf.functions, one retrace cause per call. Lines are asserted in tests: edit with care."""
import numpy as np
import tensorflow as tf


class Scaler(tf.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor


@tf.function
def normalize(x):
    return (x - tf.reduce_mean(x)) / (tf.math.reduce_std(x) + 1e-6)


@tf.function
def total(items):
    return tf.add_n(items)


@tf.function
def shift(x, k):
    return x + k


@tf.function
def rescale(x, scaler):
    return x * scaler.factor


x = tf.random.normal([8, 4])
normalize(x)
normalize(np.random.default_rng(0).standard_normal((8, 4)))  # line 34: dtype_changed (NumPy is float64)
total([x, x])
total([x, x, x])  # line 36: structure_changed
shift(x, 1.0)
shift(x, tf.constant(1.0))  # line 38: kind_changed
for factor in (2.0, 3.0):
    rescale(x, Scaler(factor))  # line 40: new_python_object on the second call
