# BUG: UPDATE_OPS control dependency forgotten, so moving mean/variance are never updated
"""MLP with hand-rolled batch norm (same math as tf.layers.batch_normalization, fused=False).
TF 1.x style."""
import numpy as np
import tensorflow as tf

np.random.seed(1)
tf.set_random_seed(1)

N, D, H, C = 512, 16, 32, 3
BATCH_SIZE = 32
EPOCHS = 3
DECAY, EPSILON = 0.9, 1e-3

X = (3.0 * np.random.randn(N, D) + 2.0).astype(np.float32)
y = (np.argmax(X[:, :C], axis=1)).astype(np.int64)


def batch_norm(x, is_training, name):
    with tf.variable_scope(name):
        size = x.get_shape()[-1]
        gamma = tf.get_variable("gamma", [size], initializer=tf.ones_initializer())
        beta = tf.get_variable("beta", [size], initializer=tf.zeros_initializer())
        moving_mean = tf.get_variable("moving_mean", [size], trainable=False,
                                      initializer=tf.zeros_initializer())
        moving_var = tf.get_variable("moving_variance", [size], trainable=False,
                                     initializer=tf.ones_initializer())
        batch_mean, batch_var = tf.nn.moments(x, axes=[0])
        update_mean = tf.assign(moving_mean, moving_mean * DECAY + batch_mean * (1 - DECAY))
        update_var = tf.assign(moving_var, moving_var * DECAY + batch_var * (1 - DECAY))
        tf.add_to_collection(tf.GraphKeys.UPDATE_OPS, update_mean)
        tf.add_to_collection(tf.GraphKeys.UPDATE_OPS, update_var)
        mean, var = tf.cond(is_training, lambda: (batch_mean, batch_var),
                            lambda: (moving_mean, moving_var))
        return tf.nn.batch_normalization(x, mean, var, beta, gamma, EPSILON)


x_ph = tf.placeholder(tf.float32, [None, D])
y_ph = tf.placeholder(tf.int64, [None])
is_training = tf.placeholder(tf.bool, [])

W1 = tf.get_variable("W1", [D, H])
h = tf.nn.relu(batch_norm(tf.matmul(x_ph, W1), is_training, "bn1"))
W2 = tf.get_variable("W2", [H, C])
b2 = tf.get_variable("b2", [C], initializer=tf.zeros_initializer())
logits = tf.matmul(h, W2) + b2

loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_ph, logits=logits))
accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y_ph), tf.float32))

train_op = tf.train.MomentumOptimizer(0.05, momentum=0.9).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    step = 0
    for epoch in range(EPOCHS):
        for i in range(0, N, BATCH_SIZE):
            feed = {x_ph: X[i:i + BATCH_SIZE], y_ph: y[i:i + BATCH_SIZE], is_training: True}
            _, loss_val = sess.run([train_op, loss], feed_dict=feed)
            if step % 10 == 0:
                print("step %3d  loss %.5f" % (step, loss_val))
            step += 1
    eval_loss, eval_acc = sess.run([loss, accuracy],
                                   feed_dict={x_ph: X, y_ph: y, is_training: False})
    print("inference-mode loss %.5f  acc %.3f" % (eval_loss, eval_acc))
    print("moving_mean[:4]", sess.run(tf.global_variables("bn1/moving_mean")[0])[:4])
