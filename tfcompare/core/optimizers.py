"""TF2 optimizers whose update is exactly the one `tf.compat.v1.train` applies.

Their slot variables exist from construction, so the harness can snapshot and restore every
variable of a model (weights and optimizer state) between phases.
"""

from __future__ import annotations

import tensorflow as tf

__all__ = ["SGD", "Momentum"]


class SGD(tf.Module):
    """`tf.compat.v1.train.GradientDescentOptimizer`: `w -= lr * g`."""

    def __init__(self, learning_rate: float, variables):
        super().__init__(name="sgd")
        self.learning_rate = learning_rate

    def apply(self, grads, variables):
        for g, v in zip(grads, variables):
            v.assign_sub(tf.cast(self.learning_rate, v.dtype) * g)


class Momentum(tf.Module):
    """`tf.compat.v1.train.MomentumOptimizer` (no Nesterov): `a = m*a + g; w -= lr * a`."""

    def __init__(self, learning_rate: float, variables, momentum: float = 0.9):
        super().__init__(name="momentum")
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.slots = [tf.Variable(tf.zeros_like(v), trainable=False, name="accum") for v in variables]

    def apply(self, grads, variables):
        for g, v, a in zip(grads, variables, self.slots):
            a.assign(tf.cast(self.momentum, v.dtype) * a + g)
            v.assign_sub(tf.cast(self.learning_rate, v.dtype) * a)
