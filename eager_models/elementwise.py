"""A chain of 120 small element-wise ops on a small tensor as a TF2 module: dispatch-bound."""

import tensorflow as tf

from eager_models import SGD, StepModule

LINKS = 40  # each link is multiply, add, tanh: 120 element-wise ops in the forward pass


class Elementwise(StepModule):
    optimizer_cls = SGD
    learning_rate = 0.1

    def __call__(self, inputs):
        scale, shift = self.variables_by_name["scale"], self.variables_by_name["shift"]
        h = inputs["x"]
        for _ in range(LINKS):  # a Python loop over a constant: unrolled on purpose, like the TF1 graph
            h = tf.tanh(h * scale + shift)
        return h

    def loss(self, inputs):
        return tf.reduce_mean(tf.square(self(inputs) - inputs["target"]))
