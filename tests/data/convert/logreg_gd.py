"""Logistic regression in the style of the public TF1 examples: placeholders, zeros-initialised W and b, a
softmax and a hand-written cross-entropy, GradientDescent, a Session loop over batches of a numpy dataset."""
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=300)
args = parser.parse_args()

rng = np.random.RandomState(0)
train_x = rng.rand(1000, 20).astype(np.float32)
train_y = np.eye(3, dtype=np.float32)[(train_x[:, :3] * [1.0, 2.0, 3.0]).argmax(1)]
learning_rate = 0.5
batch_size = 50
display_step = 50

x = tf.placeholder(tf.float32, [None, 20])
y = tf.placeholder(tf.float32, [None, 3])
W = tf.Variable(tf.zeros([20, 3]))
b = tf.Variable(tf.zeros([3]))
pred = tf.nn.softmax(tf.matmul(x, W) + b)
cost = tf.reduce_mean(-tf.reduce_sum(y * tf.log(pred), reduction_indices=1))
optimizer = tf.train.GradientDescentOptimizer(learning_rate).minimize(cost)
init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    for step in range(args.steps):
        start = (step * batch_size) % len(train_x)
        batch_xs, batch_ys = train_x[start:start + batch_size], train_y[start:start + batch_size]
        _, c = sess.run([optimizer, cost], feed_dict={x: batch_xs, y: batch_ys})
        if step % display_step == 0:
            print("Step:", "%04d" % step, "cost=", "{:.9f}".format(c))
    print("Optimization Finished!")
