"""MLP classifier with L2 weight decay via tf.nn.l2_loss (TF 1.x style)."""
import numpy as np
import tensorflow as tf

np.random.seed(21)
tf.set_random_seed(21)

N, D, H, C = 512, 20, 64, 5
BATCH_SIZE = 64
EPOCHS = 4
LEARNING_RATE = 0.1
WEIGHT_DECAY = 5e-3

X = np.random.randn(N, D).astype(np.float32)
y = np.random.randint(0, C, size=N).astype(np.int64)  # random labels: decay matters
X[np.arange(N), y] += 1.5

x_ph = tf.placeholder(tf.float32, [None, D])
y_ph = tf.placeholder(tf.int64, [None])

W1 = tf.get_variable("W1", [D, H])
b1 = tf.get_variable("b1", [H], initializer=tf.zeros_initializer())
W2 = tf.get_variable("W2", [H, C])
b2 = tf.get_variable("b2", [C], initializer=tf.zeros_initializer())
logits = tf.matmul(tf.nn.relu(tf.matmul(x_ph, W1) + b1), W2) + b2

xent = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_ph, logits=logits))
l2_term = WEIGHT_DECAY * (tf.nn.l2_loss(W1) + tf.nn.l2_loss(W2))  # weights only, not biases
loss = xent + l2_term
train_op = tf.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    step = 0
    for epoch in range(EPOCHS):
        for i in range(0, N, BATCH_SIZE):
            feed = {x_ph: X[i:i + BATCH_SIZE], y_ph: y[i:i + BATCH_SIZE]}
            _, loss_val, xent_val, l2_val = sess.run([train_op, loss, xent, l2_term], feed_dict=feed)
            if step % 4 == 0:
                print("step %3d  loss %.5f  xent %.5f  l2 %.5f" % (step, loss_val, xent_val, l2_val))
            step += 1
