"""Two-layer CNN on synthetic 28x28 images (TF 1.x, MNIST-tutorial style)."""
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument('--steps', type=int, default=300)
args = parser.parse_args()

np.random.seed(0)
tf.set_random_seed(0)

num_samples = 512
num_classes = 10
batch_size = 32
learning_rate = 1e-3

# Synthetic data: each class is a fixed random template plus noise
templates = np.random.rand(num_classes, 28, 28, 1).astype(np.float32)
y_data = np.random.randint(0, num_classes, size=num_samples)
X_data = (templates[y_data] +
          0.5 * np.random.randn(num_samples, 28, 28, 1)).astype(np.float32)
Y_data = np.eye(num_classes, dtype=np.float32)[y_data]


def weight_variable(shape):
    initial = tf.truncated_normal(shape, stddev=0.1)
    return tf.Variable(initial)


def bias_variable(shape):
    initial = tf.constant(0.1, shape=shape)
    return tf.Variable(initial)


def conv2d(x, W):
    return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding='SAME')


def max_pool_2x2(x):
    return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                          padding='SAME')


x = tf.placeholder(tf.float32, [None, 28, 28, 1])
y_ = tf.placeholder(tf.float32, [None, num_classes])

# First conv layer: 28x28x1 -> 28x28x32 -> 14x14x32
W_conv1 = weight_variable([5, 5, 1, 32])
b_conv1 = bias_variable([32])
h_conv1 = tf.nn.relu(conv2d(x, W_conv1) + b_conv1)
h_pool1 = max_pool_2x2(h_conv1)

# Second conv layer: 14x14x32 -> 14x14x64 -> 7x7x64
W_conv2 = weight_variable([5, 5, 32, 64])
b_conv2 = bias_variable([64])
h_conv2 = tf.nn.relu(conv2d(h_pool1, W_conv2) + b_conv2)
h_pool2 = max_pool_2x2(h_conv2)

# Fully connected layer
W_fc1 = weight_variable([7 * 7 * 64, 128])
b_fc1 = bias_variable([128])
h_pool2_flat = tf.reshape(h_pool2, [-1, 7 * 7 * 64])
h_fc1 = tf.nn.relu(tf.matmul(h_pool2_flat, W_fc1) + b_fc1)

# Readout layer
W_fc2 = weight_variable([128, num_classes])
b_fc2 = bias_variable([num_classes])
y_conv = tf.matmul(h_fc1, W_fc2) + b_fc2

cross_entropy = tf.reduce_mean(
    tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=y_conv))
train_step = tf.train.AdamOptimizer(learning_rate).minimize(cross_entropy)
correct_prediction = tf.equal(tf.argmax(y_conv, 1), tf.argmax(y_, 1))
accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))

steps_per_epoch = num_samples // batch_size

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    perm = np.random.permutation(num_samples)
    for i in range(args.steps):
        j = i % steps_per_epoch
        if j == 0 and i > 0:
            perm = np.random.permutation(num_samples)
        idx = perm[j * batch_size:(j + 1) * batch_size]
        _, loss = sess.run([train_step, cross_entropy],
                           feed_dict={x: X_data[idx], y_: Y_data[idx]})
        if i % 50 == 0:
            print('step %d, training loss %g' % (i, loss))
    print('training accuracy %g' % accuracy.eval(feed_dict={x: X_data, y_: Y_data}))
