"""A TF1 CNN in the style of the public examples (convolutional_network_raw.py): NHWC images from input_data,
conv-relu-maxpool twice, a dense layer with dropout fed through a keep_prob placeholder, Adam, one-hot labels.
--keep-prob sets what the training loop feeds (the examples feed 0.75; a comparison feeds 1.0)."""
import argparse

import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data

parser = argparse.ArgumentParser()
parser.add_argument("--keep-prob", type=float, default=1.0)
parser.add_argument("--layout", default="nhwc")
parser.add_argument("--rate", type=float, default=0.0)
args = parser.parse_args()

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
X = tf.placeholder(tf.float32, [None, 784])
Y = tf.placeholder(tf.float32, [None, 10])
keep_prob = tf.placeholder(tf.float32)

weights = {
    "wc1": tf.Variable(tf.random_normal([5, 5, 1, 8], stddev=0.1)),
    "wc2": tf.Variable(tf.random_normal([5, 5, 8, 16], stddev=0.1)),
    "wd1": tf.Variable(tf.random_normal([7 * 7 * 16, 64], stddev=0.1)),
    "out": tf.Variable(tf.random_normal([64, 10], stddev=0.1)),
}
biases = {"bc1": tf.Variable(tf.zeros([8])), "bc2": tf.Variable(tf.zeros([16])), "bd1": tf.Variable(tf.zeros([64])),
          "out": tf.Variable(tf.zeros([10]))}


def conv2d(x, W, b):
    return tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding="SAME"), b))


def maxpool2d(x):
    return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")


x = tf.reshape(X, shape=[-1, 28, 28, 1])
conv1 = maxpool2d(conv2d(x, weights["wc1"], biases["bc1"]))
conv2 = maxpool2d(conv2d(conv1, weights["wc2"], biases["bc2"]))
fc1 = tf.reshape(conv2, [-1, 7 * 7 * 16])
fc1 = tf.nn.relu(tf.add(tf.matmul(fc1, weights["wd1"]), biases["bd1"]))
fc1 = tf.nn.dropout(fc1, keep_prob)
logits = tf.add(tf.matmul(fc1, weights["out"]), biases["out"])
loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=Y))
train_op = tf.train.AdamOptimizer(learning_rate=0.001).minimize(loss_op)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(200):
        batch_x, batch_y = mnist.train.next_batch(32)
        sess.run(train_op, feed_dict={X: batch_x, Y: batch_y, keep_prob: args.keep_prob})
