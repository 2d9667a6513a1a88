"""Linear regression trained with hand-written gradient descent (no optimizer).

Gradients come from tf.gradients and the update is a tf.group of assign_sub ops.
"""
import numpy as np
import tensorflow as tf

rng = np.random.RandomState(0)
N, D = 200, 3
BATCH = 20
EPOCHS = 4
LR = 0.1

true_w = np.array([2.0, -3.0, 0.5])
X_data = rng.randn(N, D).astype(np.float32)
y_data = (X_data.dot(true_w) + 0.5 + 0.1 * rng.randn(N)).astype(np.float32)  # (N,)

x = tf.placeholder(tf.float32, [None, D])
y = tf.placeholder(tf.float32, [None])

W = tf.Variable(tf.random_normal([D, 1], stddev=0.1), name='W')
b = tf.Variable(tf.zeros([1]), name='b')

pred = tf.squeeze(tf.matmul(x, W), axis=1) + b
loss = tf.reduce_mean(tf.square(pred - y))

gW, gb = tf.gradients(loss, [W, b])
train = tf.group(W.assign_sub(LR * gW), b.assign_sub(LR * gb))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    step = 0
    for epoch in range(EPOCHS):
        perm = rng.permutation(N)
        for i in range(0, N, BATCH):
            idx = perm[i:i + BATCH]
            _, l = sess.run([train, loss], feed_dict={x: X_data[idx], y: y_data[idx]})
            if step % 10 == 0:
                print('step %d, loss %.5f' % (step, l))
            step += 1
    w_val, b_val = sess.run([W, b])
    print('W', w_val.ravel(), 'b', b_val)
    print('full-data loss %.5f' % sess.run(loss, feed_dict={x: X_data, y: y_data}))
