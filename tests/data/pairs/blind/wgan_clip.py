# Wasserstein GAN with weight clipping on a 2-D ring of Gaussians.
# In the style of the wiseodd/generative-models WGAN example.
import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

np.random.seed(0)
tf.compat.v1.set_random_seed(0)

mb_size = 64
X_dim = 2
z_dim = 4
h_dim = 32
n_critic = 5
num_iters = 250


def sample_ring(n, n_modes=8, radius=2.0, std=0.05):
    k = np.random.randint(n_modes, size=n)
    angles = 2 * np.pi * k / n_modes
    centers = np.stack([radius * np.cos(angles), radius * np.sin(angles)], axis=1)
    return (centers + std * np.random.randn(n, 2)).astype(np.float32)


def sample_z(m, n):
    return np.random.uniform(-1., 1., size=[m, n]).astype(np.float32)


def xavier_init(size):
    in_dim = size[0]
    xavier_stddev = 1. / np.sqrt(in_dim / 2.)
    return tf.random.normal(shape=size, stddev=xavier_stddev)


X = tf.compat.v1.placeholder(tf.float32, shape=[None, X_dim])

D_W1 = tf.Variable(xavier_init([X_dim, h_dim]))
D_b1 = tf.Variable(tf.zeros(shape=[h_dim]))
D_W2 = tf.Variable(xavier_init([h_dim, 1]))
D_b2 = tf.Variable(tf.zeros(shape=[1]))

theta_D = [D_W1, D_W2, D_b1, D_b2]


z = tf.compat.v1.placeholder(tf.float32, shape=[None, z_dim])

G_W1 = tf.Variable(xavier_init([z_dim, h_dim]))
G_b1 = tf.Variable(tf.zeros(shape=[h_dim]))
G_W2 = tf.Variable(xavier_init([h_dim, X_dim]))
G_b2 = tf.Variable(tf.zeros(shape=[X_dim]))

theta_G = [G_W1, G_W2, G_b1, G_b2]


def generator(z):
    G_h1 = tf.nn.relu(tf.matmul(z, G_W1) + G_b1)
    G_out = tf.matmul(G_h1, G_W2) + G_b2
    return G_out


def discriminator(x):
    D_h1 = tf.nn.relu(tf.matmul(x, D_W1) + D_b1)
    out = tf.matmul(D_h1, D_W2) + D_b2
    return out


G_sample = generator(z)
D_real = discriminator(X)
D_fake = discriminator(G_sample)

D_loss = tf.reduce_mean(D_real) - tf.reduce_mean(D_fake)
G_loss = -tf.reduce_mean(D_fake)

D_solver = (tf.compat.v1.train.RMSPropOptimizer(learning_rate=5e-5)
            .minimize(-D_loss, var_list=theta_D))
G_solver = (tf.compat.v1.train.RMSPropOptimizer(learning_rate=5e-5)
            .minimize(G_loss, var_list=theta_G))

clip_D = [p.assign(tf.clip_by_value(p, -0.01, 0.01)) for p in theta_D]

sess = tf.compat.v1.Session()
sess.run(tf.compat.v1.global_variables_initializer())

for it in range(num_iters):
    for _ in range(n_critic):
        X_mb = sample_ring(mb_size)

        _, D_loss_curr = sess.run(
            [D_solver, D_loss],
            feed_dict={X: X_mb, z: sample_z(mb_size, z_dim)}
        )
        sess.run(clip_D)

    _, G_loss_curr = sess.run(
        [G_solver, G_loss],
        feed_dict={z: sample_z(mb_size, z_dim)}
    )

    if it % 25 == 0 or it == num_iters - 1:
        print('Iter: {}; D loss: {:.4}; G_loss: {:.4}'
              .format(it, D_loss_curr, G_loss_curr))

samples = sess.run(G_sample, feed_dict={z: sample_z(500, z_dim)})
print('Sample mean radius: {:.4f}'.format(np.mean(np.sqrt(np.sum(samples ** 2, axis=1)))))
