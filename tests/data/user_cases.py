"""A user's cases file, written to the public case contract: one good case, one broken, one wrong."""

import numpy as np
import tensorflow as tf

from eager_models import SGD, StepModule
from legacy_graphs import graph_parts, placeholders, tf1
from tfcompare.cases import Case, InputSpec


def _weights(rng):
    return {"w": rng.standard_normal((4, 1)).astype(np.float32), "b": np.zeros((1,), np.float32)}


def _batch(rng, n):
    return {"x": rng.standard_normal((n, 4)).astype(np.float32), "y": rng.standard_normal((n, 1)).astype(np.float32)}


def _graph(specs, learning_rate=0.1):
    inputs = placeholders(specs)
    w = tf1.get_variable("w", shape=[4, 1])
    b = tf1.get_variable("b", shape=[1])
    out = tf1.matmul(inputs["x"], w) + b
    loss = tf1.reduce_mean(tf1.square(out - inputs["y"]))
    return graph_parts(inputs, out, loss, tf1.train.GradientDescentOptimizer(learning_rate), {"w": w, "b": b})


class Regression(StepModule):
    optimizer_cls = SGD
    learning_rate = 0.1
    scale = 1.0

    def __call__(self, inputs):
        return tf.matmul(inputs["x"], self.variables_by_name["w"]) * self.scale + self.variables_by_name["b"]

    def loss(self, inputs):
        return tf.reduce_mean(tf.square(self(inputs) - inputs["y"]))


class BreaksWhenEager(Regression):
    def train_step(self, inputs):
        if tf.executing_eagerly():
            raise RuntimeError("this step only works inside tf.function")
        return super().train_step(inputs)


class OffByOnePercent(Regression):
    scale = 1.01  # a migration bug: the TF2 rewrite scales the output


_INPUTS = (InputSpec("x", (4,)), InputSpec("y", (1,)))
CASES = [
    Case("user-regression", "a user's linear regression", _INPUTS, _weights, _batch, _graph, Regression, 8),
    Case("user-eager-breaks", "fails in tf2-eager only", _INPUTS, _weights, _batch, _graph, BreaksWhenEager, 8),
    Case("user-mismatch", "TF2 rewrite off by 1%", _INPUTS, _weights, _batch, _graph, OffByOnePercent, 8),
]

CASES.append(Case("user-no-xla", "pretends XLA cannot compile it", _INPUTS, _weights, _batch, _graph, Regression, 8,
                  unsupported_modes={"tf2-xla": "uses an op with no XLA kernel"}))
