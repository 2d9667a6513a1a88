"""Vanilla GAN on a 2-D mixture of 8 Gaussians, migrated to TensorFlow 2.

Same model, data, hyper-parameters and logging as gan_tf1.py.
Eager by default; the training step is compiled with @tf.function.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras

# ---- hyper-parameters (unchanged from the TF1 script) ----
SEED = 1234
BATCH_SIZE = 64
Z_DIM = 2
HIDDEN = 128
N_ITERS = 300
LOG_EVERY = 50
LR = 2e-4
BETA1 = 0.5
EPSILON = 1e-8  # tf.train.AdamOptimizer default; Keras defaults to 1e-7

np.random.seed(SEED)
tf.random.set_seed(SEED)  # replaces tf.set_random_seed (op-level seeds differ anyway)


def sample_ring(batch_size, n_modes=8, radius=2.0, std=0.02):
    """Sample points from 8 Gaussians placed evenly on a circle."""
    angles = 2 * np.pi * np.random.randint(n_modes, size=batch_size) / n_modes
    centers = np.stack([radius * np.cos(angles), radius * np.sin(angles)], axis=1)
    return (centers + std * np.random.randn(batch_size, 2)).astype(np.float32)


def make_mlp(out_dim, name):
    # Dense defaults (glorot_uniform kernel, zero bias) match the TF1 get_variable setup.
    return keras.Sequential([
        keras.Input(shape=(2,)),  # both inputs are 2-D (Z_DIM == 2)
        keras.layers.Dense(HIDDEN, activation='relu', name='fc1'),
        keras.layers.Dense(HIDDEN, activation='relu', name='fc2'),
        keras.layers.Dense(out_dim, name='out'),
    ], name=name)


generator = make_mlp(2, 'generator')          # z (Z_DIM == 2) -> point
discriminator = make_mlp(1, 'discriminator')  # point -> logit

# from_logits=True == tf.nn.sigmoid_cross_entropy_with_logits + reduce_mean
bce = keras.losses.BinaryCrossentropy(from_logits=True)


def discriminator_loss(real_logits, fake_logits):
    return (bce(tf.ones_like(real_logits), real_logits)
            + bce(tf.zeros_like(fake_logits), fake_logits))


def generator_loss(fake_logits):
    # Non-saturating loss: push D(G(z)) towards "real".
    return bce(tf.ones_like(fake_logits), fake_logits)


g_optimizer = keras.optimizers.Adam(LR, beta_1=BETA1, epsilon=EPSILON)
d_optimizer = keras.optimizers.Adam(LR, beta_1=BETA1, epsilon=EPSILON)


@tf.function
def train_step(x_real, z):
    # One forward pass shared by both losses, as in the TF1 graph.
    with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
        x_fake = generator(z, training=True)
        real_logits = discriminator(x_real, training=True)
        fake_logits = discriminator(x_fake, training=True)
        d_loss = discriminator_loss(real_logits, fake_logits)
        g_loss = generator_loss(fake_logits)

    # Take BOTH gradients first, against the same (pre-update) weights,
    # then apply them: a simultaneous update, never G against an already-updated D.
    g_grads = g_tape.gradient(g_loss, generator.trainable_variables)
    d_grads = d_tape.gradient(d_loss, discriminator.trainable_variables)
    g_optimizer.apply_gradients(zip(g_grads, generator.trainable_variables))
    d_optimizer.apply_gradients(zip(d_grads, discriminator.trainable_variables))
    return d_loss, g_loss


for it in range(1, N_ITERS + 1):
    batch = sample_ring(BATCH_SIZE)
    z_batch = np.random.normal(size=(BATCH_SIZE, Z_DIM)).astype(np.float32)
    d_l, g_l = train_step(tf.constant(batch), tf.constant(z_batch))
    if it % LOG_EVERY == 0:
        print('iter %4d  d_loss %.4f  g_loss %.4f' % (it, float(d_l), float(g_l)))

samples = generator(np.random.normal(size=(512, Z_DIM)).astype(np.float32)).numpy()
print('generated sample mean radius: %.3f' % np.mean(np.linalg.norm(samples, axis=1)))
