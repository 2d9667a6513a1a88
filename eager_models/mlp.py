"""Two hidden ReLU layers and softmax cross-entropy as a TF2 module, trained with momentum."""

import tensorflow as tf

from eager_models import Momentum, StepModule


class MLP(StepModule):
    optimizer_cls = Momentum
    learning_rate = 0.05

    def __call__(self, inputs):
        v = self.variables_by_name
        h = inputs["x"]
        for i in range(3):
            h = tf.nn.bias_add(tf.matmul(h, v[f"w{i}"]), v[f"b{i}"])
            if i < 2:
                h = tf.nn.relu(h)
        return h

    def loss(self, inputs):
        return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=inputs["y"], logits=self(inputs)))
