"""legacy_scripts/tf_gradients.py's regression rewritten for TF2: a GradientTape, the same clipping, a Keras SGD."""
import numpy as np
import tensorflow as tf

data = np.random.RandomState(0).rand(8, 3).astype(np.float32)
w = tf.Variable(tf.zeros([3, 1]))
b = tf.Variable(tf.zeros([1]))
optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ w + b - y))
    grads, _ = tf.clip_by_global_norm(tape.gradient(loss, [w, b]), 5.0)
    optimizer.apply_gradients(zip(grads, [w, b]))
    return loss


for step in range(10):
    train_step(data, data[:, :1])
