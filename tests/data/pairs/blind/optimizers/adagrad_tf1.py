# Softmax regression trained with Adagrad (TF1 style)
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

# ---- synthetic data ----
np.random.seed(0)
N, D, C = 1280, 30, 5
BATCH, STEPS = 64, 80
X_train = np.random.randn(N, D).astype(np.float32)
true_W = np.random.randn(D, C).astype(np.float32)
true_b = np.random.randn(C).astype(np.float32)
y_train = np.argmax(X_train.dot(true_W) + true_b
                    + np.random.randn(N, C), axis=1).astype(np.int64)
W_init = (0.01 * np.random.randn(D, C)).astype(np.float32)

# ---- graph ----
x = tf.placeholder(tf.float32, shape=[None, D])
labels = tf.placeholder(tf.int64, shape=[None])

W = tf.get_variable('W', initializer=W_init)
b = tf.get_variable('b', shape=[C], initializer=tf.zeros_initializer())
logits = tf.matmul(x, W) + b

loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
    labels=labels, logits=logits))
correct = tf.equal(tf.argmax(logits, 1), labels)
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

# initial_accumulator_value defaults to 0.1
train_op = tf.train.AdagradOptimizer(0.1).minimize(loss)

# ---- train ----
sess = tf.Session()
sess.run(tf.global_variables_initializer())
for step in range(STEPS):
    idx = (step * BATCH) % N
    batch_x = X_train[idx:idx + BATCH]
    batch_y = y_train[idx:idx + BATCH]
    _, loss_val, acc = sess.run([train_op, loss, accuracy],
                                feed_dict={x: batch_x, labels: batch_y})
    if (step + 1) % 10 == 0:
        print('step %d  loss %.4f  batch acc %.3f' % (step + 1, loss_val, acc))
sess.close()
