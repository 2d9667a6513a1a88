"""The TF2 rewrite of `legacy_graphs.lstm_cell` as written today: `keras.layers.LSTM` in a `keras.Sequential`,
Keras's Adam, one-hot labels into `CategoricalCrossentropy`, no adapter code beyond the weight layout.

Keras stores an LSTM as kernel `[features, 4 * hidden]`, recurrent kernel `[hidden, 4 * hidden]` and bias, gates
in the order i, f, c, o, and adds no forget bias in the cell (its initializer puts the 1.0 in the bias instead).
`layout(forget_bias)` converts TF1's fused weights to that and back, so a TF1 checkpoint's values load into the
Keras model. The sizes come from the weights (the case declares them, see `tfcompare.registry`), so this model
does not lean on its TF1 twin.
"""

import numpy as np

from tfcompare import KerasStep, WeightLayout

_TF1_TO_KERAS = (0, 2, 1, 3)  # TF1 gates i, j, f, o; Keras's i, f, c(=j), o
_LSTM_CELL_FORGET_BIAS = 1.0  # tf.compat.v1.nn.rnn_cell.LSTMCell's default


def _gates(a: np.ndarray, order) -> np.ndarray:
    blocks = np.split(a, 4, axis=-1)
    return np.concatenate([blocks[k] for k in order], axis=-1)


def _hidden(bias) -> int:
    return int(np.shape(bias)[-1]) // 4


def to_keras(w: dict, forget_bias: float = _LSTM_CELL_FORGET_BIAS) -> dict:
    kernel = _gates(w["lstm/kernel"], _TF1_TO_KERAS)
    bias = _gates(w["lstm/bias"], _TF1_TO_KERAS).copy()
    hidden = _hidden(bias)
    bias[hidden:2 * hidden] += forget_bias  # f is Keras's second gate
    features = kernel.shape[0] - hidden
    return {"lstm/kernel": kernel[:features], "lstm/recurrent_kernel": kernel[features:], "lstm/bias": bias,
            "out/kernel": w["out/kernel"], "out/bias": w["out/bias"]}


def to_tf1(w: dict, forget_bias: float = _LSTM_CELL_FORGET_BIAS) -> dict:
    bias = np.array(w["lstm/bias"], copy=True)
    hidden = _hidden(bias)
    bias[hidden:2 * hidden] -= forget_bias
    kernel = np.concatenate([w["lstm/kernel"], w["lstm/recurrent_kernel"]], axis=0)
    return {"lstm/kernel": _gates(kernel, _TF1_TO_KERAS), "lstm/bias": _gates(bias, _TF1_TO_KERAS),
            "out/kernel": w["out/kernel"], "out/bias": w["out/bias"]}


def layout(forget_bias: float = _LSTM_CELL_FORGET_BIAS) -> WeightLayout:
    """TF1's fused LSTM weights <-> Keras's, for a TF1 cell that adds `forget_bias` at run time."""
    return WeightLayout(to_tf2=lambda w: to_keras(w, forget_bias), to_tf1=lambda w: to_tf1(w, forget_bias))


def one_hot_labels(batch: dict, classes: int) -> dict:
    """The Keras side's labels: one-hot rows instead of TF1's integer class ids."""
    return {"x": batch["x"], "onehot": np.eye(classes, dtype=np.float32)[batch["label"]]}


def keep_everything(batch: dict) -> dict:
    """The TF1 side's dropout placeholder, fed 1.0 as TF1 code does outside training-time dropout."""
    return {**batch, "keep_prob": np.float32(1.0)}


def make_model(weights: dict) -> KerasStep:
    import keras  # only this case needs Keras: processes that load the registry for other cases skip its import

    hidden, classes = weights["out/kernel"].shape
    features = weights["lstm/kernel"].shape[0]
    model = keras.Sequential([keras.Input((None, features)), keras.layers.LSTM(hidden), keras.layers.Dense(classes)])
    return KerasStep(model, keras.optimizers.Adam(0.01, epsilon=1e-8),
                     keras.losses.CategoricalCrossentropy(from_logits=True), weights, features="x", target="onehot")
