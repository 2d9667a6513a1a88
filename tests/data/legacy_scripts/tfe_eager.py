"""Linear regression with TensorFlow Eager (tf.contrib.eager) in the style of the public TF1 examples:
enable_eager_execution, tfe.Variable, tfe.implicit_value_and_gradients, tfe.Iterator, a TF1 optimizer."""
from __future__ import print_function

import numpy as np
import tensorflow as tf
import tensorflow.contrib.eager as tfe

tf.enable_eager_execution()

train_X = np.asarray([3.3, 4.4, 5.5, 6.71, 6.93, 4.168, 9.779, 6.182, 7.59, 2.167, 7.042, 10.791, 5.313, 7.997],
                     dtype=np.float32)
train_Y = np.asarray([1.7, 2.76, 2.09, 3.19, 1.694, 1.573, 3.366, 2.596, 2.53, 1.221, 2.827, 3.465, 1.65, 2.904],
                     dtype=np.float32)
n_samples = len(train_X)
learning_rate = 0.01
num_steps = 20

W = tfe.Variable(np.random.randn())
b = tfe.Variable(np.random.randn())


def linear_regression(inputs):
    return inputs * W + b


def mean_square_fn(model_fn, inputs, labels):
    return tf.reduce_sum(tf.pow(model_fn(inputs) - labels, 2)) / (2 * n_samples)


optimizer = tf.train.GradientDescentOptimizer(learning_rate=learning_rate)
grad = tfe.implicit_value_and_gradients(mean_square_fn)
first = mean_square_fn(linear_regression, train_X, train_Y)
for step in range(num_steps):
    cost, gradients = grad(linear_regression, train_X, train_Y)
    optimizer.apply_gradients(gradients)
dataset = tf.data.Dataset.from_tensor_slices((train_X, train_Y)).batch(7)
batches = sum(1 for _ in tfe.Iterator(dataset))
last = mean_square_fn(linear_regression, train_X, train_Y)
print("cost first=%.6f last=%.6f batches=%d" % (float(first), float(last), batches))
assert float(last) < float(first), "eager training did not lower the cost"
