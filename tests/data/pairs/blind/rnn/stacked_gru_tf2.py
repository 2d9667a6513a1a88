# TF2 / Keras 3 rewrite of stacked_gru_tf1.py (2-layer GRU regression, plain SGD, custom train step).
import numpy as np
import tensorflow as tf
import keras

# keras.utils.set_random_seed also reseeds NumPy, so it goes first and np.random.seed(7) re-creates the TF1 data and permutations.
keras.utils.set_random_seed(7)
np.random.seed(7)

N_SAMPLES = 800
SEQ_LEN = 12
N_FEATURES = 3
HIDDEN = 16
BATCH_SIZE = 32
EPOCHS = 3
LEARNING_RATE = 0.1

X_data = np.random.randn(N_SAMPLES, SEQ_LEN, N_FEATURES).astype(np.float32)
y_data = (np.mean(X_data[:, :, 0] * X_data[:, :, 1], axis=1) +
          0.5 * X_data[:, -1, 2]).reshape(-1, 1).astype(np.float32)


def tf1_gru_kernel(fan_in, units):
    """Initializer matching TF1 GRUCell: glorot_uniform over [fan_in + units, 2 * units] for the gates and [fan_in + units, units] for the candidate."""
    gate_limit = float(np.sqrt(6.0 / (fan_in + units + 2 * units)))
    cand_limit = float(np.sqrt(6.0 / (fan_in + units + units)))

    def init(shape, dtype=None):
        rows = tuple(shape[:-1])
        gates = keras.random.uniform(rows + (2 * units,), -gate_limit, gate_limit, dtype=dtype)
        cand = keras.random.uniform(rows + (units,), -cand_limit, cand_limit, dtype=dtype)
        return keras.ops.concatenate([gates, cand], axis=-1)

    return init


def tf1_gru_bias(units):
    """Initializer matching TF1 GRUCell: gate bias (Keras z and r columns) 1.0, candidate bias 0.0."""

    def init(shape, dtype=None):
        bias = np.zeros(shape, dtype="float32")
        if len(shape) == 2:  # reset_after=True keeps separate input/recurrent bias rows; TF1 has one bias, put it in the input row
            bias[0, :2 * units] = 1.0
        else:
            bias[:2 * units] = 1.0
        return keras.ops.convert_to_tensor(bias, dtype=dtype)

    return init


inputs = keras.Input(shape=(SEQ_LEN, N_FEATURES))
# reset_after=False: TF1 GRUCell applies the reset gate to h before the candidate matmul (Keras' default reset_after=True applies it after).
x = keras.layers.GRU(HIDDEN, return_sequences=True, reset_after=False, kernel_initializer=tf1_gru_kernel(N_FEATURES, HIDDEN), recurrent_initializer=tf1_gru_kernel(N_FEATURES, HIDDEN), bias_initializer=tf1_gru_bias(HIDDEN))(inputs)
# Second layer of the MultiRNNCell: its input is the first layer's output, so fan_in is HIDDEN; it needs reset_after=False too.
x = keras.layers.GRU(HIDDEN, reset_after=False, kernel_initializer=tf1_gru_kernel(HIDDEN, HIDDEN), recurrent_initializer=tf1_gru_kernel(HIDDEN, HIDDEN), bias_initializer=tf1_gru_bias(HIDDEN))(x)
# tf.layers.dense defaults (glorot_uniform kernel, zero bias) are the same as keras.layers.Dense.
outputs = keras.layers.Dense(1)(x)
model = keras.Model(inputs, outputs)

# tf.train.GradientDescentOptimizer == keras SGD without momentum.
optimizer = keras.optimizers.SGD(learning_rate=LEARNING_RATE, momentum=0.0)
optimizer.build(model.trainable_variables)
# tf.reduce_mean(tf.square(pred - y)) over a [batch, 1] target is exactly Keras MSE with the default mean reduction.
loss_fn = keras.losses.MeanSquaredError()


@tf.function
def train_step(xb, yb):
    with tf.GradientTape() as tape:
        pred = model(xb, training=True)
        loss = loss_fn(yb, pred)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


n_batches = N_SAMPLES // BATCH_SIZE  # like TF1, drop the last partial batch (800 = 25 * 32 leaves none anyway)

for epoch in range(EPOCHS):
    # Same np.random.permutation per epoch as the TF1 feed_dict loop.
    perm = np.random.permutation(N_SAMPLES)
    epoch_loss = 0.0
    for b in range(n_batches):
        idx = perm[b * BATCH_SIZE:(b + 1) * BATCH_SIZE]
        epoch_loss += float(train_step(X_data[idx], y_data[idx]))
    print("epoch %d  train mse %.5f" % (epoch + 1, epoch_loss / n_batches))

full_mse = float(loss_fn(y_data, model(X_data, training=False)))
print("final mse on all data: %.5f" % full_mse)
