"""TF2 implementations of the cases: `tf.Module`s with a traceable `train_step`.

The models never wrap themselves in `tf.function`: the harness decides that per execution mode.
Optimizers are written out so their update is exactly the one `tf.compat.v1.train` applies, and
their slot variables exist from construction, so the harness can snapshot and restore every
variable of a model (weights and optimizer state) between phases.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

__all__ = ["StepModule", "SGD", "Momentum"]


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


class StepModule(tf.Module):
    """Base of every TF2 case model.

    Subclasses create their `tf.Variable`s from the shared numpy weights, list them in
    `variables_by_name` (same names as the case's `init_weights`), and implement `__call__`
    (the forward pass on a dict of inputs) and `loss`. `train_step` is one optimizer step.

        model = Model(weights)
        step = tf.function(model.train_step)   # or not: the harness decides
        loss = step(batch)
    """

    optimizer_cls = SGD
    learning_rate = 0.1

    def __init__(self, weights: dict[str, np.ndarray], name: str | None = None):
        super().__init__(name=name)
        self.variables_by_name = {k: tf.Variable(v, name=k.replace("/", "_")) for k, v in weights.items()}
        self._trainables = list(self.variables_by_name.values())
        self.optimizer = self.optimizer_cls(self.learning_rate, self._trainables)

    def __call__(self, inputs):
        raise NotImplementedError

    def loss(self, inputs):
        raise NotImplementedError

    def train_step(self, inputs):
        """One step: loss, gradients with `tf.GradientTape`, optimizer update; returns the loss."""
        with tf.GradientTape() as tape:
            loss = self.loss(inputs)
        grads = tape.gradient(loss, self._trainables)
        self.optimizer.apply(grads, self._trainables)
        return loss
