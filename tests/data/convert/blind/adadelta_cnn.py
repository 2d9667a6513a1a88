"""Small CNN on synthetic 16x16 stripe images, trained with Adadelta."""
from __future__ import print_function

import numpy as np
import tensorflow as tf

np.random.seed(1)
tf.set_random_seed(1)

IMG = 16
N_CLASSES = 3  # 0: horizontal stripes, 1: vertical stripes, 2: diagonal stripes


def make_images(n):
    images = np.zeros((n, IMG, IMG, 1), dtype=np.float32)
    labels = np.random.randint(N_CLASSES, size=n)
    rr, cc = np.meshgrid(np.arange(IMG), np.arange(IMG), indexing='ij')
    for i in range(n):
        period = np.random.randint(3, 6)
        phase = np.random.randint(period)
        coord = [rr, cc, rr + cc][labels[i]]
        images[i, :, :, 0] = ((coord + phase) % period == 0).astype(np.float32)
    images += 1.0 * np.random.randn(*images.shape).astype(np.float32)
    return images, labels.astype(np.int64)


X_train, Y_train = make_images(2000)
X_test, Y_test = make_images(500)

BATCH_SIZE = 64
N_STEPS = 400


def weight_variable(shape):
    return tf.Variable(tf.truncated_normal(shape, stddev=0.1))


def bias_variable(shape):
    return tf.Variable(tf.constant(0.1, shape=shape))


def conv2d(x, W):
    return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding='SAME')


def max_pool_2x2(x):
    return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')


x = tf.placeholder(tf.float32, [None, IMG, IMG, 1])
y_ = tf.placeholder(tf.int64, [None])

W_conv1 = weight_variable([3, 3, 1, 16])
b_conv1 = bias_variable([16])
h_pool1 = max_pool_2x2(tf.nn.relu(conv2d(x, W_conv1) + b_conv1))        # 8x8x16

W_conv2 = weight_variable([3, 3, 16, 32])
b_conv2 = bias_variable([32])
h_pool2 = max_pool_2x2(tf.nn.relu(conv2d(h_pool1, W_conv2) + b_conv2))  # 4x4x32

h_flat = tf.reshape(h_pool2, [-1, 4 * 4 * 32])
W_fc1 = weight_variable([4 * 4 * 32, 64])
b_fc1 = bias_variable([64])
h_fc1 = tf.nn.relu(tf.matmul(h_flat, W_fc1) + b_fc1)

W_fc2 = weight_variable([64, N_CLASSES])
b_fc2 = bias_variable([N_CLASSES])
logits = tf.matmul(h_fc1, W_fc2) + b_fc2

cross_entropy = tf.reduce_mean(
    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_, logits=logits))
train_step = tf.train.AdadeltaOptimizer(learning_rate=1.0, rho=0.95,
                                        epsilon=1e-6).minimize(cross_entropy)
correct_prediction = tf.equal(tf.argmax(logits, 1), y_)
accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, N_STEPS + 1):
        idx = np.random.randint(0, len(X_train), BATCH_SIZE)
        _, loss_val = sess.run([train_step, cross_entropy],
                               feed_dict={x: X_train[idx], y_: Y_train[idx]})
        if step % 50 == 0:
            train_acc = sess.run(accuracy, feed_dict={x: X_train[idx], y_: Y_train[idx]})
            print('step %d, loss %.4f, batch accuracy %.3f' % (step, loss_val, train_acc))

    test_acc = sess.run(accuracy, feed_dict={x: X_test, y_: Y_test})
    print('held-out test accuracy %.4f' % test_acc)
