"""An MLP with batch normalisation in the style of public contrib.layers examples that do run the moving averages:
tf.contrib.layers.batch_norm(is_training=True) before each relu (one with decay 0.9, one with the default 0.999),
and the train op made under control_dependencies(UPDATE_OPS), as the batch_norm docstring asks. Adam."""
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=100)
args = parser.parse_args()

rng = np.random.RandomState(11)
features = (rng.rand(1024, 20) * 4.0 + 2.0).astype(np.float32)
labels = np.eye(3, dtype=np.float32)[(features[:, :3] - features[:, 3:6]).argmax(1)]
batch_size = 64
display_step = 25

X = tf.placeholder(tf.float32, [None, 20])
Y = tf.placeholder(tf.float32, [None, 3])
W1 = tf.Variable(tf.truncated_normal([20, 32], stddev=0.1))
W2 = tf.Variable(tf.truncated_normal([32, 16], stddev=0.1))
W3 = tf.Variable(tf.truncated_normal([16, 3], stddev=0.1))
b3 = tf.Variable(tf.zeros([3]))

h1 = tf.nn.relu(tf.contrib.layers.batch_norm(tf.matmul(X, W1), decay=0.9, scale=True, is_training=True))
h2 = tf.nn.relu(tf.contrib.layers.batch_norm(tf.matmul(h1, W2), is_training=True))
logits = tf.matmul(h2, W3) + b3
loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=Y))
update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
with tf.control_dependencies(update_ops):
    train_op = tf.train.AdamOptimizer(learning_rate=0.01).minimize(loss_op)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, args.steps + 1):
        start = (step * batch_size) % len(features)
        batch_x, batch_y = features[start:start + batch_size], labels[start:start + batch_size]
        _, loss = sess.run([train_op, loss_op], feed_dict={X: batch_x, Y: batch_y})
        if step % display_step == 0 or step == 1:
            print("Step " + str(step) + ", Minibatch Loss= " + "{:.4f}".format(loss))
