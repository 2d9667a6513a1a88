"""MLP classifier on synthetic data with an exponential moving average of the
weights, in the style of the TensorFlow CIFAR-10 tutorial (cifar10.py).

Evaluates the test accuracy with the raw weights and with the averaged weights.
"""
from __future__ import print_function

import numpy as np
import tensorflow as tf

np.random.seed(42)
tf.set_random_seed(42)

# ---------------------------------------------------------------------------
# Synthetic data: 4 gaussian blobs in 20 dimensions
# ---------------------------------------------------------------------------
NUM_CLASSES = 4
NUM_FEATURES = 20
N_TRAIN, N_TEST = 2000, 500

centers = np.random.randn(NUM_CLASSES, NUM_FEATURES) * 1.5


def make_data(n):
    y = np.random.randint(0, NUM_CLASSES, size=n)
    x = centers[y] + np.random.randn(n, NUM_FEATURES) * 2.0
    return x.astype(np.float32), y.astype(np.int64)


x_train, y_train = make_data(N_TRAIN)
x_test, y_test = make_data(N_TEST)

# ---------------------------------------------------------------------------
# Hyperparameters
# ---------------------------------------------------------------------------
BATCH_SIZE = 64
NUM_STEPS = 400
LEARNING_RATE = 0.05
MOMENTUM = 0.9
MOVING_AVERAGE_DECAY = 0.99
HIDDEN1, HIDDEN2 = 64, 32

# ---------------------------------------------------------------------------
# Graph
# ---------------------------------------------------------------------------
x = tf.placeholder(tf.float32, [None, NUM_FEATURES], name='x')
y = tf.placeholder(tf.int64, [None], name='y')
global_step = tf.Variable(0, trainable=False, name='global_step')


def inference(inputs, params):
    h1 = tf.nn.relu(tf.matmul(inputs, params['w1']) + params['b1'])
    h2 = tf.nn.relu(tf.matmul(h1, params['w2']) + params['b2'])
    return tf.matmul(h2, params['w3']) + params['b3']


init = tf.glorot_uniform_initializer()
params = {
    'w1': tf.get_variable('w1', [NUM_FEATURES, HIDDEN1], initializer=init),
    'b1': tf.get_variable('b1', [HIDDEN1], initializer=tf.zeros_initializer()),
    'w2': tf.get_variable('w2', [HIDDEN1, HIDDEN2], initializer=init),
    'b2': tf.get_variable('b2', [HIDDEN2], initializer=tf.zeros_initializer()),
    'w3': tf.get_variable('w3', [HIDDEN2, NUM_CLASSES], initializer=init),
    'b3': tf.get_variable('b3', [NUM_CLASSES], initializer=tf.zeros_initializer()),
}

logits = inference(x, params)
loss = tf.reduce_mean(
    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))

opt = tf.train.MomentumOptimizer(LEARNING_RATE, MOMENTUM)
apply_gradient_op = opt.minimize(loss, global_step=global_step)

# Track the moving averages of all trainable variables.
ema = tf.train.ExponentialMovingAverage(MOVING_AVERAGE_DECAY, global_step)
with tf.control_dependencies([apply_gradient_op]):
    variables_averages_op = ema.apply(tf.trainable_variables())
train_op = tf.group(apply_gradient_op, variables_averages_op, name='train')

# Eval graph that uses the shadow (averaged) variables.
avg_params = dict((k, ema.average(v)) for k, v in params.items())
avg_logits = inference(x, avg_params)

correct = tf.equal(tf.argmax(logits, 1), y)
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
avg_correct = tf.equal(tf.argmax(avg_logits, 1), y)
avg_accuracy = tf.reduce_mean(tf.cast(avg_correct, tf.float32))

# ---------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, NUM_STEPS + 1):
        idx = np.random.randint(0, N_TRAIN, BATCH_SIZE)
        _, loss_val = sess.run([train_op, loss],
                               feed_dict={x: x_train[idx], y: y_train[idx]})
        if step % 50 == 0:
            print('step %d, loss = %.4f' % (step, loss_val))

    raw_acc = sess.run(accuracy, feed_dict={x: x_test, y: y_test})
    ema_acc = sess.run(avg_accuracy, feed_dict={x: x_test, y: y_test})
    print('Test accuracy (raw weights):      %.4f' % raw_acc)
    print('Test accuracy (averaged weights): %.4f' % ema_acc)
