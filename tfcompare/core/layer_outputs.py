"""The first layer whose output differs, when the forward pass does: a Keras model's layers against the TF1
graph's name scopes of the same names (`tf.compat.v1.variable_scope("hidden")` and `Dense(..., name="hidden")`).

Keras side: a functional or Sequential model's per-layer outputs (`keras.Model(model.inputs, [layer.output ...])`);
a subclassed model has no symbolic outputs, so it is not attempted. TF1 side: per name, the last op in that name
scope on the path to the output, fetched with the same batch.
"""

from __future__ import annotations

import numpy as np

from tfcompare.core.graphs import ancestors

__all__ = ["first_differing_layer"]


def _keras_outputs(model, inputs) -> dict[str, np.ndarray] | None:
    import keras

    keras_model = getattr(model, "model", None)  # a KerasStep holds the user's model
    if keras_model is None or not getattr(keras_model, "inputs", None):
        return None
    layers = [layer for layer in keras_model.layers if layer.name and getattr(layer, "output", None) is not None]
    probe = keras.Model(keras_model.inputs, [layer.output for layer in layers])
    values = probe([inputs[f] for f in model.features])  # the probe's inputs are a list, as its model's are
    values = values if isinstance(values, (list, tuple)) else [values]
    return {layer.name: np.asarray(v) for layer, v in zip(layers, values)}


def _tf1_outputs(runner, names: list[str], batch: dict) -> dict[str, np.ndarray]:
    graph = runner.graph
    path = ancestors([runner.parts.output])  # the ops the output depends on
    last = {}
    for op in graph.get_operations():  # creation order: the last op of a scope is its output
        scope = op.name.split("/")[0]
        if scope in names and op in path and op.outputs and op.outputs[0].dtype.is_floating:
            last[scope] = op.outputs[0]
    if not last:
        return {}
    values = runner.sess.run(list(last.values()), runner.feed(batch))
    return dict(zip(last, values))


def first_differing_layer(tf1_runner, tf2_runner, batch: dict, rtol: float, atol: float) -> str | None:
    """'hidden (max abs err 0.31)' for the first Keras layer, in model order, whose output differs from the TF1
    scope of the same name; None when no layer names match (or every matching one agrees)."""
    model = getattr(tf2_runner, "model", None)
    if model is None or getattr(tf1_runner, "graph", None) is None:
        return None
    tensors = tf2_runner.case.tf2_inputs(batch)
    mine = _keras_outputs(model, tensors)
    if not mine:
        return None
    theirs = _tf1_outputs(tf1_runner, list(mine), batch)
    for name, value in mine.items():
        ref = theirs.get(name)
        if ref is None or np.shape(ref) != np.shape(value):
            continue
        if not np.allclose(value, ref, rtol=rtol, atol=atol, equal_nan=True):
            return f"{name} (max abs err {float(np.max(np.abs(value - ref))):.3g})"
    return None
