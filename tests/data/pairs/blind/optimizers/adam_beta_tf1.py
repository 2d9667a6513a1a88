# Small CNN classifier on 12x12 synthetic images, Adam(2e-4, beta1=0.5) (TF1 style)
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

# ---- synthetic data: 3 classes = horizontal bar / vertical bar / diagonal ----
rng = np.random.RandomState(123)
N, S, C, F = 640, 12, 3, 8
BATCH, STEPS = 32, 100
labels_np = rng.randint(0, C, size=N)
images = 0.5 * rng.randn(N, S, S, 1).astype(np.float32)
for n in range(N):
    k = rng.randint(2, S - 2)
    if labels_np[n] == 0:
        images[n, k, :, 0] += 1.0
    elif labels_np[n] == 1:
        images[n, :, k, 0] += 1.0
    else:
        images[n, np.arange(S), np.arange(S), 0] += 1.0
conv_w0 = (rng.randn(3, 3, 1, F) * np.sqrt(2.0 / 9)).astype(np.float32)
fc_w0 = (rng.randn(6 * 6 * F, C) * np.sqrt(1.0 / (6 * 6 * F))).astype(np.float32)

# ---- graph ----
x = tf.placeholder(tf.float32, [None, S, S, 1])
y = tf.placeholder(tf.int32, [None])

with tf.variable_scope('conv1'):
    w = tf.get_variable('w', initializer=tf.constant_initializer(conv_w0),
                        shape=[3, 3, 1, F])
    b = tf.get_variable('b', [F], initializer=tf.zeros_initializer())
    h = tf.nn.relu(tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding='SAME') + b)
    h = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                       padding='VALID')
with tf.variable_scope('fc'):
    h_flat = tf.reshape(h, [-1, 6 * 6 * F])
    w = tf.get_variable('w', initializer=tf.constant_initializer(fc_w0),
                        shape=[6 * 6 * F, C])
    b = tf.get_variable('b', [C], initializer=tf.zeros_initializer())
    logits = tf.matmul(h_flat, w) + b

loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
    labels=y, logits=logits))
train_op = tf.train.AdamOptimizer(learning_rate=2e-4, beta1=0.5).minimize(loss)

# ---- train ----
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(STEPS):
        i = (step * BATCH) % N
        _, l = sess.run([train_op, loss], feed_dict={
            x: images[i:i + BATCH], y: labels_np[i:i + BATCH]})
        if (step + 1) % 10 == 0:
            print('step %3d  loss %.4f' % (step + 1, l))
