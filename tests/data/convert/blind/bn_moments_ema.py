"""MLP classifier with a hand-written batch normalization layer.

Batch statistics come from tf.nn.moments during training; at test time the
exponential moving averages of those statistics are used instead
(selected with tf.cond on an `is_training` placeholder).
"""
from __future__ import print_function

import numpy as np
import tensorflow as tf

np.random.seed(0)
tf.set_random_seed(0)

# Synthetic data: two interleaved classes from a random nonlinear rule,
# with features on very different scales (where batch norm helps).
N_TRAIN, N_TEST, N_FEATURES = 3000, 1000, 10
scales = np.logspace(-1, 2, N_FEATURES).astype(np.float32)
w_true = np.random.randn(N_FEATURES)


def make_data(n):
    z = np.random.randn(n, N_FEATURES)
    y = (np.sin(z.dot(w_true)) + 0.3 * z[:, 0] * z[:, 1] > 0).astype(np.int64)
    return (z * scales + 5.0).astype(np.float32), y


x_train, y_train = make_data(N_TRAIN)
x_test, y_test = make_data(N_TEST)

BATCH_SIZE = 100
NUM_STEPS = 500
LEARNING_RATE = 0.01
HIDDEN = 64


def batch_norm(x, n_out, is_training, scope='bn'):
    """Batch normalization on fully-connected activations.
    Args:
        x:           Tensor, 2D [batch, n_out]
        n_out:       integer, depth of input
        is_training: boolean tf.Variable or placeholder, true indicates training phase
    Return:
        normed:      batch-normalized activations
    """
    with tf.variable_scope(scope):
        beta = tf.Variable(tf.constant(0.0, shape=[n_out]), name='beta', trainable=True)
        gamma = tf.Variable(tf.constant(1.0, shape=[n_out]), name='gamma', trainable=True)
        batch_mean, batch_var = tf.nn.moments(x, [0], name='moments')
        ema = tf.train.ExponentialMovingAverage(decay=0.9)

        def mean_var_with_update():
            ema_apply_op = ema.apply([batch_mean, batch_var])
            with tf.control_dependencies([ema_apply_op]):
                return tf.identity(batch_mean), tf.identity(batch_var)

        mean, var = tf.cond(is_training,
                            mean_var_with_update,
                            lambda: (ema.average(batch_mean), ema.average(batch_var)))
        normed = tf.nn.batch_normalization(x, mean, var, beta, gamma, 1e-3)
    return normed


x = tf.placeholder(tf.float32, [None, N_FEATURES])
y = tf.placeholder(tf.int64, [None])
is_training = tf.placeholder(tf.bool, name='is_training')

# Layer 1: batch-norm the raw inputs, then dense + BN + relu
x_bn = batch_norm(x, N_FEATURES, is_training, scope='bn_input')
W1 = tf.Variable(tf.truncated_normal([N_FEATURES, HIDDEN], stddev=np.sqrt(2.0 / N_FEATURES)))
h1 = tf.nn.relu(batch_norm(tf.matmul(x_bn, W1), HIDDEN, is_training, scope='bn1'))
# Layer 2
W2 = tf.Variable(tf.truncated_normal([HIDDEN, HIDDEN], stddev=np.sqrt(2.0 / HIDDEN)))
h2 = tf.nn.relu(batch_norm(tf.matmul(h1, W2), HIDDEN, is_training, scope='bn2'))
# Output layer
W3 = tf.Variable(tf.truncated_normal([HIDDEN, 2], stddev=0.1))
b3 = tf.Variable(tf.zeros([2]))
logits = tf.matmul(h2, W3) + b3

loss = tf.reduce_mean(
    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
train_step = tf.train.AdamOptimizer(LEARNING_RATE).minimize(loss)
accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))

sess = tf.Session()
sess.run(tf.global_variables_initializer())

for step in range(1, NUM_STEPS + 1):
    idx = np.random.choice(N_TRAIN, BATCH_SIZE, replace=False)
    _, l = sess.run([train_step, loss],
                    feed_dict={x: x_train[idx], y: y_train[idx], is_training: True})
    if step % 50 == 0:
        print('step %d, training loss %g' % (step, l))

test_loss, test_acc = sess.run([loss, accuracy],
                               feed_dict={x: x_test, y: y_test, is_training: False})
print('test loss %g, test accuracy %g' % (test_loss, test_acc))
sess.close()
