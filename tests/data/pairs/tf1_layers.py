"""The MLP as many TF1 scripts wrote it: `tf.layers.dense` (under Keras 3: tf-keras's with the legacy extra, else the
legacy runtime's)."""
import tensorflow.compat.v1 as tf
from tensorflow.examples.tutorials.mnist import input_data

tf.disable_v2_behavior()

mnist = input_data.read_data_sets("MNIST_data", one_hot=True)
x = tf.placeholder(tf.float32, [None, 784])
y = tf.placeholder(tf.float32, [None, 10])
init = tf.random_normal_initializer(stddev=0.1)
h = tf.layers.dense(x, 32, activation=tf.nn.relu, kernel_initializer=init)
h = tf.layers.dense(h, 32, activation=tf.nn.relu, kernel_initializer=init)
h = tf.layers.dense(h, 32, activation=tf.nn.relu, kernel_initializer=init)
logits = tf.layers.dense(h, 10, kernel_initializer=init)
loss = tf.losses.softmax_cross_entropy(y, logits)
train_op = tf.train.AdamOptimizer(0.001).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(100):
        bx, by = mnist.train.next_batch(64)
        sess.run(train_op, {x: bx, y: by})
