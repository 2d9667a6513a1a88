"""Adversarial autoencoder, TF2: a step function per optimizer, as the TF1 script's three train ops. Its prior's
noise comes from a generator of its own (TF1 draws it from NumPy's global one): the same distribution, other
values, so a comparison is only meaningful where each step is given TF1's batch, `z` too."""
import numpy as np
import tensorflow as tf

X_dim, h_dim, z_dim, mb_size = 12, 8, 3, 16
rng = np.random.RandomState(0)
data = rng.rand(256, X_dim).astype(np.float32)
noise = np.random.default_rng(7)


def xavier_init(size):
    return tf.random.normal(shape=size, stddev=1. / tf.sqrt(size[0] / 2.))


class Dense2(tf.Module):
    def __init__(self, name, n_in, n_out, last=None):
        super().__init__(name=name)
        self.W1 = tf.Variable(xavier_init([n_in, h_dim]), name=f'{name}_W1')
        self.b1 = tf.Variable(tf.zeros(shape=[h_dim]), name=f'{name}_b1')
        self.W2 = tf.Variable(xavier_init([h_dim, n_out]), name=f'{name}_W2')
        self.b2 = tf.Variable(tf.zeros(shape=[n_out]), name=f'{name}_b2')
        self.last = last

    def __call__(self, x):
        h = tf.nn.relu(tf.matmul(x, self.W1) + self.b1)
        out = tf.matmul(h, self.W2) + self.b2
        return self.last(out) if self.last else out


Q = Dense2('Q', X_dim, z_dim)
P = Dense2('P', z_dim, X_dim)
D = Dense2('D', z_dim, 1, last=tf.nn.sigmoid)
AE_opt, D_opt, G_opt = tf.keras.optimizers.Adam(epsilon=1e-8), tf.keras.optimizers.Adam(epsilon=1e-8), tf.keras.optimizers.Adam(epsilon=1e-8)


@tf.function
def ae_step(X):
    variables = P.trainable_variables + Q.trainable_variables
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=P(Q(X)), labels=X))
    AE_opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return loss


@tf.function
def d_step(X, z):
    with tf.GradientTape() as tape:
        loss = -tf.reduce_mean(tf.math.log(D(z)) + tf.math.log(1. - D(Q(X))))
    grads = tape.gradient(loss, D.trainable_variables)
    D_opt.apply_gradients(zip(grads, D.trainable_variables))
    return loss


@tf.function
def g_step(X):
    with tf.GradientTape() as tape:
        loss = -tf.reduce_mean(tf.math.log(D(Q(X))))
    grads = tape.gradient(loss, Q.trainable_variables)
    G_opt.apply_gradients(zip(grads, Q.trainable_variables))
    return loss


for it in range(20):
    X_mb = data[(it * mb_size) % 256:(it * mb_size) % 256 + mb_size]
    z_mb = noise.standard_normal((mb_size, z_dim)).astype(np.float32)
    recon_loss_curr = ae_step(X_mb).numpy()
    D_loss_curr = d_step(X_mb, z_mb).numpy()
    G_loss_curr = g_step(X_mb).numpy()
    if it % 10 == 0:
        print('Iter: {}; D_loss: {:.4}; G_loss: {:.4}; Recon_loss: {:.4}'.format(
            it, D_loss_curr, G_loss_curr, recon_loss_curr))
