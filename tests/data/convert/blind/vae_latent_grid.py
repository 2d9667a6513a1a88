"""A tiny variational autoencoder (VAE) in TensorFlow.

The data lives on a 2-D manifold embedded in 20 dimensions, so a
2-D latent space should be enough to capture it. After training we
decode a regular grid of latent points and encode some of the data.
"""
import numpy as np
import tensorflow as tf
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt

np.random.seed(42)

# ---------------------------------------------------------------
# Synthetic data: two hidden factors -> 20 observed features
# ---------------------------------------------------------------
n_samples = 2000
input_dim = 20
latent_dim = 2

factors = np.random.uniform(-1.0, 1.0, size=(n_samples, latent_dim))
proj = np.random.randn(latent_dim, input_dim)
data = np.tanh(factors.dot(proj)) + 0.05 * np.random.randn(n_samples, input_dim)
data = data.astype(np.float32)


def dense(x, n_in, n_out, name, activation=None):
    with tf.variable_scope(name):
        W = tf.Variable(tf.truncated_normal([n_in, n_out], stddev=0.1), name='W')
        b = tf.Variable(tf.zeros([n_out]), name='b')
        out = tf.matmul(x, W) + b
        if activation is not None:
            out = activation(out)
        return out


def build_vae(input_dim, latent_dim, hidden_dim=64, learning_rate=1e-3):
    x = tf.placeholder(tf.float32, [None, input_dim], name='x')

    # encoder
    h_enc = dense(x, input_dim, hidden_dim, 'enc_hidden', tf.nn.relu)
    z_mean = dense(h_enc, hidden_dim, latent_dim, 'z_mean')
    z_log_var = dense(h_enc, hidden_dim, latent_dim, 'z_log_var')

    # reparameterization trick
    eps = tf.random_normal(tf.shape(z_mean))
    z = z_mean + tf.exp(0.5 * z_log_var) * eps

    # decoder
    h_dec = dense(z, latent_dim, hidden_dim, 'dec_hidden', tf.nn.relu)
    recon = dense(h_dec, hidden_dim, input_dim, 'recon')

    recon_loss = tf.reduce_mean(tf.reduce_sum(tf.square(x - recon), axis=1))
    kl_loss = tf.reduce_mean(
        -0.5 * tf.reduce_sum(1 + z_log_var - tf.square(z_mean) - tf.exp(z_log_var), axis=1))
    loss = recon_loss + 0.1 * kl_loss

    train_op = tf.train.AdamOptimizer(learning_rate).minimize(loss)

    return {
        'x': x,
        'z': z,
        'z_mean': z_mean,
        'z_log_var': z_log_var,
        'recon': recon,
        'recon_loss': recon_loss,
        'kl_loss': kl_loss,
        'loss': loss,
        'train_op': train_op,
    }


model = build_vae(input_dim, latent_dim)

# grid of points in latent space
n_grid = 10
grid_1d = np.linspace(-2.0, 2.0, n_grid)
grid = np.array([[a, b] for a in grid_1d for b in grid_1d], dtype=np.float32)

batch_size = 100
n_steps = 800

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())

    for step in range(1, n_steps + 1):
        idx = np.random.randint(0, n_samples, batch_size)
        batch = data[idx]
        _, l, rl, kl = sess.run(
            [model['train_op'], model['loss'], model['recon_loss'], model['kl_loss']],
            feed_dict={model['x']: batch})

        if step % 200 == 0:
            # decode the latent grid by feeding z directly
            decoded = sess.run(model['recon'], feed_dict={model['z']: grid})
            print('step %4d  loss %.4f  recon %.4f  kl %.4f  grid mean %.4f  grid std %.4f'
                  % (step, l, rl, kl, decoded.mean(), decoded.std()))

    # final decode of the grid
    decoded = sess.run(model['recon'], feed_dict={model['z']: grid})
    print('decoded grid shape:', decoded.shape)
    print('decoded grid: min %.4f  max %.4f  mean %.4f'
          % (decoded.min(), decoded.max(), decoded.mean()))

    # encode some data points
    sample = data[:500]
    codes = sess.run(model['z_mean'], feed_dict={model['x']: sample})
    print('encoded z_mean: mean', np.round(codes.mean(axis=0), 4),
          'std', np.round(codes.std(axis=0), 4))

    # correlation between true factors and learned codes
    corr = np.corrcoef(np.hstack([factors[:500], codes]).T)[:2, 2:]
    print('|corr(true factors, z_mean)|:\n', np.round(np.abs(corr), 3))

plt.figure(figsize=(5, 5))
plt.scatter(codes[:, 0], codes[:, 1], c=factors[:500, 0], s=8, cmap='viridis')
plt.xlabel('z[0]')
plt.ylabel('z[1]')
plt.title('VAE latent space (colour = true factor 0)')
plt.savefig('vae_latent.png')
print('saved vae_latent.png')
