"""TF1 training script: placeholders, get_variable, an Adam train op, a Session (written for tfcompare's tests)."""
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 4], name="x")
y = tf.placeholder(tf.float32, [None, 1], name="y")
w = tf.get_variable("w", shape=[4, 1])
b = tf.get_variable("b", shape=[1], initializer=tf.zeros_initializer())
pred = tf.matmul(x, w) + b
loss = tf.reduce_mean(tf.square(pred - y))
train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
tf.set_random_seed(0)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(10):
        sess.run(train_op, {x: np.ones((8, 4)), y: np.ones((8, 1))})
