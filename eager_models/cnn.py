"""Two conv → bias → relu → max-pool blocks and a dense layer as a TF2 module."""

import tensorflow as tf

from eager_models import Momentum, StepModule


class CNN(StepModule):
    optimizer_cls = Momentum
    learning_rate = 0.05

    def __call__(self, inputs):
        v = self.variables_by_name
        h = inputs["x"]
        for i in range(2):
            h = tf.nn.conv2d(h, v[f"conv{i}"], strides=1, padding="SAME")
            h = tf.nn.relu(tf.nn.bias_add(h, v[f"bias{i}"]))
            h = tf.nn.max_pool2d(h, ksize=2, strides=2, padding="VALID")
        h = tf.reshape(h, [-1, 4 * 4 * 16])
        return tf.nn.bias_add(tf.matmul(h, v["dense"]), v["dense_bias"])

    def loss(self, inputs):
        return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=inputs["y"], logits=self(inputs)))
