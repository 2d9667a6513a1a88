"""Vanilla GAN on a 2-D mixture of 8 Gaussians (TensorFlow 1.x style).

Generator: z (dim 2) -> 2 hidden ReLU layers -> 2-D point.
Discriminator: 2-D point -> 2 hidden ReLU layers -> logit.
"""
import numpy as np
import tensorflow as tf

# ---- hyper-parameters ----
SEED = 1234
BATCH_SIZE = 64
Z_DIM = 2
HIDDEN = 128
N_ITERS = 300
LOG_EVERY = 50
LR = 2e-4
BETA1 = 0.5

np.random.seed(SEED)
tf.set_random_seed(SEED)


def sample_ring(batch_size, n_modes=8, radius=2.0, std=0.02):
    """Sample points from 8 Gaussians placed evenly on a circle."""
    angles = 2 * np.pi * np.random.randint(n_modes, size=batch_size) / n_modes
    centers = np.stack([radius * np.cos(angles), radius * np.sin(angles)], axis=1)
    return (centers + std * np.random.randn(batch_size, 2)).astype(np.float32)


def dense(x, out_dim, name):
    """Fully connected layer with get_variable (tf.layers is gone with Keras 3)."""
    in_dim = x.get_shape().as_list()[1]
    w = tf.get_variable(name + '_w', [in_dim, out_dim],
                        initializer=tf.glorot_uniform_initializer())
    b = tf.get_variable(name + '_b', [out_dim],
                        initializer=tf.zeros_initializer())
    return tf.matmul(x, w) + b


def generator(z):
    with tf.variable_scope('generator'):
        h = tf.nn.relu(dense(z, HIDDEN, 'fc1'))
        h = tf.nn.relu(dense(h, HIDDEN, 'fc2'))
        return dense(h, 2, 'out')


def discriminator(x, reuse=False):
    with tf.variable_scope('discriminator', reuse=reuse):
        h = tf.nn.relu(dense(x, HIDDEN, 'fc1'))
        h = tf.nn.relu(dense(h, HIDDEN, 'fc2'))
        return dense(h, 1, 'out')  # logits


# ---- graph ----
x_real = tf.placeholder(tf.float32, [None, 2], name='x_real')
z = tf.placeholder(tf.float32, [None, Z_DIM], name='z')

x_fake = generator(z)
d_logits_real = discriminator(x_real)
d_logits_fake = discriminator(x_fake, reuse=True)  # share D's weights

# D: real -> 1, fake -> 0
d_loss_real = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
    logits=d_logits_real, labels=tf.ones_like(d_logits_real)))
d_loss_fake = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
    logits=d_logits_fake, labels=tf.zeros_like(d_logits_fake)))
d_loss = d_loss_real + d_loss_fake

# G: non-saturating loss, make D call fakes real
g_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
    logits=d_logits_fake, labels=tf.ones_like(d_logits_fake)))

g_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='generator')
d_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='discriminator')

# Each optimizer only touches its own network's variables.
g_train_op = tf.train.AdamOptimizer(LR, beta1=BETA1).minimize(g_loss, var_list=g_vars)
d_train_op = tf.train.AdamOptimizer(LR, beta1=BETA1).minimize(d_loss, var_list=d_vars)

# ---- training ----
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for it in range(1, N_ITERS + 1):
        batch = sample_ring(BATCH_SIZE)
        z_batch = np.random.normal(size=(BATCH_SIZE, Z_DIM)).astype(np.float32)
        # Update D and G in a single run call.
        _, _, d_l, g_l = sess.run([d_train_op, g_train_op, d_loss, g_loss],
                                  feed_dict={x_real: batch, z: z_batch})
        if it % LOG_EVERY == 0:
            print('iter %4d  d_loss %.4f  g_loss %.4f' % (it, d_l, g_l))

    samples = sess.run(x_fake, feed_dict={
        z: np.random.normal(size=(512, Z_DIM)).astype(np.float32)})
    print('generated sample mean radius: %.3f' % np.mean(np.linalg.norm(samples, axis=1)))
