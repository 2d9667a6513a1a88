"""A TF1 two-class softmax classifier on seeded 2-D points: integer class ids, batches of 32 (--batch)."""
import argparse

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
parser = argparse.ArgumentParser()
parser.add_argument("--batch", type=int, default=32)
parser.add_argument("--case", default="")
args = parser.parse_args()

rng = np.random.default_rng(0)
points = rng.normal(size=(2048, 2)).astype(np.float32)
classes = (points.sum(axis=1) > 0).astype(np.int32)

x = tf.placeholder(tf.float32, [None, 2])
y = tf.placeholder(tf.int32, [None])
w = tf.Variable(tf.random_normal([2, 2], stddev=0.1))
b = tf.Variable(tf.zeros([2]))
logits = tf.matmul(x, w) + b
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for start in range(0, 2048, args.batch):
        sess.run(train, {x: points[start:start + args.batch], y: classes[start:start + args.batch]})
