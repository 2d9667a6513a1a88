# TF2 / Keras 3 rewrite of gru_contrib_tf1.py (GRU over zero-padded sequences, no masking, Adagrad).
import numpy as np
import tensorflow as tf
import keras

# keras.utils.set_random_seed also reseeds NumPy, so it goes first and np.random.seed(31337) re-creates the TF1 data.
keras.utils.set_random_seed(31337)
np.random.seed(31337)

NUM_SEQS = 900
MAX_LEN = 20
MIN_LEN = 8
INPUT_DIM = 1
STATE_SIZE = 20
NUM_CLASSES = 2
BATCH = 30
NUM_EPOCHS = 3
LR = 0.2

lengths = np.random.randint(MIN_LEN, MAX_LEN + 1, size=NUM_SEQS)
X = np.zeros((NUM_SEQS, MAX_LEN, INPUT_DIM), dtype=np.float32)
for n, L in enumerate(lengths):
    X[n, :L, 0] = np.random.randn(L)
Y = (X[:, :, 0].sum(axis=1) > 0).astype(np.int32)


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
        bias[..., :2 * units] = 1.0
        return keras.ops.convert_to_tensor(bias, dtype=dtype)

    return init


model = keras.Sequential([
    # No Masking layer / mask: TF1 called dynamic_rnn without sequence_length, so the GRU also steps through the zero padding.
    keras.Input(shape=(MAX_LEN, INPUT_DIM)),
    keras.layers.GRU(
        STATE_SIZE,
        reset_after=False,  # TF1 GRUCell applies the reset gate to h before the candidate matmul (Keras' default reset_after=True applies it after)
        kernel_initializer=tf1_gru_kernel(INPUT_DIM, STATE_SIZE),
        recurrent_initializer=tf1_gru_kernel(INPUT_DIM, STATE_SIZE),
        bias_initializer=tf1_gru_bias(STATE_SIZE),
    ),  # a GRU's last output is its final state, which is what TF1 fed to the softmax layer
    # tf.get_variable's default glorot_uniform kernel and the 0.0 bias are Keras Dense defaults; no activation, it is a logit.
    keras.layers.Dense(NUM_CLASSES),
])

model.compile(
    # TF1 AdagradOptimizer: accumulator starts at 0.1 and the update is lr * g / sqrt(acc) with no epsilon; Keras adds epsilon=1e-7 inside the sqrt.
    optimizer=keras.optimizers.Adagrad(learning_rate=LR, initial_accumulator_value=0.1, epsilon=0.0),
    # sparse_softmax_cross_entropy_with_logits on integer labels, mean over the batch.
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=[keras.metrics.SparseCategoricalAccuracy(name="acc")],
)

# TF1 fed batches in order without shuffling; 900 / 30 leaves no partial batch.
model.fit(X, Y, batch_size=BATCH, epochs=NUM_EPOCHS, shuffle=False, verbose=2)

_, final_acc = model.evaluate(X, Y, batch_size=NUM_SEQS, verbose=0)
print("Final train accuracy:", final_acc)
