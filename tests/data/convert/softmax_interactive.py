"""Softmax regression in the style of TF 1.x's "MNIST for ML beginners" / "Deep MNIST" tutorials: an
InteractiveSession, `tf.global_variables_initializer().run()`, the labels placeholder called `y_` beside the
logits `y`, `train_step.run(feed_dict=...)` and `accuracy.eval(feed_dict=...)` in the loop, a test accuracy built after it."""
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=200)
args = parser.parse_args()

rng = np.random.RandomState(1)
images = rng.rand(600, 30).astype(np.float32)
labels = np.eye(4, dtype=np.float32)[(images[:, :4] * [1.0, 1.5, 2.0, 2.5]).argmax(1)]

x = tf.placeholder(tf.float32, [None, 30])
W = tf.Variable(tf.zeros([30, 4]))
b = tf.Variable(tf.zeros([4]))
y = tf.matmul(x, W) + b
y_ = tf.placeholder(tf.float32, [None, 4])
cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y))
train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
correct_prediction = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))

sess = tf.InteractiveSession()
tf.global_variables_initializer().run()
for i in range(args.steps):
    start = (i * 60) % len(images)
    batch = (images[start:start + 60], labels[start:start + 60])
    if i % 50 == 0:
        train_accuracy = accuracy.eval(feed_dict={x: batch[0], y_: batch[1]})
        print("step %d, training accuracy %g" % (i, train_accuracy))
    train_step.run(feed_dict={x: batch[0], y_: batch[1]})
# graph code after the training loop, as the tutorials wrote their test accuracy
test_prediction = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
test_accuracy = tf.reduce_mean(tf.cast(test_prediction, tf.float32))
print("final accuracy %g" % test_accuracy.eval(feed_dict={x: images, y_: labels}))
