"""MLP classifier with a piecewise constant learning rate schedule."""
from __future__ import print_function

import numpy as np
import tensorflow as tf

np.random.seed(42)
tf.set_random_seed(42)

# ---- synthetic data: 3 gaussian blobs in 2D ----
N_PER_CLASS = 300
N_CLASSES = 3
centers = np.array([[0.0, 2.0], [-2.0, -1.0], [2.0, -1.0]])
X = np.concatenate([centers[c] + np.random.randn(N_PER_CLASS, 2) for c in range(N_CLASSES)])
Y = np.concatenate([np.full(N_PER_CLASS, c) for c in range(N_CLASSES)]).astype(np.int64)
perm = np.random.permutation(len(X))
X, Y = X[perm].astype(np.float32), Y[perm]
X_train, Y_train = X[:700], Y[:700]
X_test, Y_test = X[700:], Y[700:]

BATCH_SIZE = 64
N_STEPS = 300
HIDDEN = 32

# ---- graph ----
x = tf.placeholder(tf.float32, [None, 2], name='x')
y = tf.placeholder(tf.int64, [None], name='y')

W1 = tf.Variable(tf.truncated_normal([2, HIDDEN], stddev=0.1), name='W1')
b1 = tf.Variable(tf.zeros([HIDDEN]), name='b1')
h1 = tf.nn.relu(tf.matmul(x, W1) + b1)

W2 = tf.Variable(tf.truncated_normal([HIDDEN, HIDDEN], stddev=0.1), name='W2')
b2 = tf.Variable(tf.zeros([HIDDEN]), name='b2')
h2 = tf.nn.relu(tf.matmul(h1, W2) + b2)

W3 = tf.Variable(tf.truncated_normal([HIDDEN, N_CLASSES], stddev=0.1), name='W3')
b3 = tf.Variable(tf.zeros([N_CLASSES]), name='b3')
logits = tf.matmul(h2, W3) + b3

loss = tf.reduce_mean(
    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))

global_step = tf.train.get_or_create_global_step()
lr = tf.train.piecewise_constant(global_step, boundaries=[100, 200],
                                 values=[0.1, 0.05, 0.01])
optimizer = tf.train.MomentumOptimizer(lr, 0.9)
train_op = optimizer.minimize(loss, global_step=global_step)

correct = tf.equal(tf.argmax(logits, 1), y)
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    for i in range(N_STEPS):
        idx = np.random.choice(len(X_train), BATCH_SIZE, replace=False)
        feed = {x: X_train[idx], y: Y_train[idx]}
        _, loss_val, lr_val, step = sess.run([train_op, loss, lr, global_step],
                                             feed_dict=feed)
        if step % 50 == 0:
            print('step %d, lr %.4f, loss %.4f' % (step, lr_val, loss_val))

    test_acc = sess.run(accuracy, feed_dict={x: X_test, y: Y_test})
    print('final step %d, test accuracy %.4f' % (sess.run(global_step), test_acc))
