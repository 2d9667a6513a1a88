"""Data-dependent control flow as a TF2 module, in plain Python: `while` until a tensor tolerance is met,
then `if` on a tensor's value. AutoGraph converts both under `tf.function` (While and If ops)."""

import tensorflow as tf

from eager_models import SGD, StepModule

TOLERANCE = 1e-5
MAX_ITERATIONS = 60


class ControlFlow(StepModule):
    optimizer_cls = SGD
    learning_rate = 0.1

    def solve(self, x):
        """Fixed-point iteration h = tanh(x + h W) until the largest change is below the tolerance."""
        w = self.variables_by_name["w"]
        k = tf.constant(0)
        h = tf.zeros_like(x)
        delta = tf.constant(1.0)
        while delta > TOLERANCE:
            tf.autograph.experimental.set_loop_options(maximum_iterations=MAX_ITERATIONS)
            h_new = tf.tanh(x + tf.matmul(h, w))
            k, h, delta = k + 1, h_new, tf.reduce_max(tf.abs(h_new - h))
        return h, k

    def __call__(self, inputs):
        h, _ = self.solve(inputs["x"])
        scale = self.variables_by_name["scale"]
        if tf.reduce_mean(h) > 0.0:
            out = h * scale
        else:
            out = -h * scale
        return out

    def loss(self, inputs):
        return tf.reduce_mean(tf.square(self(inputs) - inputs["y"]))
