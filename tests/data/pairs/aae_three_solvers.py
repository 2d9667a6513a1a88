"""Adversarial autoencoder, TF1 (the shape of wiseodd's): three optimizers take turns, one Session.run each; the
discriminator's step feeds the prior's noise `z`, which the first step does not feed."""
import numpy as np
import tensorflow as tf

X_dim, h_dim, z_dim, mb_size = 12, 8, 3, 16
rng = np.random.RandomState(0)
data = rng.rand(256, X_dim).astype(np.float32)


def xavier_init(size):
    return tf.random_normal(shape=size, stddev=1. / tf.sqrt(size[0] / 2.))


X = tf.placeholder(tf.float32, shape=[None, X_dim])
z = tf.placeholder(tf.float32, shape=[None, z_dim])

Q_W1 = tf.Variable(xavier_init([X_dim, h_dim]), name='Q_W1')
Q_b1 = tf.Variable(tf.zeros(shape=[h_dim]), name='Q_b1')
Q_W2 = tf.Variable(xavier_init([h_dim, z_dim]), name='Q_W2')
Q_b2 = tf.Variable(tf.zeros(shape=[z_dim]), name='Q_b2')
theta_Q = [Q_W1, Q_W2, Q_b1, Q_b2]
P_W1 = tf.Variable(xavier_init([z_dim, h_dim]), name='P_W1')
P_b1 = tf.Variable(tf.zeros(shape=[h_dim]), name='P_b1')
P_W2 = tf.Variable(xavier_init([h_dim, X_dim]), name='P_W2')
P_b2 = tf.Variable(tf.zeros(shape=[X_dim]), name='P_b2')
theta_P = [P_W1, P_W2, P_b1, P_b2]
D_W1 = tf.Variable(xavier_init([z_dim, h_dim]), name='D_W1')
D_b1 = tf.Variable(tf.zeros(shape=[h_dim]), name='D_b1')
D_W2 = tf.Variable(xavier_init([h_dim, 1]), name='D_W2')
D_b2 = tf.Variable(tf.zeros(shape=[1]), name='D_b2')
theta_D = [D_W1, D_W2, D_b1, D_b2]


def Q(X):
    h = tf.nn.relu(tf.matmul(X, Q_W1) + Q_b1)
    return tf.matmul(h, Q_W2) + Q_b2


def P(z):
    h = tf.nn.relu(tf.matmul(z, P_W1) + P_b1)
    return tf.matmul(h, P_W2) + P_b2


def D(z):
    h = tf.nn.relu(tf.matmul(z, D_W1) + D_b1)
    return tf.nn.sigmoid(tf.matmul(h, D_W2) + D_b2)


z_sample = Q(X)
logits = P(z_sample)
recon_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=logits, labels=X))
D_real = D(z)
D_fake = D(z_sample)
D_loss = -tf.reduce_mean(tf.log(D_real) + tf.log(1. - D_fake))
G_loss = -tf.reduce_mean(tf.log(D_fake))

AE_solver = tf.train.AdamOptimizer().minimize(recon_loss, var_list=theta_P + theta_Q)
D_solver = tf.train.AdamOptimizer().minimize(D_loss, var_list=theta_D)
G_solver = tf.train.AdamOptimizer().minimize(G_loss, var_list=theta_Q)

sess = tf.Session()
sess.run(tf.global_variables_initializer())

for it in range(20):
    X_mb = data[(it * mb_size) % 256:(it * mb_size) % 256 + mb_size]
    z_mb = np.random.randn(mb_size, z_dim)
    _, recon_loss_curr = sess.run([AE_solver, recon_loss], feed_dict={X: X_mb})
    _, D_loss_curr = sess.run([D_solver, D_loss], feed_dict={X: X_mb, z: z_mb})
    _, G_loss_curr = sess.run([G_solver, G_loss], feed_dict={X: X_mb})
    if it % 10 == 0:
        print('Iter: {}; D_loss: {:.4}; G_loss: {:.4}; Recon_loss: {:.4}'.format(
            it, D_loss_curr, G_loss_curr, recon_loss_curr))
