"""MLP regression with global-norm gradient clipping:
compute_gradients -> tf.clip_by_global_norm -> apply_gradients (TF 1.x style)."""
import numpy as np
import tensorflow as tf

np.random.seed(3)
tf.set_random_seed(3)

N, D, H = 640, 10, 32
BATCH_SIZE = 32
EPOCHS = 2
LEARNING_RATE = 0.05
CLIP_NORM = 1.0

X = np.random.randn(N, D).astype(np.float32)
Y = (10.0 * np.sin(X[:, :1]) + 5.0 * X[:, 1:2] + np.random.randn(N, 1)).astype(np.float32)

x_ph = tf.placeholder(tf.float32, [None, D], name="x")
y_ph = tf.placeholder(tf.float32, [None, 1], name="y")

W1 = tf.get_variable("W1", [D, H])
b1 = tf.get_variable("b1", [H], initializer=tf.zeros_initializer())
W2 = tf.get_variable("W2", [H, H])
b2 = tf.get_variable("b2", [H], initializer=tf.zeros_initializer())
W3 = tf.get_variable("W3", [H, 1])
b3 = tf.get_variable("b3", [1], initializer=tf.zeros_initializer())

h1 = tf.nn.relu(tf.matmul(x_ph, W1) + b1)
h2 = tf.nn.relu(tf.matmul(h1, W2) + b2)
pred = tf.matmul(h2, W3) + b3
loss = tf.reduce_mean(tf.squared_difference(pred, y_ph))

global_step = tf.Variable(0, trainable=False, name="global_step")
optimizer = tf.train.GradientDescentOptimizer(LEARNING_RATE)
grads_and_vars = optimizer.compute_gradients(loss)
grads, variables = zip(*grads_and_vars)
clipped_grads, global_norm = tf.clip_by_global_norm(grads, CLIP_NORM)
train_op = optimizer.apply_gradients(zip(clipped_grads, variables), global_step=global_step)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(EPOCHS):
        for i in range(0, N, BATCH_SIZE):
            feed = {x_ph: X[i:i + BATCH_SIZE], y_ph: Y[i:i + BATCH_SIZE]}
            _, loss_val, gn, step = sess.run([train_op, loss, global_norm, global_step], feed_dict=feed)
            if step % 5 == 0:
                print("step %3d  loss %.4f  grad_norm %.3f" % (step, loss_val, gn))
