"""Two-layer CNN on synthetic 28x28 images (TF 2.x / Keras 3).

Migrated from cnn_pad_tf1.py.
"""
import argparse

import numpy as np
import tensorflow as tf
import keras
from keras import layers

parser = argparse.ArgumentParser()
parser.add_argument('--steps', type=int, default=300)
args = parser.parse_args()

np.random.seed(0)
keras.utils.set_random_seed(0)  # seeds Python, NumPy, TF and Keras

num_samples = 512
num_classes = 10
batch_size = 32
learning_rate = 1e-3

# Synthetic data: each class is a fixed random template plus noise
templates = np.random.rand(num_classes, 28, 28, 1).astype(np.float32)
y_data = np.random.randint(0, num_classes, size=num_samples)
X_data = (templates[y_data] +
          0.5 * np.random.randn(num_samples, 28, 28, 1)).astype(np.float32)
Y_data = np.eye(num_classes, dtype=np.float32)[y_data]

# Same init as the TF1 tutorial helpers: truncated_normal(stddev=0.1), bias 0.1
w_init = keras.initializers.TruncatedNormal(stddev=0.1)
b_init = keras.initializers.Constant(0.1)

model = keras.Sequential([
    keras.Input(shape=(28, 28, 1)),
    layers.Conv2D(32, 5, padding='same', activation='relu',
                  kernel_initializer=w_init, bias_initializer=b_init),
    layers.MaxPooling2D(pool_size=2, strides=2, padding='same'),
    layers.Conv2D(64, 5, padding='same', activation='relu',
                  kernel_initializer=w_init, bias_initializer=b_init),
    layers.MaxPooling2D(pool_size=2, strides=2, padding='same'),
    layers.Flatten(),
    layers.Dense(128, activation='relu',
                 kernel_initializer=w_init, bias_initializer=b_init),
    layers.Dense(num_classes,
                 kernel_initializer=w_init, bias_initializer=b_init),
])

loss_fn = keras.losses.CategoricalCrossentropy(from_logits=True)
optimizer = keras.optimizers.Adam(learning_rate=learning_rate, epsilon=1e-8)


@tf.function
def train_step(images, labels):
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = loss_fn(labels, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


steps_per_epoch = num_samples // batch_size

perm = np.random.permutation(num_samples)
for i in range(args.steps):
    j = i % steps_per_epoch
    if j == 0 and i > 0:
        perm = np.random.permutation(num_samples)
    idx = perm[j * batch_size:(j + 1) * batch_size]
    loss = train_step(X_data[idx], Y_data[idx])
    if i % 50 == 0:
        print('step %d, training loss %g' % (i, float(loss)))

preds = np.argmax(model(X_data, training=False).numpy(), axis=1)
print('training accuracy %g' % np.mean(preds == y_data))
