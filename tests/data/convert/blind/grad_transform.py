"""MLP on a two-spirals-like problem with gradient clipping.

Instead of optimizer.minimize(), the gradients are computed with
opt.compute_gradients(loss), each one is clipped with tf.clip_by_value,
and the clipped gradients are applied with opt.apply_gradients(...,
global_step=global_step).
"""
from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

import numpy as np
import tensorflow as tf

np.random.seed(0)
tf.set_random_seed(0)

N_PER_CLASS = 500
BATCH_SIZE = 100
NUM_STEPS = 1000
LEARNING_RATE = 0.1
MOMENTUM = 0.9
CLIP_VALUE = 0.02


def make_spirals(n):
    """Two interleaved spirals, labels 0 and 1."""
    theta = np.sqrt(np.random.rand(n)) * 2 * np.pi
    r = 2 * theta + np.pi
    a = np.stack([np.cos(theta) * r, np.sin(theta) * r], axis=1)
    b = -a
    x = np.concatenate([a, b]) + 1.0 * np.random.randn(2 * n, 2)
    y = np.concatenate([np.zeros(n), np.ones(n)])
    perm = np.random.permutation(2 * n)
    return (x[perm] / 10.0).astype(np.float32), y[perm].astype(np.int32)


data_x, data_y = make_spirals(N_PER_CLASS)
split = int(0.8 * len(data_y))
train_x, train_y = data_x[:split], data_y[:split]
test_x, test_y = data_x[split:], data_y[split:]

x = tf.placeholder(tf.float32, shape=[None, 2], name="x")
y = tf.placeholder(tf.int32, shape=[None], name="y")

net = tf.layers.dense(x, 64, activation=tf.nn.tanh, name="fc1")
net = tf.layers.dense(net, 64, activation=tf.nn.tanh, name="fc2")
logits = tf.layers.dense(net, 2, name="logits")

loss = tf.reduce_mean(
    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
accuracy = tf.reduce_mean(
    tf.cast(tf.equal(tf.argmax(logits, 1, output_type=tf.int32), y), tf.float32))

global_step = tf.Variable(0, name="global_step", trainable=False)
optimizer = tf.train.MomentumOptimizer(LEARNING_RATE, MOMENTUM)

# compute -> transform -> apply
grads_and_vars = optimizer.compute_gradients(loss)
capped_grads_and_vars = [(tf.clip_by_value(grad, -CLIP_VALUE, CLIP_VALUE), var)
                         for grad, var in grads_and_vars if grad is not None]
train_op = optimizer.apply_gradients(capped_grads_and_vars,
                                     global_step=global_step)

# for monitoring: how large the gradients are before clipping
grad_norm = tf.global_norm([g for g, _ in grads_and_vars if g is not None])
flat_grads = tf.concat([tf.reshape(g, [-1]) for g, _ in grads_and_vars
                        if g is not None], axis=0)
max_abs_grad = tf.reduce_max(tf.abs(flat_grads))
frac_clipped = tf.reduce_mean(
    tf.cast(tf.greater(tf.abs(flat_grads), CLIP_VALUE), tf.float32))

init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    for _ in range(NUM_STEPS):
        idx = np.random.choice(len(train_y), BATCH_SIZE, replace=False)
        feed = {x: train_x[idx], y: train_y[idx]}
        _, step, loss_val, gnorm, gmax, fclip = sess.run(
            [train_op, global_step, loss, grad_norm, max_abs_grad, frac_clipped],
            feed_dict=feed)
        if step % 100 == 0 or step == 1:
            print("step %4d  loss %.4f  grad norm %.4f  max|grad| %.4f  "
                  "clipped %.1f%%" % (step, loss_val, gnorm, gmax, 100 * fclip))

    train_acc = sess.run(accuracy, feed_dict={x: train_x, y: train_y})
    test_acc = sess.run(accuracy, feed_dict={x: test_x, y: test_y})
    print("train accuracy: %.4f" % train_acc)
    print("test accuracy:  %.4f" % test_acc)
