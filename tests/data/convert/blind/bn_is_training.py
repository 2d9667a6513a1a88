"""
MLP with batch normalization on a synthetic 3-class problem.

Uses tf.layers.batch_normalization with an `is_training` placeholder, and makes
sure the moving mean / variance get updated by running the train op under
control_dependencies on UPDATE_OPS.
"""
from __future__ import print_function

import numpy as np
import tensorflow as tf

np.random.seed(42)
tf.set_random_seed(42)

N_SAMPLES = 3000
N_FEATURES = 20
N_CLASSES = 3
BATCH_SIZE = 64
TRAIN_STEPS = 300
LEARNING_RATE = 1e-3

# ----- synthetic data: gaussian blobs with badly scaled features -----
centers = np.random.randn(N_CLASSES, N_FEATURES) * 2.0
labels = np.random.randint(0, N_CLASSES, size=N_SAMPLES)
data = centers[labels] + np.random.randn(N_SAMPLES, N_FEATURES) * 1.5
scales = np.random.uniform(0.1, 10.0, size=(1, N_FEATURES))
offsets = np.random.uniform(-5.0, 5.0, size=(1, N_FEATURES))
data = (data * scales + offsets).astype(np.float32)
labels = labels.astype(np.int64)

n_train = int(0.8 * N_SAMPLES)
X_train, X_test = data[:n_train], data[n_train:]
Y_train, Y_test = labels[:n_train], labels[n_train:]

# ----- graph -----
x = tf.placeholder(tf.float32, [None, N_FEATURES], name='x')
y = tf.placeholder(tf.int64, [None], name='y')
is_training = tf.placeholder(tf.bool, name='is_training')


def dense_bn_relu(inputs, units, training, name):
    with tf.variable_scope(name):
        h = tf.layers.dense(inputs, units, use_bias=False)
        h = tf.layers.batch_normalization(h, training=training)
        return tf.nn.relu(h)


h1 = dense_bn_relu(x, 64, is_training, 'fc1')
h2 = dense_bn_relu(h1, 64, is_training, 'fc2')
logits = tf.layers.dense(h2, N_CLASSES, name='logits')

loss = tf.reduce_mean(
    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
correct_prediction = tf.equal(tf.argmax(logits, 1), y)
accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))

# batch norm moving averages are updated through UPDATE_OPS
update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
with tf.control_dependencies(update_ops):
    train_op = tf.train.AdamOptimizer(LEARNING_RATE).minimize(loss)

# ----- training -----
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())

    for step in range(TRAIN_STEPS + 1):
        idx = np.random.choice(n_train, BATCH_SIZE, replace=False)
        _, l, acc = sess.run([train_op, loss, accuracy],
                             feed_dict={x: X_train[idx],
                                        y: Y_train[idx],
                                        is_training: True})
        if step % 50 == 0:
            val_loss, val_acc = sess.run([loss, accuracy],
                                         feed_dict={x: X_test, y: Y_test,
                                                    is_training: False})
            print('Step %3d: train loss %.4f, train acc %.3f | test loss %.4f, test acc %.3f'
                  % (step, l, acc, val_loss, val_acc))

    test_acc = sess.run(accuracy, feed_dict={x: X_test, y: Y_test,
                                             is_training: False})
    print('Final test accuracy (is_training=False): %.4f' % test_acc)
