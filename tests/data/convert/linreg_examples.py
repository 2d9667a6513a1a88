"""Linear regression in the style of the 2016-2017 tutorials: shapeless "float" placeholders, weights drawn by
NumPy, one example per Session.run (`for (x, y) in zip(train_X, train_Y)`), and after training a test set
written out in the script and a cost built inline in the fetch (`sess.run(tf.reduce_sum(...) / n, ...)`)."""
from __future__ import print_function

import argparse

import numpy
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=40, help="epochs")
args = parser.parse_args()
rng = numpy.random
rng.seed(7)

learning_rate = 0.02
train_X = numpy.asarray([1.1, 2.3, 3.0, 4.2, 5.1, 6.3, 7.2, 8.8, 9.1])
train_Y = numpy.asarray([0.9, 1.6, 2.2, 2.5, 3.3, 3.6, 4.1, 5.0, 5.2])
n_samples = train_X.shape[0]

X = tf.placeholder("float")
Y = tf.placeholder("float")
W = tf.Variable(rng.randn(), name="weight")
b = tf.Variable(rng.randn(), name="bias")
pred = tf.add(tf.multiply(X, W), b)
cost = tf.reduce_sum(tf.pow(pred - Y, 2)) / (2 * n_samples)
optimizer = tf.train.GradientDescentOptimizer(learning_rate).minimize(cost)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(args.steps):
        for (x, y) in zip(train_X, train_Y):
            sess.run(optimizer, feed_dict={X: x, Y: y})
        if (epoch + 1) % 10 == 0:
            c = sess.run(cost, feed_dict={X: train_X, Y: train_Y})
            print("Epoch:", '%04d' % (epoch + 1), "cost=", "{:.6f}".format(c), "W=", "{:.5f}".format(sess.run(W)),
                  "b=", "{:.5f}".format(sess.run(b)))
    training_cost = sess.run(cost, feed_dict={X: train_X, Y: train_Y})

    test_X = numpy.asarray([2.0, 4.5, 6.1, 8.0])
    test_Y = numpy.asarray([1.4, 2.8, 3.5, 4.6])
    testing_cost = sess.run(tf.reduce_sum(tf.pow(pred - Y, 2)) / (2 * test_X.shape[0]),
                            feed_dict={X: test_X, Y: test_Y})
    print("Testing cost= {:.6f}".format(testing_cost))
    print("Gap: {:.6f}".format(abs(training_cost - testing_cost)))
