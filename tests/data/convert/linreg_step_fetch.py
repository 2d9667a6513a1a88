"""Linear regression in the style of Stanford CS20's TF1 examples: get_variable weights, a global step with
exponential_decay and Momentum, and a Session.run that fetches the train op (named `optimizer`, as many scripts
do), the loss, the global step and the decayed learning rate together; the weights fetched at the end. Indented with tabs, as some of those scripts were."""
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=300)
args = parser.parse_args()

rng = np.random.RandomState(2)
data_x = rng.rand(400, 1).astype(np.float32)
data_y = (3.0 * data_x + 2.0 + 0.05 * rng.randn(400, 1)).astype(np.float32)

X = tf.placeholder(tf.float32, [None, 1], name="X")
Y = tf.placeholder(tf.float32, [None, 1], name="Y")
w = tf.get_variable("weights", shape=[1, 1], initializer=tf.zeros_initializer())
b = tf.get_variable("bias", shape=[1], initializer=tf.constant_initializer(0.0))
Y_predicted = tf.matmul(X, w) + b
loss = tf.reduce_mean(tf.square(Y - Y_predicted))
global_step = tf.Variable(0, dtype=tf.int32, trainable=False, name="global_step")
learning_rate = tf.train.exponential_decay(0.05, global_step, decay_steps=20, decay_rate=0.9, staircase=True)
optimizer = tf.train.MomentumOptimizer(learning_rate, momentum=0.9).minimize(loss, global_step=global_step)

with tf.Session() as sess:
	sess.run(tf.global_variables_initializer())
	for i in range(args.steps):
		start = (i * 32) % len(data_x)
		_, l, step, lr = sess.run([optimizer, loss, global_step, learning_rate],
								  feed_dict={X: data_x[start:start + 32], Y: data_y[start:start + 32]})
		if i % 25 == 0:
			print("Step {0}: loss = {1:.6f} (lr {2:.5f})".format(step, l, lr))
	w_out, b_out = sess.run([w, b])
print("w = {0:.4f}, b = {1:.4f}".format(w_out.ravel()[0], b_out[0]))
