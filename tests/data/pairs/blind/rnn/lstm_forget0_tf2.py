# TF2 / Keras 3 rewrite of lstm_forget0_tf1.py (LSTM with forget_bias=0.0, mean over time, binary logit).
import numpy as np
import tensorflow as tf
import keras

SEED = 2018
# keras.utils.set_random_seed also reseeds NumPy, so it goes first and np.random.seed(SEED) re-creates the TF1 data.
keras.utils.set_random_seed(SEED)
np.random.seed(SEED)

n_samples = 1000
seq_len = 10
n_feat = 1
n_hidden = 24
batch_size = 40
n_epochs = 3
lr = 0.01

X = np.random.uniform(-1.0, 1.0, size=(n_samples, seq_len, n_feat)).astype(np.float32)
Y = (np.sum(X[:, :, 0] > 0, axis=1) > seq_len // 2).astype(np.float32).reshape(-1, 1)

# TF1 LSTMCell draws one glorot_uniform matrix of shape [n_feat + n_hidden, 4 * n_hidden]; reproduce its range for both Keras matrices.
tf1_limit = float(np.sqrt(6.0 / (n_feat + n_hidden + 4 * n_hidden)))

inputs = keras.Input(shape=(seq_len, n_feat))
h = keras.layers.LSTM(
    n_hidden,
    return_sequences=True,  # TF1 averaged the full `outputs` tensor, so every step is needed
    # One initializer object per weight: an unseeded Keras 3 initializer picks its seed once, so sharing one would repeat values.
    kernel_initializer=keras.initializers.RandomUniform(-tf1_limit, tf1_limit),
    recurrent_initializer=keras.initializers.RandomUniform(-tf1_limit, tf1_limit),
    unit_forget_bias=False,  # the TF1 author set forget_bias=0.0, so the forget-gate bias starts at 0 like every other bias
)(inputs)
# tf.reduce_mean(outputs, axis=1): with no mask, GlobalAveragePooling1D is exactly the mean over time.
h = keras.layers.GlobalAveragePooling1D()(h)
# tf.get_variable's default glorot_uniform kernel and the zero bias are Keras Dense defaults; no activation, it is a logit.
logits = keras.layers.Dense(1)(h)
model = keras.Model(inputs, logits)

model.compile(
    # TF1 AdamOptimizer uses epsilon=1e-8 (Keras default is 1e-7).
    optimizer=keras.optimizers.Adam(learning_rate=lr, epsilon=1e-8),
    # sigmoid_cross_entropy_with_logits on raw logits, mean over the batch.
    loss=keras.losses.BinaryCrossentropy(from_logits=True),
    # The model outputs logits, so TF1's `logits > 0` is threshold=0.0, not the default 0.5 on probabilities.
    metrics=[keras.metrics.BinaryAccuracy(name="acc", threshold=0.0)],
)

# TF1 fed batches in order without shuffling; 1000 / 40 leaves no partial batch.
model.fit(X, Y, batch_size=batch_size, epochs=n_epochs, shuffle=False, verbose=2)

test_loss, test_acc = model.evaluate(X, Y, batch_size=n_samples, verbose=0)
print("Full-data loss={:.4f} acc={:.4f}".format(test_loss, test_acc))
