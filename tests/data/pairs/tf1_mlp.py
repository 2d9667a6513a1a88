"""A TF1 MLP: three hidden ReLU layers, Adam (RMSProp with `rmsprop` among the arguments), one-hot labels."""
import sys

import tensorflow.compat.v1 as tf
from tensorflow.examples.tutorials.mnist import input_data

tf.disable_v2_behavior()
tf.set_random_seed(1)

mnist = input_data.read_data_sets("MNIST_data", one_hot=True)
x = tf.placeholder(tf.float32, [None, 784], name="x")
y = tf.placeholder(tf.float32, [None, 10], name="y")


def layer(inputs, n_in, n_out, name, activation=tf.nn.relu):
    with tf.variable_scope(name):
        w = tf.Variable(tf.random_normal([n_in, n_out], stddev=0.1), name="w")
        b = tf.Variable(tf.zeros([n_out]), name="b")
        out = tf.matmul(inputs, w) + b
        return activation(out) if activation else out


h1 = layer(x, 784, 32, "h1")
h2 = layer(h1, 32, 32, "h2")
h3 = layer(h2, 32, 32, "h3")
logits = layer(h3, 32, 10, "out", activation=None)
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
if "rmsprop" in sys.argv:
    train_op = tf.train.RMSPropOptimizer(learning_rate=0.001).minimize(loss)
else:
    train_op = tf.train.AdamOptimizer(learning_rate=0.001).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(2):
        for _ in range(mnist.train.num_examples // 64):
            bx, by = mnist.train.next_batch(64)
            sess.run(train_op, feed_dict={x: bx, y: by})
