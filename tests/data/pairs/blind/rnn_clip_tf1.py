"""LSTM sequence classifier with global-norm gradient clipping (TF 1.x)."""
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument('--steps', type=int, default=400)
args = parser.parse_args()

np.random.seed(42)
tf.set_random_seed(42)

# Hyperparameters
num_samples = 256
seq_len = 12
num_features = 8
num_classes = 4
num_hidden = 32
batch_size = 32
learning_rate = 0.001
clip_norm = 5.0

# Synthetic data: label depends on which feature has the largest mean over time
X_data = np.random.randn(num_samples, seq_len, num_features).astype(np.float32)
y_data = np.argmax(X_data[:, :, :num_classes].mean(axis=1), axis=1).astype(np.int64)

x = tf.placeholder(tf.float32, [None, seq_len, num_features], name='x')
y = tf.placeholder(tf.int64, [None], name='y')

cell = tf.nn.rnn_cell.LSTMCell(num_hidden)
outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
last = outputs[:, -1, :]
logits = tf.layers.dense(last, num_classes)

loss = tf.reduce_mean(
    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
correct = tf.equal(tf.argmax(logits, 1), y)
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

optimizer = tf.train.AdamOptimizer(learning_rate)
grads_and_vars = optimizer.compute_gradients(loss)
grads, variables = zip(*grads_and_vars)
clipped_grads, global_norm = tf.clip_by_global_norm(grads, clip_norm)
train_op = optimizer.apply_gradients(zip(clipped_grads, variables))

steps_per_epoch = num_samples // batch_size

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    perm = np.random.permutation(num_samples)
    for step in range(args.steps):
        i = step % steps_per_epoch
        if i == 0 and step > 0:
            perm = np.random.permutation(num_samples)
        idx = perm[i * batch_size:(i + 1) * batch_size]
        batch_x, batch_y = X_data[idx], y_data[idx]
        _, l, gn = sess.run([train_op, loss, global_norm],
                            feed_dict={x: batch_x, y: batch_y})
        if step % 50 == 0:
            print('Step %d, loss %.4f, grad norm %.4f' % (step, l, gn))
    acc = sess.run(accuracy, feed_dict={x: X_data, y: y_data})
    print('Final training accuracy: %.4f' % acc)
