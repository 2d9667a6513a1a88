"""The MLP rewritten with raw variables and a plain Python step (no tf.function), integer labels.

`swap` among the arguments creates the second and third hidden layers' weights in the other order (they are
used in the same order): with two variables of one shape, creation order and order of use then disagree.
`wider` makes the first hidden layer 48 wide and sums the loss over the batch: a different model.
"""
import sys

import numpy as np
import tensorflow as tf

(x_train, y_train), _ = tf.keras.datasets.mnist.load_data()
x_train = (x_train / 255.0).reshape(-1, 784).astype(np.float32)

init = tf.random_normal_initializer(stddev=0.1, seed=3)
width = 48 if "wider" in sys.argv else 32
w1, b1 = tf.Variable(init([784, width])), tf.Variable(tf.zeros([width]))
if "swap" in sys.argv:
    w3, b3 = tf.Variable(init([32, 32])), tf.Variable(tf.zeros([32]))
    w2, b2 = tf.Variable(init([32, 32])), tf.Variable(tf.zeros([32]))
elif "wider" in sys.argv:
    w2, b2 = tf.Variable(init([width, 32])), tf.Variable(tf.zeros([32]))
    w3, b3 = tf.Variable(init([32, 32])), tf.Variable(tf.zeros([32]))
else:
    w2, b2 = tf.Variable(init([32, 32])), tf.Variable(tf.zeros([32]))
    w3, b3 = tf.Variable(init([32, 32])), tf.Variable(tf.zeros([32]))
w4, b4 = tf.Variable(init([32, 10])), tf.Variable(tf.zeros([10]))
params = [w1, b1, w2, b2, w3, b3, w4, b4]
optimizer = tf.keras.optimizers.Adam(learning_rate=0.001, epsilon=1e-8)


def model(x):
    h = tf.nn.relu(x @ w1 + b1)
    h = tf.nn.relu(h @ w2 + b2)
    h = tf.nn.relu(h @ w3 + b3)
    return h @ w4 + b4


def train_step(x, y):
    with tf.GradientTape() as tape:
        losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=model(x))
        loss = tf.reduce_sum(losses) if "wider" in sys.argv else tf.reduce_mean(losses)
    optimizer.apply_gradients(zip(tape.gradient(loss, params), params))
    return loss


for start in range(0, len(x_train), 64):
    train_step(x_train[start:start + 64], y_train[start:start + 64].astype(np.int64))
