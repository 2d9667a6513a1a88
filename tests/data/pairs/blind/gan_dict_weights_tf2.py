""" Generative Adversarial Networks (GAN).

Using generative adversarial networks (GAN) to generate small synthetic
'images' of 16 features (4x4 patterns).

Adapted from the TensorFlow-Examples style GAN.

TF2 migration of gan_dict_weights.py (TF 2.x eager + @tf.function, Keras 3
optimizers). Variables are kept as plain tf.Variable globals in the same
`weights` / `biases` dicts as the TF1 script.

Notes on fidelity to the TF1 script:
  * Same NumPy seed, same dataset generation, same order of NumPy draws per
    step (batch indices, then noise), same final noise draw.
  * Same initializers: weights ~ N(0, (1/sqrt(fan_in/2))^2) (plain normal),
    biases = 0. Same layer sizes.
  * Adam(lr=2e-4, beta_1=0.9, beta_2=0.999, epsilon=1e-8) = TF1 AdamOptimizer
    defaults (Keras' default epsilon is 1e-7, so it is set explicitly).
  * NOT bit-identical to TF1: the initial weight values differ, because TF1
    derived each random op's seed from graph op ids under tf.set_random_seed(1)
    whereas TF2 eager derives them from tf.random.set_seed(1) and an eager op
    counter. Same distributions, different drawn numbers, so the printed
    losses/samples differ from the TF1 run.
"""

from __future__ import division, print_function, absolute_import

import numpy as np
import tensorflow as tf

np.random.seed(1)
tf.random.set_seed(1)

# Synthetic "images": 4x4 patterns (bars) with noise, values in [0, 1]
def make_dataset(n):
    data = np.zeros((n, 4, 4), dtype=np.float32)
    for i in range(n):
        k = np.random.randint(4)
        if np.random.rand() < 0.5:
            data[i, k, :] = 1.0
        else:
            data[i, :, k] = 1.0
    data += 0.05 * np.random.randn(n, 4, 4)
    return np.clip(data, 0., 1.).reshape(n, 16)

dataset = make_dataset(2000)

# Training Params
num_steps = 300
batch_size = 32
learning_rate = 0.0002

# Network Params
image_dim = 16
gen_hidden_dim = 64
disc_hidden_dim = 64
noise_dim = 8 # Noise data points

# A custom initialization (see Xavier Glorot init)
def glorot_init(shape):
    return tf.random.normal(shape=shape, stddev=1. / tf.sqrt(shape[0] / 2.))

# Store layers weight & bias (same creation order as TF1)
weights = {
    'gen_hidden1': tf.Variable(glorot_init([noise_dim, gen_hidden_dim])),
    'gen_out': tf.Variable(glorot_init([gen_hidden_dim, image_dim])),
    'disc_hidden1': tf.Variable(glorot_init([image_dim, disc_hidden_dim])),
    'disc_out': tf.Variable(glorot_init([disc_hidden_dim, 1])),
}
biases = {
    'gen_hidden1': tf.Variable(tf.zeros([gen_hidden_dim])),
    'gen_out': tf.Variable(tf.zeros([image_dim])),
    'disc_hidden1': tf.Variable(tf.zeros([disc_hidden_dim])),
    'disc_out': tf.Variable(tf.zeros([1])),
}


# Generator
def generator(x, weights, biases):
    hidden_layer = tf.matmul(x, weights['gen_hidden1'])
    hidden_layer = tf.add(hidden_layer, biases['gen_hidden1'])
    hidden_layer = tf.nn.relu(hidden_layer)
    out_layer = tf.matmul(hidden_layer, weights['gen_out'])
    out_layer = tf.add(out_layer, biases['gen_out'])
    out_layer = tf.nn.sigmoid(out_layer)
    return out_layer


# Discriminator
def discriminator(x, weights, biases):
    hidden_layer = tf.matmul(x, weights['disc_hidden1'])
    hidden_layer = tf.add(hidden_layer, biases['disc_hidden1'])
    hidden_layer = tf.nn.relu(hidden_layer)
    out_layer = tf.matmul(hidden_layer, weights['disc_out'])
    out_layer = tf.add(out_layer, biases['disc_out'])
    out_layer = tf.nn.sigmoid(out_layer)
    return out_layer


# Build Optimizers
optimizer_gen = tf.keras.optimizers.Adam(learning_rate=learning_rate,
                                         beta_1=0.9, beta_2=0.999, epsilon=1e-8)
optimizer_disc = tf.keras.optimizers.Adam(learning_rate=learning_rate,
                                          beta_1=0.9, beta_2=0.999, epsilon=1e-8)

# Training Variables for each optimizer
# Generator Network Variables
gen_vars = [weights['gen_hidden1'], weights['gen_out'],
            biases['gen_hidden1'], biases['gen_out']]
# Discriminator Network Variables
disc_vars = [weights['disc_hidden1'], weights['disc_out'],
            biases['disc_hidden1'], biases['disc_out']]

# Create the optimizer slot variables eagerly, outside of tf.function.
optimizer_gen.build(gen_vars)
optimizer_disc.build(disc_vars)


# One training step.
#
# TF1 ran `sess.run([train_gen, train_disc, gen_loss, disc_loss])`: both
# minimize() ops were in ONE session call on the SAME batch and noise, sharing
# one forward pass, and there was no control dependency between the two train
# ops. So the graph expressed a *simultaneous* update: both gradients are
# nominally computed from the pre-update parameters, and the fetched gl/dl are
# the pre-update losses. The execution order of the two Adam apply ops was
# unspecified (and, with TF1 ref variables updated in place without locking,
# a late gradient read could in principle observe an already-updated
# discriminator weight - a race, not a defined ordering).
#
# TF2 version: do exactly the intended simultaneous update, deterministically:
# one forward pass under a persistent tape, compute BOTH gradients from the
# pre-update parameters, then apply both (generator first, then discriminator,
# mirroring the fetch list order; since the two variable sets are disjoint and
# the gradients are already computed, the apply order does not matter).
@tf.function
def train_step(batch_x, z):
    with tf.GradientTape(persistent=True) as tape:
        gen_sample = generator(z, weights, biases)
        disc_real = discriminator(batch_x, weights, biases)
        disc_fake = discriminator(gen_sample, weights, biases)
        gen_loss = -tf.reduce_mean(tf.math.log(disc_fake))
        disc_loss = -tf.reduce_mean(tf.math.log(disc_real) + tf.math.log(1. - disc_fake))
    gen_grads = tape.gradient(gen_loss, gen_vars)
    disc_grads = tape.gradient(disc_loss, disc_vars)
    del tape
    optimizer_gen.apply_gradients(zip(gen_grads, gen_vars))
    optimizer_disc.apply_gradients(zip(disc_grads, disc_vars))
    return gen_loss, disc_loss


# Start training
for i in range(1, num_steps+1):
    # Prepare Data
    # Get the next batch of synthetic data
    idx = np.random.randint(0, dataset.shape[0], batch_size)
    batch_x = dataset[idx]
    # Generate noise to feed to the generator
    # (TF1 fed float64 noise into a float32 placeholder, i.e. cast to float32)
    z = np.random.uniform(-1., 1., size=[batch_size, noise_dim]).astype(np.float32)

    # Train
    gl, dl = train_step(batch_x, z)
    gl, dl = gl.numpy(), dl.numpy()
    if i % 50 == 0 or i == 1:
        print('Step %i: Generator Loss: %f, Discriminator Loss: %f' % (i, gl, dl))

# Generate a few samples from noise
z = np.random.uniform(-1., 1., size=[4, noise_dim]).astype(np.float32)
g = generator(tf.constant(z), weights, biases).numpy()
print('Generated samples (4x4):')
for s in g:
    print(np.round(s.reshape(4, 4), 2))
