"""A TF1 regression trained with tf.gradients and apply_gradients (clipped), as the PTB LSTM example does."""
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 3])
y = tf.placeholder(tf.float32, [None, 1])
w = tf.Variable(tf.zeros([3, 1]))
b = tf.Variable(tf.zeros([1]))
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
tvars = tf.trainable_variables()
grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tvars), 5.0)
train = tf.train.GradientDescentOptimizer(0.1).apply_gradients(zip(grads, tvars))
data = np.random.RandomState(0).rand(8, 3).astype(np.float32)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(10):
        sess.run(train, {x: data, y: data[:, :1]})
