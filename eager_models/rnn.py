"""An LSTM over padded variable-length sequences as a TF2 module: a Python `for` over `tf.range`.

Under `tf.function`, AutoGraph turns the loop into a While op; eagerly it runs step by step.
"""

import tensorflow as tf

from eager_models import SGD, StepModule

HIDDEN = 16


class RNN(StepModule):
    optimizer_cls = SGD
    learning_rate = 0.1

    def __call__(self, inputs):
        v = self.variables_by_name
        x, lengths = inputs["x"], inputs["lengths"]
        batch, steps = tf.shape(x)[0], tf.shape(x)[1]
        h = tf.zeros([batch, HIDDEN])
        c = tf.zeros([batch, HIDDEN])
        for t in tf.range(steps):
            tf.autograph.experimental.set_loop_options(maximum_iterations=steps)  # lets XLA size the loop
            z = tf.matmul(tf.concat([x[:, t, :], h], axis=1), v["w"]) + v["b"]
            i, f, g, o = tf.split(z, 4, axis=1)
            c_new = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
            h_new = tf.sigmoid(o) * tf.tanh(c_new)
            keep = tf.expand_dims(tf.cast(t < lengths, x.dtype), 1)  # padded steps leave the state alone
            h = keep * h_new + (1.0 - keep) * h
            c = keep * c_new + (1.0 - keep) * c
        return tf.matmul(h, v["head"]) + v["head_bias"]

    def loss(self, inputs):
        return tf.reduce_mean(tf.square(self(inputs) - inputs["y"]))
