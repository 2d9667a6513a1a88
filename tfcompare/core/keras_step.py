"""A Keras 3 model, optimizer and loss as a case's TF2 side, with no adapter code of the user's own.

The harness gets what it needs from any TF2 side (`variables_by_name`, a forward pass, a loss and a traceable
`train_step`: forward, loss, `GradientTape`, `apply_gradients`). The case's shared weights are mapped onto the
model's variables by an explicit name map, or by creation order and shape when that is unambiguous; when it is
not, the error lists both sides' names and shapes.
"""

from __future__ import annotations

from typing import Callable, Mapping

import tensorflow as tf

__all__ = ["KerasStep", "map_weights"]


def _shape(x) -> tuple:
    return tuple(int(d) for d in x.shape)


def _listing(weights: Mapping, variables: list) -> str:
    ours = ", ".join(f"{n} {_shape(w)}" for n, w in weights.items())
    theirs = ", ".join(f"{v.path} {_shape(v)}" for v in variables)
    return f"init_weights: {ours}; the Keras model's trainable weights: {theirs}"


def map_weights(weights: Mapping, variables: list, names: Mapping[str, str] | None = None) -> dict:
    """`{init_weights name: Keras variable}`: by `names` (name -> variable path), else by order and shape."""
    if names is not None:
        by_path = {v.path: v for v in variables}
        missing = sorted(set(weights) - set(names))
        unknown = sorted(p for p in names.values() if p not in by_path)
        if missing or unknown:
            raise ValueError(f"the name map leaves {missing} unmapped and names unknown variables {unknown}; "
                             + _listing(weights, variables))
        out = {n: by_path[names[n]] for n in weights}
    else:
        shapes = [_shape(w) for w in weights.values()]
        if [_shape(v) for v in variables] != shapes or len(set(shapes)) != len(shapes):
            raise ValueError("cannot map the weights onto the Keras model by creation order and shape (the "
                             "counts or shapes differ, or a shape repeats, so the order would be a guess); pass "
                             "names={init_weights name: variable path}. " + _listing(weights, variables))
        out = dict(zip(weights, variables))
    for n, v in out.items():
        if _shape(v) != _shape(weights[n]):
            raise ValueError(f"{n} has shape {_shape(weights[n])} but {v.path} has {_shape(v)}; "
                             + _listing(weights, variables))
    return out


class KerasStep(tf.Module):
    """The TF2 side of a case from a built Keras model, a Keras optimizer and a loss.

        make_model=lambda w: KerasStep(build_model(), keras.optimizers.SGD(0.1), keras.losses.MeanSquaredError(),
                                       w, features="x", target="y")

    Args:
        model: a built `keras.Model` (functional, Sequential or subclassed).
        optimizer: a Keras optimizer (its slots are built before the first step by the harness); default: the
            compiled model's.
        loss: `loss(y_true, y_pred)`, e.g. a `keras.losses` object; default: the compiled model's.
        weights: the case's shared initial weights, assigned to the model.
        features: the input name(s) the model reads (one name, or several passed as a list).
        target: the input name of the labels.
        names: optional `{init_weights name: Keras variable path}`; default: creation order and shape.
    """

    def __init__(self, model, optimizer=None, loss: Callable | None = None, weights: Mapping | None = None, *,
                 features: str | tuple = "x", target: str = "y", names: Mapping[str, str] | None = None):
        super().__init__(name="keras_step")
        if weights is None:
            raise ValueError("KerasStep needs the case's weights (make_model's argument): KerasStep(model, ..., "
                             "weights=weights)")
        optimizer = optimizer if optimizer is not None else getattr(model, "optimizer", None)
        loss = loss if loss is not None else getattr(model, "loss", None)
        if optimizer is None or loss is None:
            raise ValueError("KerasStep needs an optimizer and a loss: pass them, or compile the model with both "
                             "(model.compile(optimizer=..., loss=...))")
        if not getattr(model, "built", False):
            raise ValueError("the Keras model is not built: give it a keras.Input or call model.build(shape) first")
        if not model.trainable_weights:
            raise ValueError("the Keras model has no trainable weights yet: a subclassed model creates them at its "
                             "first call, so call it once on a batch (model(x)) before passing it")
        self.model, self.optimizer, self.loss_fn = model, optimizer, loss
        self.features = (features,) if isinstance(features, str) else tuple(features)
        self.target = target
        self.variables_by_name = map_weights(weights, list(model.trainable_weights), names)
        for name, variable in self.variables_by_name.items():
            variable.assign(weights[name])

    def __call__(self, inputs):
        x = inputs[self.features[0]] if len(self.features) == 1 else [inputs[f] for f in self.features]
        return self.model(x)

    def loss(self, inputs):
        return self.loss_fn(inputs[self.target], self(inputs))

    def train_step(self, inputs):
        """The standard step: forward, loss, gradients with `tf.GradientTape`, `apply_gradients`."""
        with tf.GradientTape() as tape:
            loss = self.loss(inputs)
        variables = self.model.trainable_variables
        self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss
