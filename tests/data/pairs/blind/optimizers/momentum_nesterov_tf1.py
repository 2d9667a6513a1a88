# 2-hidden-layer MLP classifier, Nesterov momentum + exponentially decayed LR (TF1 style)
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

# ---- synthetic data (fixed seed) ----
rng = np.random.RandomState(42)
N, D, H, C = 640, 20, 64, 4
BATCH, STEPS = 32, 60
X_data = rng.randn(N, D).astype(np.float32)
W_true = rng.randn(D, C).astype(np.float32)
y_data = np.argmax(X_data.dot(W_true) + 0.5 * rng.randn(N, C), axis=1)
Y_data = np.eye(C, dtype=np.float32)[y_data]  # one-hot

# initial weights come from numpy so runs are reproducible
W1_0 = (rng.randn(D, H) * np.sqrt(2.0 / D)).astype(np.float32)
W2_0 = (rng.randn(H, H) * np.sqrt(2.0 / H)).astype(np.float32)
W3_0 = (rng.randn(H, C) * np.sqrt(1.0 / H)).astype(np.float32)

# ---- graph ----
x = tf.placeholder(tf.float32, [None, D], name='x')
y = tf.placeholder(tf.float32, [None, C], name='y')

W1 = tf.Variable(W1_0, name='W1')
b1 = tf.Variable(tf.zeros([H]), name='b1')
W2 = tf.Variable(W2_0, name='W2')
b2 = tf.Variable(tf.zeros([H]), name='b2')
W3 = tf.Variable(W3_0, name='W3')
b3 = tf.Variable(tf.zeros([C]), name='b3')

h1 = tf.nn.relu(tf.matmul(x, W1) + b1)
h2 = tf.nn.relu(tf.matmul(h1, W2) + b2)
logits = tf.matmul(h2, W3) + b3
loss = tf.reduce_mean(
    tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))

global_step = tf.Variable(0, trainable=False, name='global_step')
learning_rate = tf.train.exponential_decay(0.1, global_step,
                                           decay_steps=10, decay_rate=0.9)
optimizer = tf.train.MomentumOptimizer(learning_rate, momentum=0.9,
                                       use_nesterov=True)
train_op = optimizer.minimize(loss, global_step=global_step)

# ---- training ----
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(STEPS):
        start = (step * BATCH) % N
        feed = {x: X_data[start:start + BATCH], y: Y_data[start:start + BATCH]}
        _, l = sess.run([train_op, loss], feed_dict=feed)
        if (step + 1) % 10 == 0:
            print('step %d  loss %.4f' % (step + 1, l))
