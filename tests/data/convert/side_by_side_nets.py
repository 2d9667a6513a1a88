"""Two regressions trained side by side in one Session.run, as MorvanZhou's comparison tutorials do: the same
data, one network with SGD and one with Adam, each its own variables and optimizer."""
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=200)
args = parser.parse_args()

tf.set_random_seed(1)
np.random.seed(1)
x = np.linspace(-1, 1, 100)[:, np.newaxis]
y = np.power(x, 2) + np.random.normal(0, 0.1, size=x.shape)

tf_x = tf.placeholder(tf.float32, x.shape)
tf_y = tf.placeholder(tf.float32, y.shape)

s1 = tf.layers.dense(tf_x, 10, tf.nn.relu)
s_out = tf.layers.dense(s1, 1)
s_loss = tf.losses.mean_squared_error(tf_y, s_out)
s_train = tf.train.GradientDescentOptimizer(0.1).minimize(s_loss)

a1 = tf.layers.dense(tf_x, 10, tf.nn.relu)
a_out = tf.layers.dense(a1, 1)
a_loss = tf.losses.mean_squared_error(tf_y, a_out)
a_train = tf.train.AdamOptimizer(0.01).minimize(a_loss)

sess = tf.Session()
sess.run(tf.global_variables_initializer())
for step in range(args.steps):
    sess.run([s_train, a_train], {tf_x: x, tf_y: y})
    if step % 50 == 0:
        l1, l2 = sess.run([s_loss, a_loss], {tf_x: x, tf_y: y})
        print(step, "sgd loss %.4f" % l1, "adam loss %.4f" % l2)
