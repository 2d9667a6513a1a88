"""TF2 rewrite of schedule_poly_tf1.py: Keras SGD driven by PolynomialDecay."""
import numpy as np
import tensorflow as tf
import keras

np.random.seed(7)
keras.utils.set_random_seed(7)  # seeds Python, NumPy and TF (Keras 3 initializers)

N, D, H, C = 480, 12, 24, 3
BATCH_SIZE = 32
EPOCHS = 2

X = np.random.randn(N, D).astype(np.float32)
y = np.argmax(X[:, :C] + 0.5 * X[:, C:2 * C], axis=1).astype(np.int64)

model = keras.Sequential([
    keras.Input(shape=(D,)),
    keras.layers.Dense(H, activation="relu"),
    keras.layers.Dense(C),
])
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
# the optimizer's `iterations` counter plays the role of TF1's global_step
lr_schedule = keras.optimizers.schedules.PolynomialDecay(
    initial_learning_rate=0.5, decay_steps=20, end_learning_rate=0.01, power=2.0)
optimizer = keras.optimizers.SGD(learning_rate=lr_schedule)


@tf.function
def train_step(x, labels):
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for epoch in range(EPOCHS):
    for i in range(0, N, BATCH_SIZE):
        step = int(optimizer.iterations.numpy())
        lr = float(lr_schedule(step))
        loss_val = train_step(X[i:i + BATCH_SIZE], y[i:i + BATCH_SIZE])
        if step % 3 == 0:
            print("step %3d  lr %.5f  loss %.5f" % (step, lr, float(loss_val)))
