"""TF2 version of `legacy_graphs.offset`: the same `(x @ w + OFFSET) - OFFSET`, exact only where Grappler or XLA
fold the constants."""

import tensorflow as tf

from eager_models import StepModule

OFFSET = 1e8


class Offset(StepModule):
    learning_rate = 0.01
    log = False

    def __call__(self, inputs):
        return (tf.matmul(inputs["x"], self.variables_by_name["w"]) + OFFSET) - OFFSET

    def loss(self, inputs):
        out = self(inputs)
        if self.log:
            return -tf.reduce_mean(tf.math.log(tf.square(out)))
        return tf.reduce_mean(tf.square(out - inputs["y"]))


class LogOffset(Offset):
    log = True
