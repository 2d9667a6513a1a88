# Wasserstein GAN with weight clipping on a 2-D ring of Gaussians.
# In the style of the wiseodd/generative-models WGAN example.
#
# TF2 migration of wgan_clip.py (TF 2.x eager + @tf.function, Keras 3
# optimizers). Variables are plain tf.Variable globals, as in the TF1 script.
#
# Notes on fidelity to the TF1 script:
#  * Same NumPy seed and the same order of NumPy draws: per critic step the
#    ring batch (randint, randn) then the noise (uniform); then the G noise;
#    final 500 noise samples.
#  * Same initializers (plain normal, stddev 1/sqrt(fan_in/2); zero biases).
#  * Optimizer: tf.compat.v1.train.RMSPropOptimizer(5e-5) has decay=0.9,
#    momentum=0.0, epsilon=1e-10, centered=False, and initialises its "rms"
#    accumulator to ONES. Keras 3 RMSprop uses the same update
#    (v = rho*v + (1-rho)*g^2; var -= lr*g/sqrt(v + eps)) but initialises the
#    accumulator ("velocity") to ZEROS and defaults to epsilon=1e-7. So rho and
#    epsilon are set explicitly, and after building the optimizers the velocity
#    slots are overwritten with ones. (That uses the private attribute
#    `_velocities` of keras.optimizers.RMSprop; checked below with an assert.)
#    With zeros the first steps would be ~3x lr*sign(g) instead of ~lr*g,
#    which changes training noticeably, so it matters here.
#  * Weight clipping runs as a separate step after each critic update, like
#    the separate sess.run(clip_D) in TF1.
#  * NOT bit-identical to TF1: initial weight values differ because TF1 took
#    each random op's seed from graph op ids (tf.compat.v1.set_random_seed(0))
#    while TF2 eager derives them from tf.random.set_seed(0) and an eager op
#    counter. Same distributions, different numbers, so the printed losses
#    differ from the TF1 run. (Also ULP-level differences: TF1's fused
#    ApplyRMSProp kernel computes ms += (g^2 - ms)*(1-rho) and
#    rsqrt(ms+eps)*lr*g, Keras computes rho*ms + (1-rho)*g^2 and
#    lr*g/sqrt(ms+eps).)
import numpy as np
import tensorflow as tf

np.random.seed(0)
tf.random.set_seed(0)

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


# Same creation order as TF1 (D first, then G).
D_W1 = tf.Variable(xavier_init([X_dim, h_dim]))
D_b1 = tf.Variable(tf.zeros(shape=[h_dim]))
D_W2 = tf.Variable(xavier_init([h_dim, 1]))
D_b2 = tf.Variable(tf.zeros(shape=[1]))

theta_D = [D_W1, D_W2, D_b1, D_b2]


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


def make_tf1_rmsprop(var_list, learning_rate):
    """Keras RMSprop configured like tf.compat.v1.train.RMSPropOptimizer."""
    opt = tf.keras.optimizers.RMSprop(learning_rate=learning_rate, rho=0.9,
                                      momentum=0.0, epsilon=1e-10,
                                      centered=False)
    opt.build(var_list)
    # TF1 initialises the rms accumulator to 1.0; Keras to 0.0.
    assert len(opt._velocities) == len(var_list)
    for vel in opt._velocities:
        vel.assign(tf.ones_like(vel))
    return opt


D_solver = make_tf1_rmsprop(theta_D, 5e-5)
G_solver = make_tf1_rmsprop(theta_G, 5e-5)


@tf.function
def d_train_step(X_mb, z_mb):
    with tf.GradientTape() as tape:
        D_real = discriminator(X_mb)
        D_fake = discriminator(generator(z_mb))
        D_loss = tf.reduce_mean(D_real) - tf.reduce_mean(D_fake)
        neg_D_loss = -D_loss  # TF1: minimize(-D_loss, var_list=theta_D)
    grads = tape.gradient(neg_D_loss, theta_D)
    D_solver.apply_gradients(zip(grads, theta_D))
    return D_loss


@tf.function
def clip_D():
    for p in theta_D:
        p.assign(tf.clip_by_value(p, -0.01, 0.01))


@tf.function
def g_train_step(z_mb):
    with tf.GradientTape() as tape:
        D_fake = discriminator(generator(z_mb))
        G_loss = -tf.reduce_mean(D_fake)
    grads = tape.gradient(G_loss, theta_G)
    G_solver.apply_gradients(zip(grads, theta_G))
    return G_loss


for it in range(num_iters):
    for _ in range(n_critic):
        X_mb = sample_ring(mb_size)

        D_loss_curr = d_train_step(X_mb, sample_z(mb_size, z_dim)).numpy()
        clip_D()

    G_loss_curr = g_train_step(sample_z(mb_size, z_dim)).numpy()

    if it % 25 == 0 or it == num_iters - 1:
        print('Iter: {}; D loss: {:.4}; G_loss: {:.4}'
              .format(it, D_loss_curr, G_loss_curr))

samples = generator(tf.constant(sample_z(500, z_dim))).numpy()
print('Sample mean radius: {:.4f}'.format(np.mean(np.sqrt(np.sum(samples ** 2, axis=1)))))
