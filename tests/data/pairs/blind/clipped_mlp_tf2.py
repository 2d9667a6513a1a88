"""TF2 rewrite of clipped_mlp_tf1.py: SGD with global_clipnorm (== tf.clip_by_global_norm)."""
import numpy as np
import tensorflow as tf
import keras

np.random.seed(3)
keras.utils.set_random_seed(3)  # seeds Python, NumPy and TF (Keras 3 initializers)

N, D, H = 640, 10, 32
BATCH_SIZE = 32
EPOCHS = 2
LEARNING_RATE = 0.05
CLIP_NORM = 1.0

X = np.random.randn(N, D).astype(np.float32)
Y = (10.0 * np.sin(X[:, :1]) + 5.0 * X[:, 1:2] + np.random.randn(N, 1)).astype(np.float32)

model = keras.Sequential([
    keras.Input(shape=(D,)),
    keras.layers.Dense(H, activation="relu"),
    keras.layers.Dense(H, activation="relu"),
    keras.layers.Dense(1),
])
loss_fn = keras.losses.MeanSquaredError()
# global_clipnorm clips the concatenation of all gradients, like tf.clip_by_global_norm
optimizer = keras.optimizers.SGD(learning_rate=LEARNING_RATE, global_clipnorm=CLIP_NORM)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        loss = loss_fn(y, pred)
    grads = tape.gradient(loss, model.trainable_variables)
    global_norm = tf.linalg.global_norm(grads)  # pre-clipping norm, for logging only
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss, global_norm


for epoch in range(EPOCHS):
    for i in range(0, N, BATCH_SIZE):
        loss_val, gn = train_step(X[i:i + BATCH_SIZE], Y[i:i + BATCH_SIZE])
        step = int(optimizer.iterations.numpy())
        if step % 5 == 0:
            print("step %3d  loss %.4f  grad_norm %.3f" % (step, float(loss_val), float(gn)))
