"""Cases for `tfcompare debug`'s tests: a NaN in every mode at a known op, a step that counts its Python runs,
and a case that fails before any step. Written for tfcompare's tests."""

import numpy as np
import tensorflow as tf

from tfcompare import Case, InputSpec, StepModule, graph_parts, placeholders, tf1

INPUTS = (InputSpec("x", (4,)), InputSpec("y", (1,)))


def _weights(rng):
    return {"w": rng.standard_normal((4, 1)).astype(np.float32)}


def _sqrt_graph(specs):
    inputs = placeholders(specs)
    w = tf1.get_variable("w", shape=[4, 1])
    out = tf1.sqrt(tf1.matmul(inputs["x"], w))  # NaN wherever x @ w < 0
    loss = tf1.reduce_mean(tf1.square(out - inputs["y"]))
    return graph_parts(inputs, out, loss, tf1.train.GradientDescentOptimizer(0.1), {"w": w})


class Sqrt(StepModule):
    def __call__(self, inputs):
        return tf.sqrt(tf.matmul(inputs["x"], self.variables_by_name["w"]))

    def loss(self, inputs):
        return tf.reduce_mean(tf.square(self(inputs) - inputs["y"]))


class Counting(Sqrt):
    """Counts how often its Python loss body runs: once per trace in a graph, once per call eagerly."""

    runs = 0

    def __call__(self, inputs):
        return tf.matmul(inputs["x"], self.variables_by_name["w"])

    def loss(self, inputs):
        Counting.runs += 1
        return tf.reduce_mean(tf.square(self(inputs) - inputs["y"]))


def linear_graph(specs):
    inputs = placeholders(specs)
    w = tf1.get_variable("w", shape=[4, 1])
    out = tf1.matmul(inputs["x"], w)
    loss = tf1.reduce_mean(tf1.square(out - inputs["y"]))
    return graph_parts(inputs, out, loss, tf1.train.GradientDescentOptimizer(0.1), {"w": w})


def _sqrt_output_graph(specs):
    inputs = placeholders(specs)
    w = tf1.get_variable("w", shape=[4, 1])
    logits = tf1.matmul(inputs["x"], w)
    loss = tf1.reduce_mean(tf1.square(logits - inputs["y"]))  # trains on the logits: every step finite
    return graph_parts(inputs, tf1.sqrt(logits), loss, tf1.train.GradientDescentOptimizer(0.1), {"w": w})


class SqrtOutput(StepModule):
    """The output a user reads (sqrt of the logits) is NaN for some rows; the loss never touches it."""

    def __call__(self, inputs):
        return tf.sqrt(self.logits(inputs))

    def logits(self, inputs):
        return tf.matmul(inputs["x"], self.variables_by_name["w"])

    def loss(self, inputs):
        return tf.reduce_mean(tf.square(self.logits(inputs) - inputs["y"]))


def _offset_output_graph(specs):
    inputs = placeholders(specs)
    w = tf1.get_variable("w", shape=[4, 1])
    logits = tf1.matmul(inputs["x"], w)
    loss = tf1.reduce_mean(tf1.square(logits - inputs["y"]))
    return graph_parts(inputs, (logits * 1e3 + 1e8) - 1e8, loss, tf1.train.GradientDescentOptimizer(0.1), {"w": w})


class OffsetOutput(SqrtOutput):
    """(logits * 1e3 + 1e8) - 1e8 in float32: op by op it rounds to a multiple of 8; folded, it is exact. Only the
    output has it: the training step never sees it, so a dump of the step alone would not show the rewrite."""

    def __call__(self, inputs):
        return (self.logits(inputs) * 1e3 + 1e8) - 1e8


def _masked_output_graph(specs):
    inputs = placeholders(specs)
    w = tf1.get_variable("w", shape=[4, 1])
    logits = tf1.matmul(inputs["x"], w)
    loss = tf1.reduce_mean(tf1.square(logits - inputs["y"]))
    masked = tf1.where(logits > 0, logits, tf1.fill(tf1.shape(logits), -np.inf))
    return graph_parts(inputs, masked, loss, tf1.train.GradientDescentOptimizer(0.1), {"w": w})


class MaskedOutput(SqrtOutput):
    """An output masked with -inf where the logits are not positive (as attention masks are): the same -inf in
    every mode, which is agreement, not a blow-up."""

    def __call__(self, inputs):
        logits = self.logits(inputs)
        return tf.where(logits > 0, logits, tf.fill(tf.shape(logits), -np.inf))


def _broken(rng):
    raise RuntimeError("weights file missing")


CASES = [
    Case("sqrt-negative", "sqrt of a value that is negative for some rows: NaN in every mode at Sqrt", INPUTS,
         _weights, build_graph=_sqrt_graph, make_model=Sqrt, default_batch_size=8),
    Case("counting", "a step whose Python body counts its runs", INPUTS, _weights, build_graph=linear_graph,
         make_model=Counting, default_batch_size=8),
    Case("sqrt-output", "a NaN only in the output (sqrt of negative logits); the loss and every step stay finite",
         INPUTS, _weights, build_graph=_sqrt_output_graph, make_model=SqrtOutput, default_batch_size=8),
    Case("offset-output", "constant folding changes the output only (the step is untouched)", INPUTS, _weights,
         build_graph=_offset_output_graph, make_model=OffsetOutput, default_batch_size=8),
    Case("masked-output", "an output masked with -inf, the same in every mode", INPUTS, _weights,
         build_graph=_masked_output_graph, make_model=MaskedOutput, default_batch_size=8),
    Case("broken", "fails before any step", INPUTS, _broken, build_graph=linear_graph, make_model=Sqrt),
]
