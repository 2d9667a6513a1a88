"""Gradient accumulation: gradients of 4 micro-batches are summed into
accumulator variables and then applied once (averaged) with plain SGD.
"""
import numpy as np
import tensorflow as tf

rng = np.random.RandomState(0)
N, D, HIDDEN = 512, 6, 32
MICRO_BATCH = 16
ACCUM_STEPS = 4
EPOCHS = 4
LR = 0.1

X_data = rng.randn(N, D).astype(np.float32)
w_true = 0.4 * rng.randn(D)
y_data = (np.sin(X_data.dot(w_true)) + 0.1 * rng.randn(N)).astype(np.float32)[:, None]

x = tf.placeholder(tf.float32, [None, D])
y = tf.placeholder(tf.float32, [None, 1])

with tf.variable_scope('net'):
    W1 = tf.get_variable('W1', [D, HIDDEN])
    b1 = tf.get_variable('b1', [HIDDEN], initializer=tf.zeros_initializer())
    W2 = tf.get_variable('W2', [HIDDEN, 1])
    b2 = tf.get_variable('b2', [1], initializer=tf.zeros_initializer())
h = tf.nn.tanh(tf.matmul(x, W1) + b1)
pred = tf.matmul(h, W2) + b2
loss = tf.reduce_mean(tf.square(pred - y))

optimizer = tf.train.GradientDescentOptimizer(LR)
tvars = tf.trainable_variables()
accum_vars = [tf.Variable(tf.zeros_like(v.initialized_value()), trainable=False) for v in tvars]
zero_op = tf.group(*[a.assign(tf.zeros_like(a)) for a in accum_vars])

grads_and_vars = optimizer.compute_gradients(loss, tvars)
accumulate_op = tf.group(*[a.assign_add(g) for a, (g, v) in zip(accum_vars, grads_and_vars)])
apply_op = optimizer.apply_gradients(
    [(a / ACCUM_STEPS, v) for a, (g, v) in zip(accum_vars, grads_and_vars)])

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    update = 0
    for epoch in range(EPOCHS):
        perm = rng.permutation(N)
        n_micro = N // MICRO_BATCH
        sess.run(zero_op)
        losses = []
        for m in range(n_micro):
            idx = perm[m * MICRO_BATCH:(m + 1) * MICRO_BATCH]
            _, l = sess.run([accumulate_op, loss], feed_dict={x: X_data[idx], y: y_data[idx]})
            losses.append(l)
            if (m + 1) % ACCUM_STEPS == 0:
                sess.run(apply_op)
                sess.run(zero_op)
                if update % 10 == 0:
                    print('update %d, loss %.5f' % (update, np.mean(losses)))
                losses = []
                update += 1
    print('full-data loss %.5f' % sess.run(loss, feed_dict={x: X_data, y: y_data}))
