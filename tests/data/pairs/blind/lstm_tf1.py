"""Sequence regression: LSTM (tf.nn.dynamic_rnn) + linear head, TF 1.x style.

The cell is tf.nn.rnn_cell.LSTMCell(num_units, forget_bias=1.0) written out (one kernel on
[x, h] with gate columns [i | j | f | o], zero bias, forget_bias added inside the sigmoid,
state (c, h)); tf.nn.rnn_cell needs tf-keras under TF 2.16+."""
import numpy as np
import tensorflow as tf

np.random.seed(11)
tf.set_random_seed(11)

N, T, F, H = 512, 10, 3, 16
BATCH_SIZE = 32
EPOCHS = 2
LEARNING_RATE = 0.01
FORGET_BIAS = 1.0


class LSTMCell(object):
    def __init__(self, num_units, forget_bias=1.0):
        self._num_units = num_units
        self._forget_bias = forget_bias
        self.state_size = (num_units, num_units)  # (c, h)
        self.output_size = num_units

    def zero_state(self, batch_size, dtype):
        zeros = tf.zeros([batch_size, self._num_units], dtype)
        return (zeros, zeros)

    def __call__(self, inputs, state, scope=None):
        c_prev, h_prev = state
        with tf.variable_scope(scope or "lstm_cell", reuse=tf.AUTO_REUSE):
            depth = inputs.get_shape()[-1] + self._num_units
            kernel = tf.get_variable("kernel", [depth, 4 * self._num_units])
            bias = tf.get_variable("bias", [4 * self._num_units],
                                   initializer=tf.zeros_initializer())
        lstm_matrix = tf.matmul(tf.concat([inputs, h_prev], 1), kernel) + bias
        i, j, f, o = tf.split(lstm_matrix, 4, axis=1)
        c = tf.sigmoid(f + self._forget_bias) * c_prev + tf.sigmoid(i) * tf.tanh(j)
        h = tf.sigmoid(o) * tf.tanh(c)
        return h, (c, h)


# target: a decaying weighted sum of feature 0 plus the product of features 1 and 2 at the end
X = np.random.randn(N, T, F).astype(np.float32)
weights = 0.8 ** np.arange(T)[::-1]
Y = (X[:, :, 0].dot(weights) * 0.3 + X[:, -1, 1] * X[:, -1, 2]).astype(np.float32)[:, None]

x_ph = tf.placeholder(tf.float32, [None, T, F])
y_ph = tf.placeholder(tf.float32, [None, 1])

cell = LSTMCell(H, forget_bias=FORGET_BIAS)
outputs, (final_c, final_h) = tf.nn.dynamic_rnn(cell, x_ph, dtype=tf.float32)
W_out = tf.get_variable("W_out", [H, 1])
b_out = tf.get_variable("b_out", [1], initializer=tf.zeros_initializer())
pred = tf.matmul(final_h, W_out) + b_out

loss = tf.reduce_mean(tf.square(pred - y_ph))
train_op = tf.train.AdamOptimizer(LEARNING_RATE).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    step = 0
    for epoch in range(EPOCHS):
        for i in range(0, N, BATCH_SIZE):
            feed = {x_ph: X[i:i + BATCH_SIZE], y_ph: Y[i:i + BATCH_SIZE]}
            _, loss_val = sess.run([train_op, loss], feed_dict=feed)
            if step % 4 == 0:
                print("step %3d  mse %.5f" % (step, loss_val))
            step += 1
