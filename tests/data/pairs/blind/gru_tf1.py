"""Sequence classifier: GRU (tf.nn.dynamic_rnn) + dense softmax layer, TF 1.x style.

The cell below is tf.nn.rnn_cell.GRUCell's math written out (gates/kernel on [x, h] with
columns [r | u], gate bias initialised to 1.0, candidate on [x, r*h]); tf.nn.rnn_cell
needs tf-keras under TF 2.16+, so the cell is spelled out by hand."""
import numpy as np
import tensorflow as tf

np.random.seed(5)
tf.set_random_seed(5)

N, T, F, H, C = 512, 12, 4, 16, 2
BATCH_SIZE = 32
EPOCHS = 2
LEARNING_RATE = 0.01


class GRUCell(object):
    def __init__(self, num_units):
        self._num_units = num_units
        self.state_size = self.output_size = num_units

    def zero_state(self, batch_size, dtype):
        return tf.zeros([batch_size, self._num_units], dtype)

    def __call__(self, inputs, state, scope=None):
        with tf.variable_scope(scope or "gru_cell", reuse=tf.AUTO_REUSE):
            depth = inputs.get_shape()[-1] + self._num_units
            gate_kernel = tf.get_variable("gates/kernel", [depth, 2 * self._num_units])
            gate_bias = tf.get_variable("gates/bias", [2 * self._num_units],
                                        initializer=tf.constant_initializer(1.0))
            cand_kernel = tf.get_variable("candidate/kernel", [depth, self._num_units])
            cand_bias = tf.get_variable("candidate/bias", [self._num_units],
                                        initializer=tf.zeros_initializer())
        value = tf.sigmoid(tf.matmul(tf.concat([inputs, state], 1), gate_kernel) + gate_bias)
        r, u = tf.split(value, 2, axis=1)
        c = tf.tanh(tf.matmul(tf.concat([inputs, r * state], 1), cand_kernel) + cand_bias)
        new_h = u * state + (1 - u) * c
        return new_h, new_h


# label: is the running sum of feature 0 positive at the end of the sequence?
X = np.random.randn(N, T, F).astype(np.float32)
y = (X[:, :, 0].sum(axis=1) + 0.5 * X[:, -1, 1] > 0).astype(np.int64)

x_ph = tf.placeholder(tf.float32, [None, T, F])
y_ph = tf.placeholder(tf.int64, [None])

cell = GRUCell(H)
outputs, final_state = tf.nn.dynamic_rnn(cell, x_ph, dtype=tf.float32)
W_out = tf.get_variable("W_out", [H, C])
b_out = tf.get_variable("b_out", [C], initializer=tf.zeros_initializer())
logits = tf.matmul(final_state, W_out) + b_out

loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_ph, logits=logits))
accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y_ph), tf.float32))
train_op = tf.train.AdamOptimizer(LEARNING_RATE).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    step = 0
    for epoch in range(EPOCHS):
        for i in range(0, N, BATCH_SIZE):
            feed = {x_ph: X[i:i + BATCH_SIZE], y_ph: y[i:i + BATCH_SIZE]}
            _, loss_val, acc = sess.run([train_op, loss, accuracy], feed_dict=feed)
            if step % 4 == 0:
                print("step %3d  loss %.5f  acc %.3f" % (step, loss_val, acc))
            step += 1
