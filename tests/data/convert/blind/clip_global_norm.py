"""
LSTM on the "adding problem" with gradient clipping by global norm and an
exponentially decaying learning rate.

Each input sequence has two channels: random values in [0, 1] and a marker
channel that is 1 at exactly two positions. The target is the sum of the two
marked values.
"""
from __future__ import print_function

import numpy as np
import tensorflow as tf

np.random.seed(1234)
tf.set_random_seed(1234)

SEQ_LEN = 20
BATCH_SIZE = 64
NUM_UNITS = 32
TRAIN_STEPS = 300
STARTER_LR = 0.01
MAX_GRAD_NORM = 5.0


def generate_batch(batch_size, seq_len):
    values = np.random.uniform(0.0, 1.0, size=(batch_size, seq_len))
    markers = np.zeros((batch_size, seq_len))
    targets = np.zeros((batch_size, 1))
    for i in range(batch_size):
        a, b = np.random.choice(seq_len, 2, replace=False)
        markers[i, a] = 1.0
        markers[i, b] = 1.0
        targets[i, 0] = values[i, a] + values[i, b]
    inputs = np.stack([values, markers], axis=2)
    return inputs.astype(np.float32), targets.astype(np.float32)


inputs = tf.placeholder(tf.float32, [None, SEQ_LEN, 2], name='inputs')
targets = tf.placeholder(tf.float32, [None, 1], name='targets')

cell = tf.nn.rnn_cell.BasicLSTMCell(NUM_UNITS)
outputs, state = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
last_output = outputs[:, -1, :]

with tf.variable_scope('output'):
    W = tf.get_variable('W', [NUM_UNITS, 1],
                        initializer=tf.truncated_normal_initializer(stddev=0.1))
    b = tf.get_variable('b', [1], initializer=tf.constant_initializer(0.0))
    prediction = tf.matmul(last_output, W) + b

loss = tf.reduce_mean(tf.square(prediction - targets))

global_step = tf.Variable(0, trainable=False, name='global_step')
learning_rate = tf.train.exponential_decay(STARTER_LR, global_step,
                                           decay_steps=100, decay_rate=0.5,
                                           staircase=True)

optimizer = tf.train.AdamOptimizer(learning_rate)
tvars = tf.trainable_variables()
grads, global_norm = tf.clip_by_global_norm(tf.gradients(loss, tvars),
                                            MAX_GRAD_NORM)
train_op = optimizer.apply_gradients(zip(grads, tvars),
                                     global_step=global_step)

test_x, test_y = generate_batch(1000, SEQ_LEN)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())

    for i in range(TRAIN_STEPS):
        batch_x, batch_y = generate_batch(BATCH_SIZE, SEQ_LEN)
        _, l, gn, lr, step = sess.run(
            [train_op, loss, global_norm, learning_rate, global_step],
            feed_dict={inputs: batch_x, targets: batch_y})
        if step % 25 == 0:
            print('step %d, lr %.5f, grad norm %.3f, loss %.5f' % (step, lr, gn, l))

    test_mse = sess.run(loss, feed_dict={inputs: test_x, targets: test_y})
    baseline = np.mean(np.square(test_y - 1.0))
    print('Test MSE: %.5f (baseline of always predicting 1.0: %.5f)'
          % (test_mse, baseline))
