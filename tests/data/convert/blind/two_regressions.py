# -*- coding: utf-8 -*-
"""
Linear Regression and Logistic Regression in TensorFlow
--------------------------------------------------------
In this recipe we build two classic models with the low-level TensorFlow API:

  1. Linear regression (y = 3x + 2) trained with batch gradient descent.
  2. Logistic regression on two Gaussian blobs, trained with Adam.

Each model lives on its own graph, so we reset the default graph in between.
"""
import numpy as np
import tensorflow as tf
from tensorflow.python.framework import ops

# ------------------------------------------------------------
# Generate the data
# ------------------------------------------------------------
# Part 1 data: y = 3x + 2 plus a little bit of noise
n_samples = 100
x_vals = np.random.rand(n_samples, 1).astype(np.float32)
y_vals = (3.0 * x_vals + 2.0 + np.random.normal(0.0, 0.1, size=(n_samples, 1))).astype(np.float32)

# Part 2 data: two Gaussian blobs in 2-D
n_per_class = 200
blob_0 = np.random.multivariate_normal(mean=[-1.0, -1.0], cov=[[1.0, 0.0], [0.0, 1.0]], size=n_per_class)
blob_1 = np.random.multivariate_normal(mean=[2.0, 2.0], cov=[[1.0, 0.0], [0.0, 1.0]], size=n_per_class)
x_blobs = np.vstack([blob_0, blob_1]).astype(np.float32)
y_blobs = np.vstack([np.zeros((n_per_class, 1)), np.ones((n_per_class, 1))]).astype(np.float32)


# ============================================================
# Part 1: Linear Regression
# ============================================================
print('===== Part 1: Linear Regression =====')
ops.reset_default_graph()

# Placeholders for the inputs and targets
x = tf.placeholder(tf.float32, shape=[None, 1], name='x')
y = tf.placeholder(tf.float32, shape=[None, 1], name='y')

# Model variables
W = tf.Variable(tf.random_normal(shape=[1, 1]), name='W')
b = tf.Variable(tf.zeros(shape=[1]), name='b')

# Model output: y_pred = xW + b
y_pred = tf.add(tf.matmul(x, W), b)

# Mean squared error loss
loss = tf.reduce_mean(tf.square(y_pred - y))

# Optimizer
optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.5)
train_op = optimizer.minimize(loss)

# Initialize the variables
init = tf.global_variables_initializer()
sess = tf.Session()
sess.run(init)

# Training loop (full batch gradient descent)
for step in range(300):
    sess.run(train_op, feed_dict={x: x_vals, y: y_vals})
    if (step + 1) % 50 == 0:
        W_val, b_val, loss_val = sess.run([W, b, loss], feed_dict={x: x_vals, y: y_vals})
        print('Step #' + str(step + 1) + ' W = ' + str(W_val[0][0]) + ' b = ' + str(b_val[0]))
        print('Loss = ' + str(loss_val))

linear_final_loss = sess.run(loss, feed_dict={x: x_vals, y: y_vals})
[W_final] = sess.run(W)
[b_final] = sess.run(b)
print('Final: W = {:.4f}, b = {:.4f} (true values: W = 3, b = 2)'.format(W_final[0], b_final))
sess.close()


# ============================================================
# Part 2: Logistic Regression
# ============================================================
print('\n===== Part 2: Logistic Regression =====')
ops.reset_default_graph()
sess = tf.Session()

# Placeholders: 2 input features, 1 binary target
x = tf.placeholder(tf.float32, shape=[None, 2], name='x')
y = tf.placeholder(tf.float32, shape=[None, 1], name='y')

# Model variables
W = tf.Variable(tf.random_normal(shape=[2, 1], stddev=0.1), name='W')
b = tf.Variable(tf.zeros(shape=[1]), name='b')

# Logits (we don't apply the sigmoid here, the loss does it for us)
logits = tf.add(tf.matmul(x, W), b)

# Sigmoid cross entropy loss
loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))

# Accuracy: round the predicted probability and compare to the labels
prediction = tf.round(tf.sigmoid(logits))
correct = tf.cast(tf.equal(prediction, y), tf.float32)
accuracy = tf.reduce_mean(correct)

# Optimizer
optimizer = tf.train.AdamOptimizer(learning_rate=0.05)
train_op = optimizer.minimize(loss)

init = tf.global_variables_initializer()
sess.run(init)

for step in range(400):
    sess.run(train_op, feed_dict={x: x_blobs, y: y_blobs})
    if (step + 1) % 50 == 0:
        loss_val, acc_val = sess.run([loss, accuracy], feed_dict={x: x_blobs, y: y_blobs})
        print('Step #{}: loss = {:.4f}, accuracy = {:.4f}'.format(step + 1, loss_val, acc_val))

logistic_final_loss, logistic_final_acc = sess.run([loss, accuracy], feed_dict={x: x_blobs, y: y_blobs})
print('Final: W = {}, b = {}'.format(sess.run(W).ravel(), sess.run(b)))
sess.close()


# ============================================================
# Compare the two parts
# ============================================================
print('\nLinear regression final MSE: {:.4f} | Logistic regression final cross entropy: {:.4f} (accuracy {:.2%})'.format(
    linear_final_loss, logistic_final_loss, logistic_final_acc))
