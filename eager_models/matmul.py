"""One large matrix multiply and a squared-error loss as a TF2 module: compute-bound."""

import tensorflow as tf

from eager_models import SGD, StepModule


class Matmul(StepModule):
    optimizer_cls = SGD
    learning_rate = 0.01

    def __call__(self, inputs):
        return tf.matmul(inputs["x"], self.variables_by_name["w"])

    def loss(self, inputs):
        return tf.reduce_mean(tf.square(self(inputs) - inputs["target"]))
