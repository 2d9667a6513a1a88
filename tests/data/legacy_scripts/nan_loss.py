"""A TF1 regression with a learning rate so large that its loss overflows to inf, then NaN, within a few steps."""
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 3])
y = tf.placeholder(tf.float32, [None, 1])
w = tf.Variable(tf.ones([3, 1]))
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
train = tf.train.GradientDescentOptimizer(1e30).minimize(loss)
data = np.random.RandomState(0).rand(8, 3).astype(np.float32)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(5):
        sess.run(train, {x: data * 100, y: data[:, :1]})
