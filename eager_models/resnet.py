"""A small residual network for 32×32×3 images as a TF2 module, batch norm in training mode."""

import tensorflow as tf

from eager_models import Momentum, StepModule

_EPS = 1e-3


def _batch_norm(h, gamma, beta):
    mean, var = tf.nn.moments(h, axes=[0, 1, 2])
    return tf.nn.batch_normalization(h, mean, var, beta, gamma, _EPS)


class ResNet(StepModule):
    optimizer_cls = Momentum
    learning_rate = 0.05

    def __init__(self, weights, depth=2):
        super().__init__(weights)
        self.depth = depth

    def __call__(self, inputs):
        v = self.variables_by_name
        h = tf.nn.relu(tf.nn.conv2d(inputs["x"], v["stem"], strides=2, padding="SAME"))
        for b in range(self.depth):
            skip = h
            for j in range(2):
                h = tf.nn.conv2d(h, v[f"b{b}c{j}"], strides=1, padding="SAME")
                h = _batch_norm(h, v[f"b{b}g{j}"], v[f"b{b}o{j}"])
                if j == 0:
                    h = tf.nn.relu(h)
            h = tf.nn.relu(h + skip)
        h = tf.reduce_mean(h, axis=[1, 2])
        return tf.nn.bias_add(tf.matmul(h, v["head"]), v["head_bias"])

    def loss(self, inputs):
        return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=inputs["y"], logits=self(inputs)))
