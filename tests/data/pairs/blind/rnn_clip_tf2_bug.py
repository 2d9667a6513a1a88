# PLANTED MISTAKE: gradient clipping migrated as Adam(clipnorm=5.0), which clips
# each variable's gradient to norm 5.0 separately, instead of TF1's
# tf.clip_by_global_norm over all gradients jointly (should be global_clipnorm=5.0).
"""LSTM sequence classifier with gradient clipping (TF 2.x / Keras 3).

Migrated from rnn_clip_tf1.py.
"""
import argparse

import numpy as np
import tensorflow as tf
import keras

parser = argparse.ArgumentParser()
parser.add_argument('--steps', type=int, default=400)
args = parser.parse_args()

np.random.seed(42)
keras.utils.set_random_seed(42)  # seeds Python, NumPy, TF and Keras

# Hyperparameters
num_samples = 256
seq_len = 12
num_features = 8
num_classes = 4
num_hidden = 32
batch_size = 32
learning_rate = 0.001
clip_norm = 5.0

# Synthetic data: label depends on which feature has the largest mean over time
X_data = np.random.randn(num_samples, seq_len, num_features).astype(np.float32)
y_data = np.argmax(X_data[:, :, :num_classes].mean(axis=1), axis=1).astype(np.int64)

# TF1's LSTMCell adds forget_bias=1.0 to a zero-initialised bias; Keras'
# unit_forget_bias=True initialises the forget-gate bias to 1.0 instead.
model = keras.Sequential([
    keras.Input(shape=(seq_len, num_features)),
    keras.layers.LSTM(num_hidden, unit_forget_bias=True),  # last output only
    keras.layers.Dense(num_classes),
])

loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
# TF1 AdamOptimizer defaults: beta1=0.9, beta2=0.999, epsilon=1e-8
optimizer = keras.optimizers.Adam(learning_rate=learning_rate, epsilon=1e-8,
                                  clipnorm=clip_norm)


@tf.function
def train_step(batch_x, batch_y):
    with tf.GradientTape() as tape:
        logits = model(batch_x, training=True)
        loss = loss_fn(batch_y, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    global_norm = tf.linalg.global_norm(grads)
    # clipping is handled by the optimizer
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss, global_norm


steps_per_epoch = num_samples // batch_size

perm = np.random.permutation(num_samples)
for step in range(args.steps):
    i = step % steps_per_epoch
    if i == 0 and step > 0:
        perm = np.random.permutation(num_samples)
    idx = perm[i * batch_size:(i + 1) * batch_size]
    batch_x, batch_y = X_data[idx], y_data[idx]
    l, gn = train_step(batch_x, batch_y)
    if step % 50 == 0:
        print('Step %d, loss %.4f, grad norm %.4f' % (step, float(l), float(gn)))

preds = np.argmax(model(X_data, training=False).numpy(), axis=1)
print('Final training accuracy: %.4f' % np.mean(preds == y_data))
