"""A small VAE in the TF1 style of the 2017 tutorials: its forward pass draws its noise (`tf.random_normal`) in the
graph, so the loss of one batch from the same weights is another number each time it is read."""
import numpy as np
import tensorflow as tf

np.random.seed(0)
data = np.random.rand(256, 20).astype(np.float32)

x = tf.placeholder(tf.float32, [None, 20])
W_enc = tf.Variable(tf.random_normal([20, 8], stddev=0.1))
b_enc = tf.Variable(tf.zeros([8]))
W_mu = tf.Variable(tf.random_normal([8, 2], stddev=0.1))
b_mu = tf.Variable(tf.zeros([2]))
W_lv = tf.Variable(tf.random_normal([8, 2], stddev=0.1))
b_lv = tf.Variable(tf.zeros([2]))
W_dec = tf.Variable(tf.random_normal([2, 20], stddev=0.1))
b_dec = tf.Variable(tf.zeros([20]))

h = tf.nn.relu(tf.matmul(x, W_enc) + b_enc)
mu = tf.matmul(h, W_mu) + b_mu
logvar = tf.matmul(h, W_lv) + b_lv
eps = tf.random_normal(tf.shape(mu))
z = mu + tf.exp(logvar / 2) * eps
recon = tf.sigmoid(tf.matmul(z, W_dec) + b_dec)
rec_loss = -tf.reduce_sum(x * tf.log(recon + 1e-10) + (1 - x) * tf.log(1 - recon + 1e-10), 1)
kl = -0.5 * tf.reduce_sum(1 + logvar - tf.square(mu) - tf.exp(logvar), 1)
loss = tf.reduce_mean(rec_loss + kl)
train = tf.train.AdamOptimizer(0.001).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(100):
        start = (step * 32) % 256
        _, value = sess.run([train, loss], feed_dict={x: data[start:start + 32]})
        if step % 20 == 0:
            print(step, value)
