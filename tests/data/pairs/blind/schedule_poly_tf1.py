"""MLP classifier trained with SGD and a polynomial-decay learning rate (TF 1.x style)."""
import numpy as np
import tensorflow as tf

np.random.seed(7)
tf.set_random_seed(7)

N, D, H, C = 480, 12, 24, 3
BATCH_SIZE = 32
EPOCHS = 2

X = np.random.randn(N, D).astype(np.float32)
y = np.argmax(X[:, :C] + 0.5 * X[:, C:2 * C], axis=1).astype(np.int64)

x_ph = tf.placeholder(tf.float32, [None, D])
y_ph = tf.placeholder(tf.int64, [None])

W1 = tf.get_variable("W1", [D, H])
b1 = tf.get_variable("b1", [H], initializer=tf.zeros_initializer())
W2 = tf.get_variable("W2", [H, C])
b2 = tf.get_variable("b2", [C], initializer=tf.zeros_initializer())
logits = tf.matmul(tf.nn.relu(tf.matmul(x_ph, W1) + b1), W2) + b2
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_ph, logits=logits))

global_step = tf.train.get_or_create_global_step()
learning_rate = tf.train.polynomial_decay(0.5, global_step, decay_steps=20,
                                          end_learning_rate=0.01, power=2.0)
optimizer = tf.train.GradientDescentOptimizer(learning_rate)
train_op = optimizer.minimize(loss, global_step=global_step)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(EPOCHS):
        for i in range(0, N, BATCH_SIZE):
            feed = {x_ph: X[i:i + BATCH_SIZE], y_ph: y[i:i + BATCH_SIZE]}
            step, lr = sess.run([global_step, learning_rate])
            _, loss_val = sess.run([train_op, loss], feed_dict=feed)
            if step % 3 == 0:
                print("step %3d  lr %.5f  loss %.5f" % (step, lr, loss_val))
