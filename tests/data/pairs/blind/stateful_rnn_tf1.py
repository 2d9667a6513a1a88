"""Stateful LSTM regression: predict cos(t) from a noisy sin(t) signal.

Truncated BPTT over consecutive windows: the final LSTM state of one
Session.run is fed back as the initial state of the next window.
"""
import numpy as np
import tensorflow as tf

# ---- data -----------------------------------------------------------------
rng = np.random.RandomState(0)
BATCH = 8          # parallel streams
WINDOW = 10        # unrolled time steps per run
N_WINDOWS = 15     # windows per epoch
N_EPOCHS = 3
HIDDEN = 16
LR = 0.01

seq_len = WINDOW * N_WINDOWS
phase = rng.uniform(0, 2 * np.pi, size=(BATCH, 1))
t = np.arange(seq_len)[None, :] * 0.1 + phase
noise = 0.05 * rng.randn(BATCH, seq_len)
x_data = (np.sin(t) + noise).astype(np.float32)[:, :, None]   # (B, L, 1)
y_data = np.cos(t).astype(np.float32)[:, :, None]             # (B, L, 1)

# ---- graph ----------------------------------------------------------------
x = tf.placeholder(tf.float32, [BATCH, WINDOW, 1], name='x')
y = tf.placeholder(tf.float32, [BATCH, WINDOW, 1], name='y')

with tf.variable_scope('lstm'):
    W = tf.get_variable('kernel', [1 + HIDDEN, 4 * HIDDEN])
    b = tf.get_variable('bias', [4 * HIDDEN], initializer=tf.zeros_initializer())
with tf.variable_scope('out'):
    W_out = tf.get_variable('kernel', [HIDDEN, 1])
    b_out = tf.get_variable('bias', [1], initializer=tf.zeros_initializer())

# zero initial state; overwritten through feed_dict from the 2nd window on
init_c = tf.zeros([BATCH, HIDDEN], name='init_c')
init_h = tf.zeros([BATCH, HIDDEN], name='init_h')
initial_state = (init_c, init_h)

c, h = init_c, init_h
outputs = []
for x_t in tf.unstack(x, axis=1):
    gates = tf.matmul(tf.concat([x_t, h], axis=1), W) + b
    i, j, f, o = tf.split(gates, 4, axis=1)
    c = c * tf.sigmoid(f + 1.0) + tf.sigmoid(i) * tf.tanh(j)
    h = tf.tanh(c) * tf.sigmoid(o)
    outputs.append(h)
final_state = (c, h)

rnn_out = tf.reshape(tf.stack(outputs, axis=1), [-1, HIDDEN])
pred = tf.reshape(tf.matmul(rnn_out, W_out) + b_out, [BATCH, WINDOW, 1])
loss = tf.reduce_mean(tf.square(pred - y))
train_op = tf.train.AdamOptimizer(LR).minimize(loss)

# ---- training -------------------------------------------------------------
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    step = 0
    for epoch in range(N_EPOCHS):
        state = None
        for k in range(N_WINDOWS):
            sl = slice(k * WINDOW, (k + 1) * WINDOW)
            feed = {x: x_data[:, sl], y: y_data[:, sl]}
            if state is not None:
                feed[initial_state[0]] = state[0]
                feed[initial_state[1]] = state[1]
            _, l, state = sess.run([train_op, loss, final_state], feed_dict=feed)
            if step % 10 == 0:
                print('step %d, loss %.5f' % (step, l))
            step += 1
    print('final loss %.5f' % l)
