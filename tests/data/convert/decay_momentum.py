"""An Estimator-free script with a global step: exponential learning-rate decay (staircase), Momentum, and an
L2 weight penalty added to a sparse softmax cross-entropy (integer labels)."""
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=100)
args = parser.parse_args()

rng = np.random.RandomState(4)
inputs = rng.randn(800, 10).astype(np.float32)
targets = (inputs[:, 0] + inputs[:, 1] > 0).astype(np.int64) + (inputs[:, 2] > 1).astype(np.int64)
batch_size = 40
beta = 0.01

x = tf.placeholder(tf.float32, [None, 10], name="x")
y = tf.placeholder(tf.int64, [None], name="y")
w1 = tf.Variable(tf.truncated_normal([10, 16], stddev=0.3), name="w1")
b1 = tf.Variable(tf.constant(0.1, shape=[16]), name="b1")
w2 = tf.Variable(tf.truncated_normal([16, 3], stddev=0.3), name="w2")
b2 = tf.Variable(tf.zeros([3]), name="b2")
hidden = tf.nn.tanh(tf.matmul(x, w1) + b1)
logits = tf.matmul(hidden, w2) + b2
xent = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
loss = xent + beta * (tf.nn.l2_loss(w1) + tf.nn.l2_loss(w2))

global_step = tf.Variable(0, trainable=False)
learning_rate = tf.train.exponential_decay(0.2, global_step, 2, 0.5, staircase=True)
train_op = tf.train.MomentumOptimizer(learning_rate, 0.9).minimize(loss, global_step=global_step)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(args.steps):
        start = (step * batch_size) % len(inputs)
        feed = {x: inputs[start:start + batch_size], y: targets[start:start + batch_size]}
        _, loss_value = sess.run([train_op, loss], feed_dict=feed)
        if step % 20 == 0:
            print("step %d: loss %.4f" % (step, loss_value))
