"""
WGAN-GP on a toy 2-D dataset (8 Gaussians arranged on a ring).

A minimal TensorFlow 1.x implementation of
"Improved Training of Wasserstein GANs" (Gulrajani et al., 2017).

The critic is trained 5 times for every generator update, and the
Lipschitz constraint is enforced with a gradient penalty computed on
random interpolates between real and fake samples.
"""
import numpy as np
import tensorflow as tf

# ---------------------------------------------------------------------------
# Hyperparameters
# ---------------------------------------------------------------------------
BATCH_SIZE = 64        # mini-batch size
Z_DIM = 2              # dimension of the noise vector
HIDDEN_DIM = 256       # units in each hidden layer
LAMBDA = 0.1           # gradient penalty weight (paper uses 0.1 for toy data)
CRITIC_ITERS = 5       # critic updates per generator update
ITERS = 1000           # number of generator iterations
LEARNING_RATE = 1e-4


# ---------------------------------------------------------------------------
# Toy data: 8 Gaussians on a ring
# ---------------------------------------------------------------------------
def sample_8gaussians(batch_size, scale=2.0, std=0.02):
    centers = [
        (1, 0), (-1, 0), (0, 1), (0, -1),
        (1. / np.sqrt(2), 1. / np.sqrt(2)),
        (1. / np.sqrt(2), -1. / np.sqrt(2)),
        (-1. / np.sqrt(2), 1. / np.sqrt(2)),
        (-1. / np.sqrt(2), -1. / np.sqrt(2)),
    ]
    centers = np.array(centers) * scale
    idx = np.random.randint(0, len(centers), size=batch_size)
    points = centers[idx] + std * np.random.randn(batch_size, 2)
    points /= 1.414  # keep the data roughly in [-1.5, 1.5]
    return points.astype(np.float32)


# ---------------------------------------------------------------------------
# Network helpers
# ---------------------------------------------------------------------------
def linear(x, out_dim, name):
    in_dim = x.get_shape().as_list()[1]
    with tf.variable_scope(name):
        W = tf.get_variable('W', [in_dim, out_dim],
                            initializer=tf.glorot_uniform_initializer())
        b = tf.get_variable('b', [out_dim],
                            initializer=tf.zeros_initializer())
    return tf.matmul(x, W) + b


def generator(z):
    with tf.variable_scope('generator', reuse=tf.AUTO_REUSE):
        h = tf.nn.relu(linear(z, HIDDEN_DIM, 'fc1'))
        h = tf.nn.relu(linear(h, HIDDEN_DIM, 'fc2'))
        h = tf.nn.relu(linear(h, HIDDEN_DIM, 'fc3'))
        out = linear(h, 2, 'out')
    return out


def critic(x):
    with tf.variable_scope('critic', reuse=tf.AUTO_REUSE):
        h = tf.nn.relu(linear(x, HIDDEN_DIM, 'fc1'))
        h = tf.nn.relu(linear(h, HIDDEN_DIM, 'fc2'))
        h = tf.nn.relu(linear(h, HIDDEN_DIM, 'fc3'))
        out = linear(h, 1, 'out')
    return tf.reshape(out, [-1])


# ---------------------------------------------------------------------------
# Graph
# ---------------------------------------------------------------------------
real_data = tf.placeholder(tf.float32, shape=[BATCH_SIZE, 2], name='real_data')
z = tf.placeholder(tf.float32, shape=[BATCH_SIZE, Z_DIM], name='z')

fake_data = generator(z)

critic_real = critic(real_data)
critic_fake = critic(fake_data)

# Wasserstein losses
gen_loss = -tf.reduce_mean(critic_fake)
critic_loss = tf.reduce_mean(critic_fake) - tf.reduce_mean(critic_real)

# Gradient penalty on random interpolates between real and fake samples
alpha = tf.random_uniform(shape=[BATCH_SIZE, 1], minval=0., maxval=1.)
x_hat = real_data + alpha * (fake_data - real_data)
gradients = tf.gradients(critic(x_hat), [x_hat])[0]
slopes = tf.sqrt(tf.reduce_sum(tf.square(gradients), axis=1))
gradient_penalty = tf.reduce_mean((slopes - 1.) ** 2)
critic_loss += LAMBDA * gradient_penalty

# Separate variable lists for the two networks
gen_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='generator')
critic_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='critic')

gen_train_op = tf.train.AdamOptimizer(
    learning_rate=LEARNING_RATE, beta1=0.5, beta2=0.9
).minimize(gen_loss, var_list=gen_vars)

critic_train_op = tf.train.AdamOptimizer(
    learning_rate=LEARNING_RATE, beta1=0.5, beta2=0.9
).minimize(critic_loss, var_list=critic_vars)


# ---------------------------------------------------------------------------
# Training loop
# ---------------------------------------------------------------------------
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())

    for iteration in range(ITERS):
        # Train the critic CRITIC_ITERS times
        for _ in range(CRITIC_ITERS):
            batch_real = sample_8gaussians(BATCH_SIZE)
            batch_z = np.random.randn(BATCH_SIZE, Z_DIM).astype(np.float32)
            _critic_loss, _gp, _ = sess.run(
                [critic_loss, gradient_penalty, critic_train_op],
                feed_dict={real_data: batch_real, z: batch_z})

        # Train the generator once
        batch_z = np.random.randn(BATCH_SIZE, Z_DIM).astype(np.float32)
        _gen_loss, _ = sess.run([gen_loss, gen_train_op],
                                feed_dict={z: batch_z})

        if iteration % 100 == 0 or iteration == ITERS - 1:
            print('iter {:5d} | critic loss {:.4f} | gen loss {:.4f} | gp {:.4f}'
                  .format(iteration, _critic_loss, _gen_loss, _gp))

    # Draw a few samples from the trained generator
    samples = sess.run(fake_data, feed_dict={
        z: np.random.randn(BATCH_SIZE, Z_DIM).astype(np.float32)})
    print('Generated samples (first 5):')
    print(samples[:5])
