"""A TF1 regression whose model is pinned to the first GPU, as multi-GPU TF1 examples write it."""
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 3])
y = tf.placeholder(tf.float32, [None, 1])
with tf.device("/gpu:0"):
    w = tf.Variable(tf.zeros([3, 1]))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
data = np.random.RandomState(0).rand(8, 3).astype(np.float32)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(10):
        sess.run(train, {x: data, y: data[:, :1]})
