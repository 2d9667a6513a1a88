"""A GRU classifier in the style of public contrib.rnn examples: tf.contrib.rnn.GRUCell unrolled with static_rnn
over the rows of each example, the final state through a dense layer, sparse softmax cross-entropy, and
RMSPropOptimizer(centered=True) with momentum."""
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=100)
args = parser.parse_args()

timesteps, num_input, num_hidden, num_classes = 5, 6, 10, 4
rng = np.random.RandomState(13)
sequences = rng.rand(512, timesteps * num_input).astype(np.float32)
targets = (sequences[:, :num_classes] + sequences[:, -num_classes:]).argmax(1).astype(np.int64)
batch_size = 32

X = tf.placeholder(tf.float32, [None, timesteps, num_input])
Y = tf.placeholder(tf.int64, [None])
W = tf.Variable(tf.truncated_normal([num_hidden, num_classes], stddev=0.1))
b = tf.Variable(tf.zeros([num_classes]))

inputs = tf.unstack(X, timesteps, 1)
gru_cell = tf.contrib.rnn.GRUCell(num_hidden)
outputs, state = tf.contrib.rnn.static_rnn(gru_cell, inputs, dtype=tf.float32)
logits = tf.matmul(state, W) + b
cost = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=Y, logits=logits))
optimizer = tf.train.RMSPropOptimizer(learning_rate=0.005, momentum=0.5, centered=True).minimize(cost)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(args.steps):
        start = (step * batch_size) % len(sequences)
        batch_x = sequences[start:start + batch_size].reshape((-1, timesteps, num_input))
        _, c = sess.run([optimizer, cost], feed_dict={X: batch_x, Y: targets[start:start + batch_size]})
        if step % 20 == 0:
            print("step %d: cost %.5f" % (step, c))
