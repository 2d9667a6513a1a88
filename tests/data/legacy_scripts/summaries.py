"""TF1 summaries in the style of the public TF1 examples: tf.summary.scalar / histogram, merge_all, a FileWriter
with the graph, written at every step of a Session training loop. The log folder is the first argument."""
import sys

import numpy as np
import tensorflow as tf

logs_path = sys.argv[1] if len(sys.argv) > 1 else "/tmp/tensorflow_logs/example/"
x = tf.placeholder(tf.float32, [None, 4], name="x")
y = tf.placeholder(tf.float32, [None, 1], name="y")
W = tf.Variable(tf.zeros([4, 1]), name="W")
b = tf.Variable(tf.zeros([1]), name="b")
with tf.name_scope("Loss"):
    loss = tf.reduce_mean(tf.square(tf.matmul(x, W) + b - y))
train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
tf.summary.scalar("loss", loss)
tf.summary.histogram("W", W)
merged_summary_op = tf.summary.merge_all()

rng = np.random.RandomState(0)
bx = rng.rand(16, 4).astype(np.float32)
by = bx.sum(axis=1, keepdims=True)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    summary_writer = tf.summary.FileWriter(logs_path, graph=tf.get_default_graph())
    for step in range(10):
        _, c, summary = sess.run([train_op, loss, merged_summary_op], feed_dict={x: bx, y: by})
        summary_writer.add_summary(summary, step)
    summary_writer.close()
print("summaries written to", logs_path)
