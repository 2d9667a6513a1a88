"""The built-in cases, declared once: the CLI's choices and the tests both read `CASES`."""

from __future__ import annotations

import functools

import numpy as np

import eager_models.cnn
import eager_models.control_flow
import eager_models.custom_op
import eager_models.elementwise
import eager_models.keras_lstm
import eager_models.linear
import eager_models.offset
import eager_models.matmul
import eager_models.mlp
import eager_models.resnet
import eager_models.rnn
import legacy_graphs.cnn
import legacy_graphs.control_flow
import legacy_graphs.custom_op
import legacy_graphs.elementwise
import legacy_graphs.linear
import legacy_graphs.offset
import legacy_graphs.lstm_cell
import legacy_graphs.matmul
import legacy_graphs.mlp
import legacy_graphs.resnet
import legacy_graphs.rnn
from tfcompare.core.cases import Case, CaseError, InputSpec

__all__ = ["CASES", "DEBUG_CASES", "register", "rnn_batch"]


def _normal(rng, shape, scale):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _linear_weights(rng):
    return {"w": _normal(rng, (20, 1), 0.3), "b": np.zeros((1,), np.float32)}


def _linear_batch(rng, n):
    x = _normal(rng, (n, 20), 1.0)
    return {"x": x, "y": (x[:, :1] + 0.5 * x[:, 1:2] > 0).astype(np.float32)}


def _mlp_weights(rng):
    sizes = [64, 128, 128, 10]
    out = {}
    for i in range(3):
        out[f"w{i}"] = _normal(rng, sizes[i:i + 2], np.sqrt(2.0 / sizes[i]))
        out[f"b{i}"] = np.zeros(sizes[i + 1:i + 2], np.float32)
    return out


def _mlp_batch(rng, n):
    labels = rng.integers(0, 10, size=n)
    return {"x": _normal(rng, (n, 64), 1.0), "y": np.eye(10, dtype=np.float32)[labels]}


def _elementwise_weights(rng):
    return {"scale": (0.9 + 0.1 * rng.random(32)).astype(np.float32), "shift": _normal(rng, (32,), 0.05)}


def _elementwise_batch(rng, n):
    return {"x": _normal(rng, (n, 32), 1.0), "target": _normal(rng, (n, 32), 0.5)}


def _matmul_weights(rng):
    return {"w": _normal(rng, (1024, 1024), 1.0 / 32)}


def _matmul_batch(rng, n):
    return {"x": _normal(rng, (n, 1024), 1.0), "target": _normal(rng, (n, 1024), 1.0)}


def _onehot(rng, n):
    return np.eye(10, dtype=np.float32)[rng.integers(0, 10, size=n)]


def _he(rng, shape):
    fan_in = int(np.prod(shape[:-1]))
    return _normal(rng, shape, np.sqrt(2.0 / fan_in))


def _cnn_weights(rng):
    return {"conv0": _he(rng, (3, 3, 3, 8)), "bias0": np.zeros(8, np.float32),
            "conv1": _he(rng, (3, 3, 8, 16)), "bias1": np.zeros(16, np.float32),
            "dense": _he(rng, (256, 10)), "dense_bias": np.zeros(10, np.float32)}


def _cnn_batch(rng, n):
    return {"x": _normal(rng, (n, 16, 16, 3), 1.0), "y": _onehot(rng, n)}


def _resnet_weights(rng, depth):
    width = legacy_graphs.resnet.WIDTH
    out = {"stem": _he(rng, (3, 3, 3, width))}
    for b in range(depth):
        for j in range(2):
            out[f"b{b}c{j}"] = _he(rng, (3, 3, width, width))
            out[f"b{b}g{j}"] = np.ones(width, np.float32)
            out[f"b{b}o{j}"] = np.zeros(width, np.float32)
    out["head"] = _he(rng, (width, 10))
    out["head_bias"] = np.zeros(10, np.float32)
    return out


def _resnet_batch(rng, n):
    return {"x": _normal(rng, (n, 32, 32, 3), 1.0), "y": _onehot(rng, n)}


RNN_STEPS, RNN_FEATURES = 12, 8


def _rnn_weights(rng):
    hidden = legacy_graphs.rnn.HIDDEN
    return {"w": _normal(rng, (RNN_FEATURES + hidden, 4 * hidden), 0.3), "b": np.zeros(4 * hidden, np.float32),
            "head": _normal(rng, (hidden, 1), 0.3), "head_bias": np.zeros(1, np.float32)}


def rnn_batch(rng, n, steps=RNN_STEPS):
    """Padded sequences of mixed lengths (1..steps) in one batch; values past a length are noise."""
    lengths = rng.integers(1, steps + 1, size=n).astype(np.int32)
    lengths[0] = steps  # at least one full-length sequence
    return {"x": _normal(rng, (n, steps, RNN_FEATURES), 1.0), "lengths": lengths, "y": _normal(rng, (n, 1), 1.0)}


def _control_weights(rng):
    return {"w": _normal(rng, (16, 16), 0.4 / 4), "scale": (1.0 + 0.1 * rng.standard_normal(16)).astype(np.float32)}


def _control_batch(rng, n):
    return {"x": (0.5 + _normal(rng, (n, 16), 0.5)).astype(np.float32), "y": _normal(rng, (n, 16), 0.5)}


CASES: dict[str, Case] = {}


def register(case: Case, *, replace: bool = False) -> Case:
    """Add a case to the registry (a user's `--cases-file` cases come in through here)."""
    if not isinstance(case, Case):
        raise CaseError(f"expected a Case, got {type(case).__name__}")
    if case.name in CASES and not replace and CASES[case.name] is not case:
        raise CaseError(f"case {case.name!r} is already registered")
    CASES[case.name] = case
    return case





register(Case(
    name="linear",
    description="logistic regression on w·x+b: the textbook static-vs-dynamic example",
    inputs=(InputSpec("x", (20,)), InputSpec("y", (1,))),
    init_weights=_linear_weights, make_batch=_linear_batch,
    build_graph=legacy_graphs.linear.build, make_model=eager_models.linear.Linear,
    default_batch_size=64, features=("x",),
))
register(Case(
    name="mlp",
    description="64→128→128→10 ReLU MLP, softmax cross-entropy, momentum SGD",
    inputs=(InputSpec("x", (64,)), InputSpec("y", (10,))),
    init_weights=_mlp_weights, make_batch=_mlp_batch,
    build_graph=legacy_graphs.mlp.build, make_model=eager_models.mlp.MLP,
    default_batch_size=64, features=("x",),
))
register(Case(
    name="elementwise",
    description="a chain of 120 element-wise ops on a 16×32 tensor: dispatch-bound",
    inputs=(InputSpec("x", (32,)), InputSpec("target", (32,))),
    init_weights=_elementwise_weights, make_batch=_elementwise_batch,
    build_graph=legacy_graphs.elementwise.build, make_model=eager_models.elementwise.Elementwise,
    default_batch_size=16, features=("x",),
))
register(Case(
    name="matmul",
    description="one 256×1024 @ 1024×1024 matrix multiply and its gradient: compute-bound",
    inputs=(InputSpec("x", (1024,)), InputSpec("target", (1024,))),
    init_weights=_matmul_weights, make_batch=_matmul_batch,
    build_graph=legacy_graphs.matmul.build, make_model=eager_models.matmul.Matmul,
    default_batch_size=256, features=("x",),
))
register(Case(
    name="cnn",
    description="conv→bias→relu→pool twice, then dense: Grappler fuses conv+bias+relu",
    inputs=(InputSpec("x", (16, 16, 3)), InputSpec("y", (10,))),
    init_weights=_cnn_weights, make_batch=_cnn_batch,
    build_graph=legacy_graphs.cnn.build, make_model=eager_models.cnn.CNN,
    default_batch_size=16, features=("x",),
))


# Gradients w.r.t. a convolution followed by batch norm are small differences of large sums over the
# batch; XLA fuses and reorders those sums, so their float32 error reaches ~3e-4 (measured), while the
# forward pass, losses and weights still agree to ~1e-6.
_BN_XLA_TOLERANCE = (1e-3, 1e-3, "XLA reorders batch-norm gradient sums")


def _resnet(depth: int = 2) -> Case:
    return Case(
        name="resnet",
        description=f"residual network for 32×32×3 images, {depth} blocks (option depth), batch norm in training mode",
        inputs=(InputSpec("x", (32, 32, 3)), InputSpec("y", (10,))),
        init_weights=functools.partial(_resnet_weights, depth=depth), make_batch=_resnet_batch,
        build_graph=functools.partial(legacy_graphs.resnet.build, depth=depth),
        make_model=functools.partial(eager_models.resnet.ResNet, depth=depth),
        default_batch_size=16, features=("x",), options={"depth": depth}, configure=_resnet,
        option_limits={"depth": 64},  # 64 blocks: ~0.6 M weights, a few seconds to build; far past any claim
        tolerances={m: _BN_XLA_TOLERANCE for m in ("tf2-xla", "tf2-xla-loop")},
        unsupported_modes={m: "batch norm in training mode normalises each replica's shard by its own statistics, "
                              "so N replicas do not compute the whole batch's step (SyncBatchNormalization would)"
                           for m in ("tf1-ps", "tf2-mirrored", "tf2-multiworker")},
    )


register(_resnet())
register(Case(
    name="rnn",
    description="LSTM over padded variable-length sequences (mask by length); TF1 while_loop vs AutoGraph for",
    inputs=(InputSpec("x", (RNN_STEPS, RNN_FEATURES), varying=(0,)), InputSpec("lengths", (), "int32"),
            InputSpec("y", (1,))),
    init_weights=_rnn_weights, make_batch=rnn_batch,
    make_varied_batch=lambda rng, n, length: rnn_batch(rng, n, steps=length),
    build_graph=legacy_graphs.rnn.build, make_model=eager_models.rnn.RNN,
    default_batch_size=16, features=("x", "lengths"),
))
register(Case(
    name="control_flow",
    description="solver looping until a tensor tolerance, then a branch on a tensor: while_loop/cond vs Python",
    inputs=(InputSpec("x", (16,)), InputSpec("y", (16,))),
    init_weights=_control_weights, make_batch=_control_batch,
    build_graph=legacy_graphs.control_flow.build, make_model=eager_models.control_flow.ControlFlow,
    default_batch_size=16, features=("x",),
))


_LSTM_STEPS, _LSTM_FEATURES, _LSTM_HIDDEN, _LSTM_CLASSES, _LSTM_FORGET_BIAS = 12, 6, 8, 4, 1.0


def _lstm_weights(rng):
    hidden, classes = _LSTM_HIDDEN, _LSTM_CLASSES
    return {"lstm/kernel": _normal(rng, (_LSTM_FEATURES + hidden, 4 * hidden), 0.3),
            "lstm/bias": np.zeros((4 * hidden,), np.float32),
            "out/kernel": _normal(rng, (hidden, classes), 0.4), "out/bias": np.zeros((classes,), np.float32)}


def _lstm_batch(rng, n):
    return {"x": _normal(rng, (n, _LSTM_STEPS, _LSTM_FEATURES), 1.0),
            "label": rng.integers(0, _LSTM_CLASSES, size=n).astype(np.int32)}


register(Case(
    name="keras-lstm",
    description="keras.layers.LSTM + Keras Adam vs a TF1 LSTMCell-layout graph: other weight layout, one-hot vs "
                "integer labels, keep_prob",
    inputs=(InputSpec("x", (_LSTM_STEPS, _LSTM_FEATURES)), InputSpec("label", (), "int32")),
    init_weights=_lstm_weights, make_batch=_lstm_batch,
    build_graph=functools.partial(legacy_graphs.lstm_cell.build, hidden=_LSTM_HIDDEN, classes=_LSTM_CLASSES,
                                  forget_bias=_LSTM_FORGET_BIAS),
    make_model=eager_models.keras_lstm.make_model, tf1_batch=eager_models.keras_lstm.keep_everything,
    tf2_batch=functools.partial(eager_models.keras_lstm.one_hot_labels, classes=_LSTM_CLASSES),
    tf2_layout=eager_models.keras_lstm.layout(_LSTM_FORGET_BIAS), default_batch_size=16, features=("x",),
    unsupported_modes={"tf2-partial": "a KerasStep brings its own train_step (forward, loss, tape, Keras "
                                      "apply_gradients): there is no separate update to run eagerly"},
))


def _custom_op_weights(rng):
    return {"w1": _normal(rng, (16, 16), 0.4), "w2": _normal(rng, (16, 1), 0.4)}


def _custom_op_batch(rng, n):
    x = _normal(rng, (n, 16), 1.0)
    return {"x": x, "y": np.tanh(x[:, :1] - x[:, 1:2]).astype(np.float32)}


_PY_OP_NO_XLA = "tf.py_function runs Python, which XLA cannot compile (no XLA kernel for EagerPyFunc)"
for _variant, _how in (("tf", "TensorFlow ops"), ("python", "tf.py_function / tf1.py_func"),
                       ("gradient", "tf.custom_gradient with a hand-written gradient")):
    _key = {"tf": "tf-ops", "python": "python", "gradient": "custom-gradient"}[_variant]
    register(Case(
        name=f"custom-op-{_variant}",
        description=f"softsign operator written as {_how}, in a 16-16-1 network",
        inputs=(InputSpec("x", (16,)), InputSpec("y", (1,))),
        init_weights=_custom_op_weights, make_batch=_custom_op_batch,
        build_graph=functools.partial(legacy_graphs.custom_op.build, variant=_key),
        make_model=eager_models.custom_op.model_for(_key),
        default_batch_size=32, features=("x",),
        unsupported_modes={m: _PY_OP_NO_XLA for m in ("tf2-xla", "tf2-xla-loop")} if _variant == "python" else {},
    ))


def _offset_batch(rng, n):
    return {"x": _normal(rng, (n, 4), 1.0), "y": _normal(rng, (n, 2), 1.0)}


# Cases for `tfcompare debug`: each differs between modes on purpose, so `tfcompare run` leaves them out unless
# named with --case.
_OFFSET = dict(inputs=(InputSpec("x", (4,)), InputSpec("y", (2,))), init_weights=lambda rng: {"w": _normal(rng, (4, 2), 1.0)},
               make_batch=_offset_batch, default_batch_size=16, features=("x",))
DEBUG_CASES = {c.name: c for c in [
    Case(name="offset", description="(x @ w + 1e8) - 1e8: Grappler's constant folding makes graphs exact, eager "
                                    "rounds it to 0",
         build_graph=legacy_graphs.offset.build, make_model=eager_models.offset.Offset, **_OFFSET),
    Case(name="offset-log", description="log of the same value squared: eager meets log(0) = -inf, graphs stay finite",
         build_graph=functools.partial(legacy_graphs.offset.build, log=True), make_model=eager_models.offset.LogOffset,
         **_OFFSET),
]}
