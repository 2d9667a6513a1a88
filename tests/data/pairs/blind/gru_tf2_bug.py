# BUG: reset_after left at the Keras default True (cuDNN variant), TF1 GRUCell is reset_after=False
"""TF2 rewrite of gru_tf1.py with keras.layers.GRU."""
import numpy as np
import tensorflow as tf
import keras

np.random.seed(5)
keras.utils.set_random_seed(5)

N, T, F, H, C = 512, 12, 4, 16, 2
BATCH_SIZE = 32
EPOCHS = 2
LEARNING_RATE = 0.01

X = np.random.randn(N, T, F).astype(np.float32)
y = (X[:, :, 0].sum(axis=1) + 0.5 * X[:, -1, 1] > 0).astype(np.int64)


def gru_bias_initializer(shape, dtype=None):
    # TF1 GRUCell initialises the gate bias (z, r) to 1.0 and the candidate bias to 0.
    bias = np.concatenate([np.ones(2 * H), np.zeros(H)]).astype("float32")
    return tf.cast(tf.broadcast_to(bias, shape), dtype or "float32")


model = keras.Sequential([
    keras.Input(shape=(T, F)),
    keras.layers.GRU(H, activation="tanh", recurrent_activation="sigmoid",
                     bias_initializer=gru_bias_initializer),
    keras.layers.Dense(C),
])
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = keras.optimizers.Adam(learning_rate=LEARNING_RATE, epsilon=1e-8)  # TF1 Adam eps


@tf.function
def train_step(x, labels):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(labels, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))
    return loss, acc


step = 0
for epoch in range(EPOCHS):
    for i in range(0, N, BATCH_SIZE):
        loss_val, acc = train_step(X[i:i + BATCH_SIZE], y[i:i + BATCH_SIZE])
        if step % 4 == 0:
            print("step %3d  loss %.5f  acc %.3f" % (step, float(loss_val), float(acc)))
        step += 1
