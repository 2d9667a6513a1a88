"""An LSTM classifier in the style of recurrent_network.py: a contrib.rnn BasicLSTMCell unrolled with
static_rnn over the rows of each example, the last output through a dense layer, softmax cross-entropy, Adam."""
import argparse

import numpy as np
import tensorflow as tf
from tensorflow.contrib import rnn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=100)
args = parser.parse_args()

timesteps, num_input, num_hidden, num_classes = 6, 8, 16, 3
rng = np.random.RandomState(5)
sequences = rng.rand(640, timesteps * num_input).astype(np.float32)
classes = np.eye(num_classes, dtype=np.float32)[sequences[:, :3].argmax(1)]
batch_size = 32

X = tf.placeholder("float", [None, timesteps, num_input])
Y = tf.placeholder("float", [None, num_classes])
weights = {"out": tf.Variable(tf.random_normal([num_hidden, num_classes]))}
biases = {"out": tf.Variable(tf.random_normal([num_classes]))}


def RNN(x, weights, biases):
    x = tf.unstack(x, timesteps, 1)
    lstm_cell = rnn.BasicLSTMCell(num_hidden, forget_bias=1.0)
    outputs, states = rnn.static_rnn(lstm_cell, x, dtype=tf.float32)
    return tf.matmul(outputs[-1], weights["out"]) + biases["out"]


logits = RNN(X, weights, biases)
loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=Y))
train_op = tf.train.AdamOptimizer(learning_rate=0.01).minimize(loss_op)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, args.steps + 1):
        start = (step * batch_size) % len(sequences)
        batch_x = sequences[start:start + batch_size].reshape((batch_size, timesteps, num_input))
        batch_y = classes[start:start + batch_size]
        sess.run(train_op, feed_dict={X: batch_x, Y: batch_y})
        if step % 25 == 0 or step == 1:
            loss = sess.run(loss_op, feed_dict={X: batch_x, Y: batch_y})
            print("Step " + str(step) + ", Minibatch Loss= " + "{:.4f}".format(loss))
