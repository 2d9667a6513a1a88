"""The TF2 rewrite of tf1_vae_noise.py: the same VAE as tf.Variables and a tf.function step; its noise is drawn
with tf.random.normal, by another generator than TF1's."""
import numpy as np
import tensorflow as tf

np.random.seed(0)
data = np.random.rand(256, 20).astype(np.float32)

W_enc = tf.Variable(tf.random.normal([20, 8], stddev=0.1))
b_enc = tf.Variable(tf.zeros([8]))
W_mu = tf.Variable(tf.random.normal([8, 2], stddev=0.1))
b_mu = tf.Variable(tf.zeros([2]))
W_lv = tf.Variable(tf.random.normal([8, 2], stddev=0.1))
b_lv = tf.Variable(tf.zeros([2]))
W_dec = tf.Variable(tf.random.normal([2, 20], stddev=0.1))
b_dec = tf.Variable(tf.zeros([20]))
params = [W_enc, b_enc, W_mu, b_mu, W_lv, b_lv, W_dec, b_dec]
optimizer = tf.keras.optimizers.Adam(0.001, epsilon=1e-8)


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        h = tf.nn.relu(tf.matmul(x, W_enc) + b_enc)
        mu = tf.matmul(h, W_mu) + b_mu
        logvar = tf.matmul(h, W_lv) + b_lv
        z = mu + tf.exp(logvar / 2) * tf.random.normal(tf.shape(mu))
        recon = tf.sigmoid(tf.matmul(z, W_dec) + b_dec)
        rec_loss = -tf.reduce_sum(x * tf.math.log(recon + 1e-10) + (1 - x) * tf.math.log(1 - recon + 1e-10), 1)
        kl = -0.5 * tf.reduce_sum(1 + logvar - tf.square(mu) - tf.exp(logvar), 1)
        loss = tf.reduce_mean(rec_loss + kl)
    optimizer.apply_gradients(zip(tape.gradient(loss, params), params))
    return loss


for step in range(100):
    start = (step * 32) % 256
    value = train_step(data[start:start + 32])
    if step % 20 == 0:
        print(step, float(value))
