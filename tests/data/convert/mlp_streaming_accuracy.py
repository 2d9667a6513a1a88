"""A two-layer classifier in the style of MorvanZhou's TF1 tutorials (tf.layers.dense, 2017): the streaming
`tf.metrics.accuracy(...)[1]` (its update op, two local variables) fetched with the train op in every step, a
second one for the test set read after training, and `tf.local_variables_initializer()` grouped with the global
one; the fed `tf_x` is not a placeholder but `placeholder / 2.` (TF1 feeds any tensor: the division never runs).
The weights start from the script's own NumPy draws, so both versions begin alike and print the same."""
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=100)
args = parser.parse_args()

np.random.seed(3)
x0 = np.random.normal(1.2, 1, (120, 2))
x1 = np.random.normal(-1.2, 1, (120, 2))
x = np.vstack((x0, x1)).astype(np.float32)
y = np.hstack((np.zeros(120), np.ones(120))).astype(np.int32)
test_x = np.random.normal(0, 1.8, (80, 2)).astype(np.float32)
test_y = (test_x.sum(axis=1) < 0).astype(np.int32)

tf_x = tf.placeholder(tf.float32, [None, 2]) / 2.     # input x, scaled; the script feeds this tensor itself
tf_y = tf.placeholder(tf.int32, [None])          # input y

l1 = tf.layers.dense(tf_x, 8, tf.nn.relu, kernel_initializer=tf.constant_initializer(np.random.randn(2, 8) * 0.5))
output = tf.layers.dense(l1, 2, kernel_initializer=tf.constant_initializer(np.random.randn(8, 2) * 0.5))

loss = tf.losses.sparse_softmax_cross_entropy(labels=tf_y, logits=output)
accuracy = tf.metrics.accuracy(          # return (acc, update_op), and create 2 local variables
    labels=tf.squeeze(tf_y), predictions=tf.argmax(output, axis=1),)[1]
test_accuracy = tf.metrics.accuracy(labels=tf_y, predictions=tf.argmax(output, axis=1), name="test_accuracy")[1]
train_op = tf.train.GradientDescentOptimizer(learning_rate=0.1).minimize(loss)

sess = tf.Session()
init_op = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())
sess.run(init_op)

for step in range(args.steps):
    _, l, acc = sess.run([train_op, loss, accuracy], {tf_x: x, tf_y: y})
    if step % 20 == 0:
        print("step %d: loss %.4f, running accuracy %.4f" % (step, l, acc))

print("test accuracy %.4f" % sess.run(test_accuracy, {tf_x: test_x, tf_y: test_y}))
