"""A convolutional network in the style of convolutional_network_raw.py: conv2d + bias + relu and max-pool
wrappers, a dense layer with dropout (keep_prob fed), softmax cross-entropy, Adam."""
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=100)
parser.add_argument("--dropout", type=float, default=0.75)  # probability to keep units
args = parser.parse_args()

rng = np.random.RandomState(2)
images = rng.rand(512, 144).astype(np.float32)
labels = np.eye(5, dtype=np.float32)[(images[:, :5] * np.arange(1, 6)).argmax(1)]
learning_rate = 0.001
batch_size = 32

X = tf.placeholder(tf.float32, [None, 144])
Y = tf.placeholder(tf.float32, [None, 5])
keep_prob = tf.placeholder(tf.float32)


def conv2d(x, W, b, strides=1):
    x = tf.nn.conv2d(x, W, strides=[1, strides, strides, 1], padding="SAME")
    x = tf.nn.bias_add(x, b)
    return tf.nn.relu(x)


def maxpool2d(x, k=2):
    return tf.nn.max_pool(x, ksize=[1, k, k, 1], strides=[1, k, k, 1], padding="SAME")


weights = {
    "wc1": tf.Variable(tf.random_normal([3, 3, 1, 8], stddev=0.1)),
    "wd1": tf.Variable(tf.random_normal([6 * 6 * 8, 32], stddev=0.1)),
    "out": tf.Variable(tf.random_normal([32, 5], stddev=0.1)),
}
biases = {
    "bc1": tf.Variable(tf.zeros([8])),
    "bd1": tf.Variable(tf.zeros([32])),
    "out": tf.Variable(tf.zeros([5])),
}


def conv_net(x, weights, biases, dropout):
    x = tf.reshape(x, shape=[-1, 12, 12, 1])
    conv1 = conv2d(x, weights["wc1"], biases["bc1"])
    conv1 = maxpool2d(conv1, k=2)
    fc1 = tf.reshape(conv1, [-1, weights["wd1"].get_shape().as_list()[0]])
    fc1 = tf.add(tf.matmul(fc1, weights["wd1"]), biases["bd1"])
    fc1 = tf.nn.relu(fc1)
    fc1 = tf.nn.dropout(fc1, dropout)
    return tf.add(tf.matmul(fc1, weights["out"]), biases["out"])


logits = conv_net(X, weights, biases, keep_prob)
loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=Y))
train_op = tf.train.AdamOptimizer(learning_rate=learning_rate).minimize(loss_op)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, args.steps + 1):
        start = (step * batch_size) % len(images)
        batch_x, batch_y = images[start:start + batch_size], labels[start:start + batch_size]
        sess.run(train_op, feed_dict={X: batch_x, Y: batch_y, keep_prob: args.dropout})
        if step % 20 == 0 or step == 1:
            loss = sess.run(loss_op, feed_dict={X: batch_x, Y: batch_y, keep_prob: 1.0})
            print("Step " + str(step) + ", Minibatch Loss= " + "{:.4f}".format(loss))
