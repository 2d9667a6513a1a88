"""TF2 rewrite of estimator_tf1.py: Keras model + the same input pipeline + custom loop
(the "Estimator -> Keras" path of TensorFlow's migration guide)."""
import numpy as np
import tensorflow as tf
import keras

np.random.seed(0)
keras.utils.set_random_seed(0)  # seeds Python, NumPy and TF (Keras 3 initializers)

N, D, H = 512, 8, 16
BATCH_SIZE = 32
TRAIN_STEPS = 40
LEARNING_RATE = 0.05

X = np.random.randn(N, D).astype(np.float32)
w_true = np.random.randn(D, 1).astype(np.float32)
Y = (np.tanh(X.dot(w_true)) + 0.05 * np.random.randn(N, 1)).astype(np.float32)


def train_input_fn():
    dataset = tf.data.Dataset.from_tensor_slices(({"x": X}, Y))
    return dataset.repeat().batch(BATCH_SIZE)


model = keras.Sequential([
    keras.Input(shape=(D,)),
    keras.layers.Dense(H, activation="tanh"),
    keras.layers.Dense(1),
])
optimizer = keras.optimizers.SGD(learning_rate=LEARNING_RATE)
loss_fn = keras.losses.MeanSquaredError()


@tf.function
def train_step(features, labels):
    with tf.GradientTape() as tape:
        predictions = model(features["x"], training=True)
        loss = loss_fn(labels, predictions)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for step, (features, labels) in enumerate(train_input_fn().take(TRAIN_STEPS)):
    loss = train_step(features, labels)
    if step % 5 == 0:
        print("loss = %.6f, step = %d" % (float(loss), step))
print("final global step:", int(optimizer.iterations.numpy()))
