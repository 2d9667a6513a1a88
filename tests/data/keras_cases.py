"""Keras 3 on the TF2 side: a model whose weights are keras.Variables and whose optimizer is Keras's, and two
models that leak state the harness cannot restore. Written for tfcompare's tests."""

import keras
import numpy as np
import tensorflow as tf

from tfcompare import Case, InputSpec, KerasStep, graph_parts, placeholders, tf1


def _weights(rng):
    return {"kernel": rng.standard_normal((4, 1)).astype(np.float32), "bias": np.zeros((1,), np.float32)}


def _batch(rng, n):
    return {"x": rng.standard_normal((n, 4)).astype(np.float32), "y": rng.standard_normal((n, 1)).astype(np.float32)}


def _graph(optimizer):
    def build(specs):
        inputs = placeholders(specs)
        kernel = tf1.get_variable("kernel", shape=[4, 1])
        bias = tf1.get_variable("bias", shape=[1])
        out = tf1.matmul(inputs["x"], kernel) + bias
        loss = tf1.reduce_mean(tf1.square(out - inputs["y"]))
        return graph_parts(inputs, out, loss, optimizer(), {"kernel": kernel, "bias": bias})
    return build


class KerasRegression(tf.Module):
    """A Keras 3 Dense layer and a Keras optimizer, as TF2 code is written today."""

    def __init__(self, weights, optimizer=lambda: keras.optimizers.SGD(0.1)):
        super().__init__()
        self.dense = keras.layers.Dense(1)
        self.dense.build((None, 4))
        self.dense.kernel.assign(weights["kernel"])
        self.dense.bias.assign(weights["bias"])
        self.optimizer = optimizer()
        self.variables_by_name = {"kernel": self.dense.kernel, "bias": self.dense.bias}

    def __call__(self, inputs):
        return self.dense(inputs["x"])

    def loss(self, inputs):
        return tf.reduce_mean(tf.square(self(inputs) - inputs["y"]))

    def train_step(self, inputs):
        with tf.GradientTape() as tape:
            loss = self.loss(inputs)
        grads = tape.gradient(loss, self.dense.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.dense.trainable_variables))
        return loss


class KerasAdam(KerasRegression):
    def __init__(self, weights):  # TF1's AdamOptimizer defaults: lr 0.001 here, beta 0.9/0.999, epsilon 1e-8
        super().__init__(weights, lambda: keras.optimizers.Adam(0.01, epsilon=1e-8))


class PythonCounter(KerasRegression):
    """Leaks Python-side state: every eager call scales the output a little more."""

    calls = 0

    def __call__(self, inputs):
        PythonCounter.calls += 1
        return self.dense(inputs["x"]) * (1.0 + 0.01 * PythonCounter.calls)


class LazyVariable(KerasRegression):
    """Creates a variable at its first step, after the harness took its snapshot."""

    def train_step(self, inputs):
        if not hasattr(self, "step_count"):
            self.step_count = tf.Variable(0.0, name="step_count")
        self.step_count.assign_add(1.0)
        return super().train_step(inputs) * (1.0 + 0.01 * self.step_count)  # the loss it reports depends on it


_INPUTS = (InputSpec("x", (4,)), InputSpec("y", (1,)))
_SGD = _graph(lambda: tf1.train.GradientDescentOptimizer(0.1))
CASES = [
    Case("keras-sgd", "Keras 3 Dense + keras.optimizers.SGD vs TF1", _INPUTS, _weights, _batch, _SGD,
         KerasRegression, 16),
    Case("keras-adam", "Keras 3 Dense + keras.optimizers.Adam (epsilon 1e-8) vs TF1 AdamOptimizer", _INPUTS,
         _weights, _batch, _graph(lambda: tf1.train.AdamOptimizer(0.01)), KerasAdam, 16),
    Case("leak-python", "a model with Python-side state", _INPUTS, _weights, _batch, _SGD, PythonCounter, 16),
    Case("leak-lazy", "a model that creates a variable at its first step", _INPUTS, _weights, _batch, _SGD,
         LazyVariable, 16),
]


def _sequential():
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])


def _wide():
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(4), keras.layers.Dense(4)])


CASES += [
    Case("keras-step", "a keras.Sequential with keras SGD and MSE, no adapter code", _INPUTS, _weights, _batch, _SGD,
         lambda w: KerasStep(_sequential(), keras.optimizers.SGD(0.1), keras.losses.MeanSquaredError(), w), 16),
    Case("keras-ambiguous", "two Dense(4) layers: shapes repeat, so order cannot map them", _INPUTS,
         lambda rng: {"a": rng.standard_normal((4, 4)).astype(np.float32), "b": np.zeros((4,), np.float32),
                      "c": rng.standard_normal((4, 4)).astype(np.float32), "d": np.zeros((4,), np.float32)},
         _batch, _SGD, lambda w: KerasStep(_wide(), keras.optimizers.SGD(0.1), keras.losses.MeanSquaredError(), w), 16),
]


def _twice_the_rate(w):
    return KerasStep(_sequential(), keras.optimizers.SGD(0.2), keras.losses.MeanSquaredError(), w)


CASES.append(Case("keras-rate", "keras SGD at 0.2 against TF1's 0.1: a migration bug in the optimizer", _INPUTS,
                  _weights, _batch, _SGD, _twice_the_rate, 16))


class KerasAdamDefault(KerasRegression):
    def __init__(self, weights):  # Keras's default epsilon, 1e-7: the most common silent difference from TF1
        super().__init__(weights, lambda: keras.optimizers.Adam(0.01))


def _small_batch(rng, n):
    """Inputs and targets of size ~1e-3 (physical units): gradients ~1e-6, where Adam's epsilon matters."""
    return {k: v * np.float32(1e-3) for k, v in _batch(rng, n).items()}


_ADAM = _graph(lambda: tf1.train.AdamOptimizer(0.01))
CASES += [
    Case("keras-adam-small", "Keras Adam (epsilon 1e-8) vs TF1 AdamOptimizer, small gradients", _INPUTS, _weights,
         _small_batch, _ADAM, KerasAdam, 16),
    Case("keras-adam-default", "Keras Adam with its default epsilon (1e-7) vs TF1 AdamOptimizer (1e-8), small "
         "gradients", _INPUTS, _weights, _small_batch, _ADAM, KerasAdamDefault, 16),
]


# A plain training-step function with its variables, as small TF2 scripts are written: globals and @tf.function.
W = tf.Variable(tf.zeros([4, 1]), name="W")
B = tf.Variable(tf.zeros([1]), name="B")
OPT = keras.optimizers.SGD(0.1)


def forward(batch):
    return tf.matmul(batch["x"], W) + B


def mse(batch):
    return tf.reduce_mean(tf.square(forward(batch) - batch["y"]))


@tf.function
def train_step(batch):
    with tf.GradientTape() as tape:
        loss = mse(batch)
    grads = tape.gradient(loss, [W, B])
    OPT.apply_gradients(zip(grads, [W, B]))
    return loss


def _plain(weights):
    from tfcompare import StepFunction

    return StepFunction(train_step, {"kernel": W, "bias": B}, forward=forward, loss=mse, optimizer=OPT,
                        weights=weights)


CASES.append(Case("plain-step", "a @tf.function training step over global variables and a Keras SGD", _INPUTS,
                  _weights, _batch, _SGD, _plain, 16))


def _two_layers(specs, activation=tf1.nn.tanh):
    inputs = placeholders(specs)
    with tf1.variable_scope("hidden"):
        h = activation(tf1.matmul(inputs["x"], tf1.get_variable("kernel", shape=[4, 3])) +
                       tf1.get_variable("bias", shape=[3], initializer=tf1.zeros_initializer()))
    with tf1.variable_scope("out"):
        out = tf1.matmul(h, tf1.get_variable("kernel", shape=[3, 1])) + tf1.get_variable(
            "bias", shape=[1], initializer=tf1.zeros_initializer())
    loss = tf1.reduce_mean(tf1.square(out - inputs["y"]))
    return graph_parts(inputs, out, loss, tf1.train.GradientDescentOptimizer(0.1), tf1.trainable_variables())


def _named_layers(weights):  # the rewrite used relu where TF1 had tanh: the first layer is where it starts
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="relu", name="hidden"),
                              keras.layers.Dense(1, name="out")])
    return KerasStep(model, keras.optimizers.SGD(0.1), keras.losses.MeanSquaredError(), weights)


CASES.append(Case("keras-layer-differs", "relu in the rewrite where TF1 had tanh, in the first of two named layers",
                  _INPUTS, build_graph=_two_layers, make_model=_named_layers, default_batch_size=16))
