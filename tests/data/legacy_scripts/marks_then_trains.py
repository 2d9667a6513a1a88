"""A TF1 script that first creates the file named by argv[1], then trains: it shows whether it ran at all."""
import sys

import tensorflow as tf

open(sys.argv[1], "w").close()
w = tf.Variable(1.0)
train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(w))
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(train)
