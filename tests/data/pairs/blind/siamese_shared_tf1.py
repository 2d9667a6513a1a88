"""Siamese network: two inputs go through the same (weight-shared) tower and a
contrastive loss is put on the Euclidean distance between the embeddings.
"""
import numpy as np
import tensorflow as tf

rng = np.random.RandomState(0)
N, D, N_CENTERS = 512, 8, 4
HIDDEN, EMB = 16, 4
BATCH = 32
EPOCHS = 3
LR = 0.01
MARGIN = 1.0

# pairs of points drawn around 4 cluster centres; label 1 = same cluster
centers = 2.0 * rng.randn(N_CENTERS, D)
c1 = rng.randint(0, N_CENTERS, size=N)
same = rng.rand(N) < 0.5
c2 = np.where(same, c1, (c1 + rng.randint(1, N_CENTERS, size=N)) % N_CENTERS)
X1 = (centers[c1] + rng.randn(N, D)).astype(np.float32)
X2 = (centers[c2] + rng.randn(N, D)).astype(np.float32)
Y = same.astype(np.float32)

def tower(x):
    with tf.variable_scope('tower', reuse=tf.AUTO_REUSE):
        W1 = tf.get_variable('W1', [D, HIDDEN])
        b1 = tf.get_variable('b1', [HIDDEN], initializer=tf.zeros_initializer())
        W2 = tf.get_variable('W2', [HIDDEN, EMB])
        b2 = tf.get_variable('b2', [EMB], initializer=tf.zeros_initializer())
        h = tf.nn.relu(tf.matmul(x, W1) + b1)
        return tf.matmul(h, W2) + b2

x1 = tf.placeholder(tf.float32, [None, D], name='left')
x2 = tf.placeholder(tf.float32, [None, D], name='right')
y = tf.placeholder(tf.float32, [None], name='similar')

e1 = tower(x1)
e2 = tower(x2)   # same variables as e1 (AUTO_REUSE)

d = tf.sqrt(tf.reduce_sum(tf.square(e1 - e2), axis=1) + 1e-6)
loss = tf.reduce_mean(y * tf.square(d) + (1.0 - y) * tf.square(tf.maximum(MARGIN - d, 0.0))) / 2.0
train_op = tf.train.AdamOptimizer(LR).minimize(loss)

pred_same = tf.cast(d < MARGIN / 2.0, tf.float32)
acc = tf.reduce_mean(tf.cast(tf.equal(pred_same, y), tf.float32))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print('trainable variables:', [v.name for v in tf.trainable_variables()])
    step = 0
    for epoch in range(EPOCHS):
        perm = rng.permutation(N)
        for i in range(0, N, BATCH):
            idx = perm[i:i + BATCH]
            _, l = sess.run([train_op, loss], feed_dict={x1: X1[idx], x2: X2[idx], y: Y[idx]})
            if step % 10 == 0:
                print('step %d, loss %.4f' % (step, l))
            step += 1
    l, a = sess.run([loss, acc], feed_dict={x1: X1, x2: X2, y: Y})
    print('full-data loss %.4f, pair accuracy %.4f' % (l, a))
