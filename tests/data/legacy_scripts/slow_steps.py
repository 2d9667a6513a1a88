"""A TF1 regression that trains many steps slowly: each step's number goes to the file named by argv[1]."""
import sys
import time

import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 3])
y = tf.placeholder(tf.float32, [None, 1])
w = tf.Variable(tf.zeros([3, 1]))
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
data = np.random.RandomState(0).rand(8, 3).astype(np.float32)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1000):
        sess.run(train, {x: data, y: data[:, :1]})
        with open(sys.argv[1], "a") as f:
            f.write(f"{step}\n")
        time.sleep(0.2)
