"""Logistic regression `sigmoid(x·w + b)` as a TF2 module."""

import tensorflow as tf

from eager_models import SGD, StepModule


class Linear(StepModule):
    optimizer_cls = SGD
    learning_rate = 0.5

    def __call__(self, inputs):
        return tf.matmul(inputs["x"], self.variables_by_name["w"]) + self.variables_by_name["b"]

    def loss(self, inputs):
        logits = self(inputs)
        return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=inputs["y"], logits=logits))
