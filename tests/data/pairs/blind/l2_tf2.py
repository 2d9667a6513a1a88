"""TF2 rewrite of l2_tf1.py: the same tf.nn.l2_loss weight-decay term (sum(w**2) / 2)
added to the loss inside the GradientTape."""
import numpy as np
import tensorflow as tf
import keras

np.random.seed(21)
keras.utils.set_random_seed(21)

N, D, H, C = 512, 20, 64, 5
BATCH_SIZE = 64
EPOCHS = 4
LEARNING_RATE = 0.1
WEIGHT_DECAY = 5e-3

X = np.random.randn(N, D).astype(np.float32)
y = np.random.randint(0, C, size=N).astype(np.int64)
X[np.arange(N), y] += 1.5

hidden = keras.layers.Dense(H, activation="relu")
out = keras.layers.Dense(C)
model = keras.Sequential([keras.Input(shape=(D,)), hidden, out])
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = keras.optimizers.SGD(learning_rate=LEARNING_RATE)


@tf.function
def train_step(x, labels):
    with tf.GradientTape() as tape:
        xent = loss_fn(labels, model(x, training=True))
        l2_term = WEIGHT_DECAY * (tf.nn.l2_loss(hidden.kernel) + tf.nn.l2_loss(out.kernel))
        loss = xent + l2_term
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss, xent, l2_term


step = 0
for epoch in range(EPOCHS):
    for i in range(0, N, BATCH_SIZE):
        loss_val, xent_val, l2_val = train_step(X[i:i + BATCH_SIZE], y[i:i + BATCH_SIZE])
        if step % 4 == 0:
            print("step %3d  loss %.5f  xent %.5f  l2 %.5f"
                  % (step, float(loss_val), float(xent_val), float(l2_val)))
        step += 1
