"""The TF2 half of the case contract: a `tf.Module` with a traceable `train_step`.

Models never wrap themselves in `tf.function`: the harness decides that per execution mode.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from tfcompare.core.optimizers import SGD

__all__ = ["StepModule", "StepFunction"]


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


class StepFunction(tf.Module):
    """A plain training-step function and its variables as the TF2 side, with no class of the user's own.

        W, b = tf.Variable(tf.zeros([4, 1])), tf.Variable(tf.zeros([1]))
        opt = keras.optimizers.SGD(0.1)
        def forward(batch): return batch["x"] @ W + b
        def loss(batch): return tf.reduce_mean(tf.square(forward(batch) - batch["y"]))
        @tf.function
        def train_step(batch): ...  # tape, opt.apply_gradients, return loss

        make_model=lambda w: StepFunction(train_step, {"w": W, "b": b}, forward=forward, loss=loss,
                                          optimizer=opt, weights=w)

    A step already decorated with `tf.function` is unwrapped (its `python_function`), so the harness decides
    how it runs in each mode, eager included. The optimizer is named so its slots are built up front and
    restored with the variables.
    """

    def __init__(self, train_step, variables: dict, *, forward, loss, optimizer=None, weights: dict | None = None):
        super().__init__(name="step_function")
        for what, fn in (("train_step", train_step), ("forward", forward), ("loss", loss)):
            if not callable(fn):
                raise ValueError(f"StepFunction: {what} must be a function, not {type(fn).__name__}")
        self._step = getattr(train_step, "python_function", train_step)
        self._forward = getattr(forward, "python_function", forward)
        self._loss = getattr(loss, "python_function", loss)
        self.variables_by_name = dict(variables)
        self.optimizer = optimizer
        for name, value in (weights or {}).items():
            if name not in self.variables_by_name:
                raise ValueError(f"StepFunction: weight {name!r} has no variable (variables: "
                                 f"{sorted(self.variables_by_name)})")
            self.variables_by_name[name].assign(value)

    def __call__(self, inputs):
        return self._forward(inputs)

    def loss(self, inputs):
        return self._loss(inputs)

    def train_step(self, inputs):
        return self._step(inputs)
