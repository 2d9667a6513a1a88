"""TF2 rewrite of lstm_tf1.py with keras.layers.LSTM.

Layout notes (what a weight converter must do; the trained function is the same):
  * TF1 LSTMCell has ONE kernel of shape [F + H, 4H] applied to concat([x, h]); Keras splits
    it into kernel [F, 4H] (rows :F) and recurrent_kernel [H, 4H] (rows F:).
  * Gate column order: TF1 is [i | j(candidate) | f | o], Keras is [i | f | c | o].
  * TF1 adds forget_bias=1.0 as a constant inside sigmoid(f + 1.0) and initialises the bias
    to 0. Keras has no such constant; unit_forget_bias=True instead INITIALISES the forget
    slice of the trainable bias to 1.0. Since d(loss)/d(bias) is the same in both, the two
    stay equivalent under training with keras_bias_f = tf1_bias_f + 1.0.
  * recurrent_activation="sigmoid" (Keras 3 default; Keras < 2.3 used hard_sigmoid)."""
import numpy as np
import tensorflow as tf
import keras

np.random.seed(11)
keras.utils.set_random_seed(11)

N, T, F, H = 512, 10, 3, 16
BATCH_SIZE = 32
EPOCHS = 2
LEARNING_RATE = 0.01

X = np.random.randn(N, T, F).astype(np.float32)
weights = 0.8 ** np.arange(T)[::-1]
Y = (X[:, :, 0].dot(weights) * 0.3 + X[:, -1, 1] * X[:, -1, 2]).astype(np.float32)[:, None]

model = keras.Sequential([
    keras.Input(shape=(T, F)),
    keras.layers.LSTM(H, activation="tanh", recurrent_activation="sigmoid",
                      unit_forget_bias=True),  # stands in for TF1 forget_bias=1.0
    keras.layers.Dense(1),
])
loss_fn = keras.losses.MeanSquaredError()
optimizer = keras.optimizers.Adam(learning_rate=LEARNING_RATE, epsilon=1e-8)  # TF1 Adam eps


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


step = 0
for epoch in range(EPOCHS):
    for i in range(0, N, BATCH_SIZE):
        loss_val = train_step(X[i:i + BATCH_SIZE], Y[i:i + BATCH_SIZE])
        if step % 4 == 0:
            print("step %3d  mse %.5f" % (step, float(loss_val)))
        step += 1
