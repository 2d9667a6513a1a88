"""A TF2 tutorial-style custom training loop (Keras 3 model, optimizer, metric as globals). No hazards."""
import numpy as np
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
loss_fn = keras.losses.MeanSquaredError()
train_loss = keras.metrics.Mean()


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    train_loss.update_state(loss)
    return tf.add(loss, 0.0)


x = np.random.default_rng(0).standard_normal((64, 8)).astype("float32")
y = x.sum(axis=1, keepdims=True)
for epoch in range(3):
    train_loss.reset_state()
    for i in range(0, 64, 16):
        train_step(tf.constant(x[i:i + 16]), tf.constant(y[i:i + 16]))
