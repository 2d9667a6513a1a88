"""Softmax classifier on one-hot labels, placeholders + GradientDescent (TF 1.x style)."""
import numpy as np
import tensorflow as tf

np.random.seed(13)
tf.set_random_seed(13)

N, D, H, C = 600, 10, 32, 4
BATCH_SIZE = 50
EPOCHS = 2
LEARNING_RATE = 0.2

X = np.random.randn(N, D).astype(np.float32)
y = np.argmax(X[:, :C] - X[:, C:2 * C], axis=1)
Y_onehot = np.eye(C, dtype=np.float32)[y]

x_ph = tf.placeholder(tf.float32, [None, D])
y_ph = tf.placeholder(tf.float32, [None, C])  # one-hot

W1 = tf.Variable(tf.truncated_normal([D, H], stddev=0.1), name="W1")
b1 = tf.Variable(tf.zeros([H]), name="b1")
W2 = tf.Variable(tf.truncated_normal([H, C], stddev=0.1), name="W2")
b2 = tf.Variable(tf.zeros([C]), name="b2")

logits = tf.matmul(tf.nn.relu(tf.matmul(x_ph, W1) + b1), W2) + b2
probs = tf.nn.softmax(logits)
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_ph, logits=logits))
accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(probs, 1), tf.argmax(y_ph, 1)), tf.float32))
train_op = tf.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    step = 0
    for epoch in range(EPOCHS):
        for i in range(0, N, BATCH_SIZE):
            feed = {x_ph: X[i:i + BATCH_SIZE], y_ph: Y_onehot[i:i + BATCH_SIZE]}
            _, loss_val, acc = sess.run([train_op, loss, accuracy], feed_dict=feed)
            if step % 4 == 0:
                print("step %3d  loss %.5f  acc %.3f" % (step, loss_val, acc))
            step += 1
    print("train accuracy %.3f" % sess.run(accuracy, feed_dict={x_ph: X, y_ph: Y_onehot}))
