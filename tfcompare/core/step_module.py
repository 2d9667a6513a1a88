"""The TF2 half of the case contract: a `tf.Module` with a traceable `train_step`.

Models never wrap themselves in `tf.function`: the harness decides that per execution mode.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from tfcompare.core.optimizers import SGD

__all__ = ["StepModule"]


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
    optimizer_kwargs: dict = {}  # e.g. {"momentum": 0.9, "use_nesterov": True}: the TF1 optimizer's other arguments

    def __init__(self, weights: dict[str, np.ndarray], name: str | None = None):
        super().__init__(name=name)
        self.variables_by_name = {k: tf.Variable(v, name=k.replace("/", "_")) for k, v in weights.items()}
        self._trainables = list(self.variables_by_name.values())
        self.optimizer = self.optimizer_cls(self.learning_rate, self._trainables, **self.optimizer_kwargs)

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
