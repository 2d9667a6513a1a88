"""`tf.contrib.eager` (`tfe`) mapped to TF2 eager execution.

Source checked: TF 1.15 `tensorflow/contrib/eager/python/tfe.py` (the names it exports) and
`tensorflow/python/eager/backprop.py` (implicit_val_and_grad: the value of f, and a list of (gradient, variable)
for every trainable variable f read, in the order it read them; implicit_grad: that list alone).
"""

from __future__ import annotations

import tensorflow as tf

__all__ = ["implicit_gradients", "implicit_value_and_gradients", "gradients_function", "value_and_gradients_function",
           "Iterator", "contents"]


def implicit_value_and_gradients(f):
    def grad_fn(*args, **kwargs):
        with tf.GradientTape() as tape:
            value = f(*args, **kwargs)
        variables = [v for v in tape.watched_variables() if v.trainable]
        if not variables:
            raise ValueError("No trainable variables were accessed while the function was being computed.")
        grads = tape.gradient(value, variables)
        return value, list(zip(grads, variables))
    return grad_fn


def implicit_gradients(f):
    def grad_fn(*args, **kwargs):
        return implicit_value_and_gradients(f)(*args, **kwargs)[1]
    return grad_fn


def value_and_gradients_function(f, params=None):
    """Gradients of f with respect to its positional arguments (all, or those at the indices in `params`)."""
    def grad_fn(*args, **kwargs):
        args = [tf.convert_to_tensor(a) for a in args]
        chosen = range(len(args)) if params is None else params
        with tf.GradientTape() as tape:
            for i in chosen:
                tape.watch(args[i])
            value = f(*args, **kwargs)
        return value, tape.gradient(value, [args[i] for i in chosen])
    return grad_fn


def gradients_function(f, params=None):
    def grad_fn(*args, **kwargs):
        return value_and_gradients_function(f, params)(*args, **kwargs)[1]
    return grad_fn


def Iterator(dataset):  # noqa: N802 - TF 1.x's class name
    """tfe.Iterator(dataset): Python iteration over a dataset, as TF2's iter(dataset)."""
    return iter(dataset)


def contents() -> dict:
    v1 = tf.compat.v1
    return {"implicit_gradients": implicit_gradients, "implicit_value_and_gradients": implicit_value_and_gradients,
            "gradients_function": gradients_function, "value_and_gradients_function": value_and_gradients_function,
            "Iterator": Iterator, "Variable": tf.Variable, "enable_eager_execution": v1.enable_eager_execution,
            "executing_eagerly": tf.executing_eagerly, "in_eager_mode": tf.executing_eagerly,
            "defun": tf.function, "num_gpus": lambda: len(tf.config.list_physical_devices("GPU")),
            "run": lambda main=None, argv=None: v1.app.run(main, argv)}
