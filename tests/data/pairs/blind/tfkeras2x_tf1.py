"""Two-layer MLP classifier with placeholders + feed_dict + Adam (TF 1.x style)."""
import numpy as np
import tensorflow as tf

np.random.seed(2019)
tf.set_random_seed(2019)

N, D, H, C = 768, 16, 32, 3
BATCH_SIZE = 32
EPOCHS = 2
LEARNING_RATE = 0.001

X = np.random.randn(N, D).astype(np.float32)
centers = 2.0 * np.random.randn(C, D).astype(np.float32)
y = np.random.randint(0, C, size=N)
X += centers[y]
y = y.astype(np.int64)

x_ph = tf.placeholder(tf.float32, shape=[None, D], name="inputs")
y_ph = tf.placeholder(tf.int64, shape=[None], name="labels")

with tf.variable_scope("dense"):
    W1 = tf.get_variable("kernel", [D, H])
    b1 = tf.get_variable("bias", [H], initializer=tf.zeros_initializer())
with tf.variable_scope("dense_1"):
    W2 = tf.get_variable("kernel", [H, C])
    b2 = tf.get_variable("bias", [C], initializer=tf.zeros_initializer())

hidden = tf.nn.relu(tf.matmul(x_ph, W1) + b1)
logits = tf.matmul(hidden, W2) + b2
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_ph, logits=logits))
correct = tf.equal(tf.argmax(logits, axis=1), y_ph)
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

optimizer = tf.train.AdamOptimizer(learning_rate=LEARNING_RATE)
train_op = optimizer.minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    step = 0
    for epoch in range(EPOCHS):
        for start in range(0, N, BATCH_SIZE):
            batch_x, batch_y = X[start:start + BATCH_SIZE], y[start:start + BATCH_SIZE]
            _, l, acc = sess.run([train_op, loss, accuracy],
                                 feed_dict={x_ph: batch_x, y_ph: batch_y})
            if step % 6 == 0:
                print("epoch %d step %3d: loss = %.4f, acc = %.3f" % (epoch, step, l, acc))
            step += 1
