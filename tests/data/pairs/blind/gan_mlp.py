# Vanilla GAN on a 1-D Gaussian, N(4, 1.25)
# Based on the classic "GANs in 50 lines" style tutorials.
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

np.random.seed(42)
tf.set_random_seed(42)

mu, sigma = 4.0, 1.25
batch_size = 64
z_dim = 1
h_dim = 16
num_iters = 400
print_every = 50


def sample_data(n):
    return np.random.normal(mu, sigma, size=(n, 1)).astype(np.float32)


def sample_z(n):
    return np.random.uniform(-8., 8., size=(n, z_dim)).astype(np.float32)


def linear(x, out_dim, scope):
    with tf.variable_scope(scope):
        w = tf.get_variable('w', [x.get_shape()[1], out_dim],
                            initializer=tf.random_normal_initializer(stddev=0.1))
        b = tf.get_variable('b', [out_dim], initializer=tf.constant_initializer(0.0))
        return tf.matmul(x, w) + b


def generator(z):
    with tf.variable_scope('generator'):
        h1 = tf.nn.relu(linear(z, h_dim, 'g_h1'))
        h2 = tf.nn.relu(linear(h1, h_dim, 'g_h2'))
        out = linear(h2, 1, 'g_out')
        return out


def discriminator(x, reuse=False):
    with tf.variable_scope('discriminator', reuse=reuse):
        h1 = tf.nn.relu(linear(x, h_dim * 2, 'd_h1'))
        h2 = tf.nn.relu(linear(h1, h_dim * 2, 'd_h2'))
        logits = linear(h2, 1, 'd_out')
        prob = tf.nn.sigmoid(logits)
        return prob, logits


X = tf.placeholder(tf.float32, shape=[None, 1], name='X')
Z = tf.placeholder(tf.float32, shape=[None, z_dim], name='Z')

G_sample = generator(Z)
D_real, D_logit_real = discriminator(X)
D_fake, D_logit_fake = discriminator(G_sample, reuse=True)

D_loss_real = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
    logits=D_logit_real, labels=tf.ones_like(D_logit_real)))
D_loss_fake = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
    logits=D_logit_fake, labels=tf.zeros_like(D_logit_fake)))
D_loss = D_loss_real + D_loss_fake
G_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
    logits=D_logit_fake, labels=tf.ones_like(D_logit_fake)))

t_vars = tf.trainable_variables()
D_vars = [var for var in t_vars if var.name.startswith('discriminator')]
G_vars = [var for var in t_vars if var.name.startswith('generator')]

D_solver = tf.train.AdamOptimizer(learning_rate=1e-3).minimize(D_loss, var_list=D_vars)
G_solver = tf.train.AdamOptimizer(learning_rate=1e-3).minimize(G_loss, var_list=G_vars)

sess = tf.Session()
sess.run(tf.global_variables_initializer())

for it in range(num_iters):
    x_batch = sample_data(batch_size)
    z_batch = sample_z(batch_size)
    _, D_loss_curr = sess.run([D_solver, D_loss], feed_dict={X: x_batch, Z: z_batch})
    z_batch = sample_z(batch_size)
    _, G_loss_curr = sess.run([G_solver, G_loss], feed_dict={Z: z_batch})

    if it % print_every == 0 or it == num_iters - 1:
        print('Iter: {}'.format(it))
        print('D loss: {:.4}'.format(D_loss_curr))
        print('G_loss: {:.4}'.format(G_loss_curr))
        print()

samples = sess.run(G_sample, feed_dict={Z: sample_z(1000)})
print('Generated mean: {:.4f}, std: {:.4f}'.format(samples.mean(), samples.std()))
print('Real mean: {:.4f}, std: {:.4f}'.format(mu, sigma))
sess.close()
