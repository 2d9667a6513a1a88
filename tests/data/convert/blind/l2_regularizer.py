"""2-hidden-layer regressor with L2 weight regularization via tf.get_variable."""
from __future__ import print_function

import numpy as np
import tensorflow as tf

np.random.seed(0)
tf.set_random_seed(0)

# ---- synthetic regression data: y = sin(x1) + 0.5 * x2^2 - x3 + noise ----
N = 1000
N_FEATURES = 5
X = np.random.uniform(-2, 2, size=(N, N_FEATURES)).astype(np.float32)
Y = (np.sin(X[:, 0]) + 0.5 * X[:, 1] ** 2 - X[:, 2]
     + 0.1 * np.random.randn(N)).astype(np.float32).reshape(-1, 1)
X_train, Y_train = X[:800], Y[:800]
X_test, Y_test = X[800:], Y[800:]

BATCH_SIZE = 64
N_STEPS = 500
H1, H2 = 64, 32


def l2_reg(w):
    return 1e-3 * tf.nn.l2_loss(w)


def dense(inputs, in_dim, out_dim, name, activation=None):
    with tf.variable_scope(name):
        w = tf.get_variable('w', [in_dim, out_dim],
                            initializer=tf.truncated_normal_initializer(stddev=0.1),
                            regularizer=l2_reg)
        b = tf.get_variable('b', [out_dim], initializer=tf.constant_initializer(0.0))
        out = tf.matmul(inputs, w) + b
        if activation is not None:
            out = activation(out)
        return out


x = tf.placeholder(tf.float32, [None, N_FEATURES], name='x')
y = tf.placeholder(tf.float32, [None, 1], name='y')

h1 = dense(x, N_FEATURES, H1, 'hidden1', activation=tf.nn.relu)
h2 = dense(h1, H1, H2, 'hidden2', activation=tf.nn.relu)
pred = dense(h2, H2, 1, 'output')

mse = tf.reduce_mean(tf.square(pred - y))
reg_loss = tf.losses.get_regularization_loss()
# equivalently: tf.add_n(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))
total_loss = mse + reg_loss

train_op = tf.train.AdamOptimizer(1e-3).minimize(total_loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, N_STEPS + 1):
        idx = np.random.choice(len(X_train), BATCH_SIZE, replace=False)
        _, mse_val, reg_val = sess.run([train_op, mse, reg_loss],
                                       feed_dict={x: X_train[idx], y: Y_train[idx]})
        if step % 50 == 0:
            print('step %d, data loss (mse) %.4f, reg loss %.4f, total %.4f'
                  % (step, mse_val, reg_val, mse_val + reg_val))

    test_mse = sess.run(mse, feed_dict={x: X_test, y: Y_test})
    print('final test MSE: %.4f' % test_mse)
