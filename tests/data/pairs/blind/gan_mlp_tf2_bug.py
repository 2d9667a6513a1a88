# Vanilla GAN on a 1-D Gaussian, N(4, 1.25)
# Based on the classic "GANs in 50 lines" style tutorials.
#
# TF2 migration of gan_mlp.py (TF 2.x eager + @tf.function, Keras 3 optimizers).
# Notes on fidelity to the TF1 script:
#  * Same NumPy seed and the same order of NumPy draws per iteration
#    (x batch, z for the D step, z for the G step; final z of 1000).
#  * Same architecture and initializers: weights ~ N(0, 0.1^2) (plain normal,
#    like tf.random_normal_initializer, not truncated), biases = 0.
#  * Adam(lr=1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-8): TF1 AdamOptimizer
#    defaults (Keras' default epsilon is 1e-7, so it is set explicitly). Keras 3
#    Adam uses the same "epsilon-hat" update form as TF1's ApplyAdam.
#  * NOT bit-identical to TF1: the initial weight values differ, because TF1
#    derived each random op's seed from graph op ids under
#    tf.set_random_seed(42), while TF2 eager derives op seeds from
#    tf.random.set_seed(42) and an eager op counter. The distributions are the
#    same, but the drawn numbers (and therefore the printed losses) are not.
#    Tiny float differences in the optimizer arithmetic (beta powers computed
#    with pow() rather than accumulated products) also exist.
import numpy as np
import tensorflow as tf

np.random.seed(42)
tf.random.set_seed(42)

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


class Linear(tf.Module):
    def __init__(self, in_dim, out_dim, name):
        super().__init__(name=name)
        with self.name_scope:
            self.w = tf.Variable(tf.random.normal([in_dim, out_dim], stddev=0.1),
                                 name='w')
            self.b = tf.Variable(tf.zeros([out_dim]), name='b')

    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


class Generator(tf.Module):
    def __init__(self):
        super().__init__(name='generator')
        with self.name_scope:
            self.g_h1 = Linear(z_dim, h_dim, 'g_h1')
            self.g_h2 = Linear(h_dim, h_dim, 'g_h2')
            self.g_out = Linear(h_dim, 1, 'g_out')

    def __call__(self, z):
        h1 = tf.nn.relu(self.g_h1(z))
        h2 = tf.nn.relu(self.g_h2(h1))
        return self.g_out(h2)


class Discriminator(tf.Module):
    def __init__(self):
        super().__init__(name='discriminator')
        with self.name_scope:
            self.d_h1 = Linear(1, h_dim * 2, 'd_h1')
            self.d_h2 = Linear(h_dim * 2, h_dim * 2, 'd_h2')
            self.d_out = Linear(h_dim * 2, 1, 'd_out')

    def __call__(self, x):
        h1 = tf.nn.relu(self.d_h1(x))
        h2 = tf.nn.relu(self.d_h2(h1))
        logits = self.d_out(h2)
        prob = tf.nn.sigmoid(logits)
        return prob, logits


# Same creation order as TF1 (generator variables first, then discriminator).
generator = Generator()
discriminator = Discriminator()

D_vars = list(discriminator.trainable_variables)
G_vars = list(generator.trainable_variables)

D_solver = tf.keras.optimizers.Adam(learning_rate=1e-3, beta_1=0.9, beta_2=0.999,
                                    epsilon=1e-8)
G_solver = tf.keras.optimizers.Adam(learning_rate=1e-4, beta_1=0.9, beta_2=0.999,
                                    epsilon=1e-8)
# Create the slot variables eagerly, outside of tf.function.
D_solver.build(D_vars)
G_solver.build(G_vars)


def d_loss_fn(x, z):
    G_sample = generator(z)
    _, D_logit_real = discriminator(x)
    _, D_logit_fake = discriminator(G_sample)
    D_loss_real = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
        logits=D_logit_real, labels=tf.ones_like(D_logit_real)))
    D_loss_fake = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
        logits=D_logit_fake, labels=tf.zeros_like(D_logit_fake)))
    return D_loss_real + D_loss_fake


def g_loss_fn(z):
    G_sample = generator(z)
    _, D_logit_fake = discriminator(G_sample)
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
        logits=D_logit_fake, labels=tf.ones_like(D_logit_fake)))


@tf.function
def d_train_step(x, z):
    with tf.GradientTape() as tape:
        D_loss = d_loss_fn(x, z)
    grads = tape.gradient(D_loss, D_vars)
    D_solver.apply_gradients(zip(grads, D_vars))
    return D_loss  # value before the update, as sess.run([D_solver, D_loss]) gave


@tf.function
def g_train_step(z):
    with tf.GradientTape() as tape:
        G_loss = g_loss_fn(z)
    grads = tape.gradient(G_loss, G_vars)
    G_solver.apply_gradients(zip(grads, G_vars))
    return G_loss


for it in range(num_iters):
    x_batch = sample_data(batch_size)
    z_batch = sample_z(batch_size)
    D_loss_curr = d_train_step(x_batch, z_batch).numpy()
    z_batch = sample_z(batch_size)
    G_loss_curr = g_train_step(z_batch).numpy()

    if it % print_every == 0 or it == num_iters - 1:
        print('Iter: {}'.format(it))
        print('D loss: {:.4}'.format(D_loss_curr))
        print('G_loss: {:.4}'.format(G_loss_curr))
        print()

samples = generator(tf.constant(sample_z(1000))).numpy()
print('Generated mean: {:.4f}, std: {:.4f}'.format(samples.mean(), samples.std()))
print('Real mean: {:.4f}, std: {:.4f}'.format(mu, sigma))
