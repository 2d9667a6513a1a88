"""TF1 calls that build many ops for one idea, recorded as the script makes them so each is written back as one
TF2 call: dropout (keep_prob -> rate), the cross-entropies, exponential learning-rate decay, static_rnn /
dynamic_rnn with a plain LSTM or GRU cell (one call of a helper written into the script), and the streaming
`tf.metrics.accuracy` (a `tf.keras.metrics.Accuracy` the model holds: the same running total and count).

The ops such a call makes (dropout's random mask, the decay's `Pow`) are read as a group: the translator stops
at the group's inputs and writes the group's TF2 call instead of the ops inside it.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from tfcompare.core.graphs import static_value
from tfcompare.scripts.convert.cell_kinds import HELPERS, cell_kind, layer_call

__all__ = ["Group", "install", "keras_loss", "STREAMING"]

# TF1's streaming metrics (value, update_op over local total and count) -> the Keras metric keeping the same state
STREAMING = {"accuracy": "tf.keras.metrics.Accuracy()", "rmse": "tf.keras.metrics.RootMeanSquaredError()",
             "mean_squared": "tf.keras.metrics.MeanSquaredError()",
             "mean_absolute": "tf.keras.metrics.MeanAbsoluteError()"}
_XENT = {"softmax_xent": "softmax_cross_entropy_with_logits", "sparse_xent": "sparse_softmax_cross_entropy_with_logits",
         "sigmoid_xent": "sigmoid_cross_entropy_with_logits"}


# a mean over a cross-entropy's examples, as the Keras loss that computes it (from the logits, a mean over the batch)
_KERAS_LOSSES = {"softmax_xent": "CategoricalCrossentropy", "sparse_xent": "SparseCategoricalCrossentropy",
                 "sigmoid_xent": "BinaryCrossentropy", "mse": "MeanSquaredError"}
_XENT_OPS = {"SoftmaxCrossEntropyWithLogits": "softmax_xent", "SparseSoftmaxCrossEntropyWithLogits": "sparse_xent"}


def _keras_loss_call(kind: str, labels: str, logits: str) -> str:
    return f"tf.keras.losses.{_KERAS_LOSSES[kind]}({'' if kind == 'mse' else 'from_logits=True'})({labels}, {logits})"


def keras_loss(tr, mean) -> str | None:
    """`tf.keras.losses.CategoricalCrossentropy(from_logits=True)(labels, logits)` for a `Mean` op over every axis
    of a cross-entropy's per-example losses (`tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(...))`), or
    None: another reduction, or per-example losses the script names or reads elsewhere (then op by op)."""
    x, axes = mean.inputs[0], mean.inputs[1]
    every = tr.constant(axes)
    if mean.get_attr("keep_dims") or x.shape.rank is None or (
            axes.op.type != "Range" and (every is None or sorted(np.atleast_1d(every).tolist()) != list(
                range(x.shape.rank)))):
        return None
    if x.name in tr.names or tr._consumers.get(x.name, 0) > 1:
        return None
    group = tr.groups.get(x.name)
    if group is not None and group.kind in _KERAS_LOSSES and not group.params.get("mean"):
        labels, logits = group.inputs
        kind = group.kind
    elif group is None and x.op.type in _XENT_OPS and x.value_index == 0:
        logits, labels = x.op.inputs[0], x.op.inputs[1]
        kind = _XENT_OPS[x.op.type]
    else:
        return None
    if kind == "sigmoid_xent" and x.shape.rank != 2:  # Keras averages over the last axis, then the batch
        return None
    return _keras_loss_call(kind, tr.value(labels), tr.value(logits))


@dataclasses.dataclass
class Group:
    kind: str  # dropout | softmax_xent | sparse_xent | sigmoid_xent | mse | lstm | gru | stack | a STREAMING metric
    op: object  # the output op: its TF1 line is the group's
    inputs: list  # the tensors the TF2 call reads
    outputs_ops: set
    params: dict = dataclasses.field(default_factory=dict)

    @property
    def stem(self) -> str:
        return {"dropout": "drop", "lstm": "lstm", "gru": "gru", "stack": "rnn", "accuracy": "acc", "mse": "mse",
                "rmse": "rmse", "mean_squared": "mse", "mean_absolute": "mae"}.get(self.kind, "xent")

    def translate(self, tr, t) -> str:
        if self.kind in HELPERS or self.kind == "stack":
            return self._rnn(tr, t)
        if self.kind in STREAMING:  # the update op: update, then the running value; the value op: read it
            metric = tr.metric(self.op, self.params["scope"], STREAMING[self.kind])
            if t.name != self.params["update"]:
                return f"{metric}.result()"
            # Keras needs a known rank (tf.squeeze of a [None] placeholder has none): as a vector, the same mean
            labels, predictions = (tr.value(x) if x.shape.rank is not None else f"tf.reshape({tr.value(x)}, [-1])"
                                   for x in self.inputs)
            return f"{metric}({labels}, {predictions})"
        if self.kind == "dropout":
            x, keep = self.inputs
            if keep.name in tr.flags:  # the fed keep_prob read as `training`: dropout only when training
                flag, value = tr.flags[keep.name]
                kept = tr.value(x)
                # tf.cond, not a Python `if`: the flag is a tensor of the step's signature, and the code must not
                # depend on AutoGraph seeing its source
                pred = f"tf.convert_to_tensor({flag})" if tr.python_flags else flag  # tf.cond takes no Python bool
                return f"tf.cond({pred}, lambda: tf.nn.dropout({kept}, rate=1 - {value}), lambda: {kept})"
            keep_text = tr._rhs(keep)
            rate = f"1 - {keep_text}" if self.params["keep"] else keep_text
            return f"tf.nn.dropout({tr.value(x)}, rate={rate})"
        if self.kind in _XENT or self.kind == "mse":
            labels, logits = self.inputs
            if self.params.get("plain"):  # a mean squared error of another rank than Keras's
                return f"tf.reduce_mean(tf.math.squared_difference({tr.value(logits)}, {tr.value(labels)}))"
            if self.params.get("mean"):  # tf.losses.*_cross_entropy at its defaults: the Keras loss
                return _keras_loss_call(self.kind, tr.value(labels), tr.value(logits))
            return f"tf.nn.{_XENT[self.kind]}(labels={tr.value(labels)}, logits={tr.value(logits)})"
        raise ValueError(self.kind)

    def _rnn(self, tr, t) -> str:
        """`outputs, (c, h) = basic_lstm(steps, kernel, bias, forget_bias)` or `outputs, h = gru(steps, gate kernel,
        gate bias, candidate kernel, candidate bias)`, written once; `t` is one of them."""
        p = self.params
        fed_state = p.get("state")  # the initial state the script feeds (`rnn_state`): the group's last input
        steps = self.inputs[:-1] if fed_state is not None else self.inputs
        steps = steps[:-1] if p.get("lengths") else steps  # then dynamic_rnn's sequence_length
        unpack = steps[0].op
        if unpack.type == "Unpack" and [x.op for x in steps] == [unpack] * len(steps) and \
                [x.value_index for x in steps] == list(range(len(steps))) and len(steps) == len(unpack.outputs):
            sequence = (f"tf.unstack({tr.value(unpack.inputs[0])}, num={unpack.get_attr('num')}, "
                        f"axis={unpack.get_attr('axis')})")
        elif (split := _split_steps(steps)) is not None:  # char-rnn's [tf.squeeze(s, [1]) for s in tf.split(x, n, 1)]
            value, axis = split
            sequence = f"tf.unstack({tr.value(value)}, num={len(steps)}, axis={axis})"
        else:
            sequence = f"[{', '.join(tr.value(x) for x in steps)}]"
        if p.get("dynamic"):  # one [batch, time, features] tensor, batch-major
            sequence = f"tf.unstack({tr.value(steps[0])}, axis=1)"
        tail = ""
        if p.get("lengths"):  # the rnn's sequence_length: past each example's length, output 0, state kept
            tail += f", sequence_length={tr.value(self.inputs[len(steps)])}"
        # a MultiRNNCell: one call per cell, each over the outputs of the one below (TF1's stack, step by step: the
        # same numbers, the lower cell's whole sequence first), a fed state's cells in turn
        layers = p["layers"] if self.kind == "stack" else [(self.kind, p["weights"], p)]
        bound = []
        for n, (kind, weights, settings) in enumerate(layers):
            state = "" if fed_state is None else \
                f", initial_state={tr.value(fed_state)}" + (f"[{n}]" if self.kind == "stack" else "")
            code = f"{layer_call(tr, kind, weights, settings, sequence)}{tail}{state})"
            bound.append(tr.bind_pair(self.op, code, ("outputs", "state"), part=f"{n}" if n else ""))
            sequence = bound[-1][0]
        where, i, *layer = p["index"][t.name]
        if where == 2:
            return f"tf.stack({bound[-1][0]}, axis=1)"
        if where == 0:
            return f"{bound[-1][0]}[{i}]"
        state = bound[layer[0] if layer else 0][1]
        return state if i is None else f"{state}[{i}]"  # a GRU's state: one tensor


def _split_steps(steps: list):
    """(x, axis) where `steps` are `tf.squeeze(part, [axis])` of each of the parts of one `tf.split(x, n, axis)`, in
    order, n the size of that axis (each part one step wide): `tf.unstack(x, axis=axis)` computes the same."""
    squeezes = [x.op for x in steps]
    if not squeezes or any(op.type != "Squeeze" or len(op.get_attr("squeeze_dims")) != 1 for op in squeezes):
        return None
    parts = [op.inputs[0] for op in squeezes]
    split = parts[0].op
    if split.type != "Split" or [t.op for t in parts] != [split] * len(parts) or \
            [t.value_index for t in parts] != list(range(len(parts))) or len(split.outputs) != len(parts):
        return None
    axis = static_value(split.inputs[0])
    value = split.inputs[1]
    if axis is None or value.shape.rank is None:
        return None
    axis = int(axis) % value.shape.rank
    if value.shape[axis] != len(parts) or any(op.get_attr("squeeze_dims")[0] % value.shape.rank != axis
                                              for op in squeezes):
        return None
    return value, axis


def install(groups: dict, decays: dict) -> None:
    """Record each dropout / sigmoid cross-entropy in `groups` (output tensor name -> Group) and each
    exponential_decay and piecewise_constant in `decays` (output tensor name -> its settings), for this whole
    process."""
    import tensorflow as tf

    from tfcompare.scripts.child.user_script import compat_v1_modules

    for v1 in compat_v1_modules():
        _wrap(v1.nn, "dropout", functools.partial(_dropout, groups))
        for name, kind in (("sigmoid_cross_entropy_with_logits", "sigmoid_xent"),
                           ("softmax_cross_entropy_with_logits", "softmax_xent"),
                           ("softmax_cross_entropy_with_logits_v2", "softmax_xent"),
                           ("sparse_softmax_cross_entropy_with_logits", "sparse_xent")):
            _wrap(v1.nn, name, functools.partial(_xent, groups, kind))
        _wrap(v1.losses, "softmax_cross_entropy", functools.partial(_losses, groups, "softmax_xent"))
        _wrap(v1.losses, "sparse_softmax_cross_entropy", functools.partial(_losses, groups, "sparse_xent"))
        _wrap(v1.losses, "sigmoid_cross_entropy", functools.partial(_losses, groups, "sigmoid_xent"))
        _wrap(v1.losses, "mean_squared_error", functools.partial(_losses, groups, "mse"))
        _wrap(v1.train, "exponential_decay", functools.partial(_decay, decays))
        _wrap(v1.train, "piecewise_constant", functools.partial(_piecewise, decays))
        _wrap(v1.nn, "static_rnn", functools.partial(_static_rnn, groups))
        _wrap(v1.nn, "dynamic_rnn", functools.partial(_dynamic_rnn, groups))
        _wrap(v1.metrics, "accuracy", functools.partial(_streaming, groups))
        for kind, function in (("rmse", "root_mean_squared_error"), ("mean_squared", "mean_squared_error"),
                               ("mean_absolute", "mean_absolute_error")):
            _wrap(v1.metrics, function, functools.partial(_streaming, groups, kind=kind))
    for v2_nn in {id(m): m for m in (tf.nn, tf.compat.v2.nn)}.values():  # what tf.layers.dropout (tf-keras) calls
        _wrap(v2_nn, "dropout", functools.partial(_dropout_v2, groups))
    from tfcompare.scripts.legacy import rnn

    _wrap(rnn, "static_rnn", functools.partial(_static_rnn, groups))  # what tf.contrib.rnn.static_rnn serves
    _wrap(rnn, "dynamic_rnn", functools.partial(_dynamic_rnn, groups))
    from tfcompare.scripts.legacy import seq2seq

    _wrap(seq2seq, "rnn_decoder", functools.partial(_rnn_decoder, groups))  # contrib.legacy_seq2seq's
    del tf


def _wrap(owner, name: str, record) -> None:
    original = getattr(owner, name)
    if getattr(original, "_tfcompare_recorded", False):
        return

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        out = original(*args, **kwargs)
        try:
            record(out, original, *args, **kwargs)
        except Exception:  # a call we cannot read is translated op by op
            pass
        return out

    wrapper._tfcompare_recorded = True
    setattr(owner, name, wrapper)


def _tensor(value, like=None):
    import tensorflow as tf

    return value if isinstance(value, tf.Tensor) else tf.convert_to_tensor(value, dtype=getattr(like, "dtype", None))


def _inside(out, inputs) -> set:
    """Op names between `inputs` and `out` (the group's own ops)."""
    stop = {t.op.name for t in inputs}
    seen, stack = set(), [out.op]
    while stack:
        op = stack.pop()
        if op.name in seen or op.name in stop:
            continue
        seen.add(op.name)
        stack.extend(t.op for t in op.inputs)
    return seen


def _dropout(groups, out, original, x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    if noise_shape is not None:
        return
    keep = rate is None
    level = _tensor(keep_prob if keep else rate, x)
    x = _tensor(x)
    if out.name == x.name:  # a rate of 0 (`keep_prob=1.0`): TF returns its input, no dropout to write
        return
    groups[out.name] = Group("dropout", out.op, [x, level], _inside(out, [x, level]), {"keep": keep})


def _dropout_v2(groups, out, original, x, rate, noise_shape=None, seed=None, name=None):
    _dropout(groups, out, original, x, noise_shape=noise_shape, rate=rate)


def _xent(groups, kind, out, original, _sentinel=None, labels=None, logits=None, dim=-1, name=None, axis=None):
    if (axis if axis is not None else dim) != -1:
        return
    labels, logits = _tensor(labels), _tensor(logits)
    groups[out.name] = Group(kind, out.op, [labels, logits], _inside(out, [labels, logits]))


# each tf.losses function's first two parameters, as scripts name them in a call
_LOSS_PARAMETERS = {"softmax_xent": ("onehot_labels", "logits"), "sparse_xent": ("labels", "logits"),
                    "sigmoid_xent": ("multi_class_labels", "logits"), "mse": ("labels", "predictions")}


def _losses(groups, kind, out, original, *args, **kwargs):
    """tf.losses.* with its defaults (weights 1, no smoothing, SUM_BY_NONZERO_WEIGHTS): a mean over the examples;
    its arguments positional or by TF1's names (`onehot_labels=`, `predictions=`)."""
    import tensorflow as tf

    names = (*_LOSS_PARAMETERS[kind], "weights")
    given = dict(zip(names, args), **kwargs)
    labels, logits, weights = given.pop(names[0]), given.pop(names[1]), given.pop("weights", 1.0)
    default = tf.compat.v1.losses.Reduction.SUM_BY_NONZERO_WEIGHTS
    if len(args) > 3 or given.get("label_smoothing") or given.get("reduction") not in (None, default) or \
            not (isinstance(weights, (int, float)) and weights == 1.0):
        return
    labels, logits = _tensor(labels), _tensor(logits)
    params = {"mean": True}
    if kind == "mse" and not (logits.shape.rank == 2 and labels.shape.rank in (2, None)):
        # Keras means over the last axis, then the batch: the same mean for a rank-2 prediction only; another rank
        # is the mean of every squared difference, as TF1's sum over a count of weights 1 is
        if not logits.dtype == labels.dtype == tf.float32:
            return  # TF1 casts both to float32 first
        params["plain"] = True
    groups[out.name] = Group(kind, out.op, [labels, logits], _inside(out, [labels, logits]), params)


def _streaming(groups, out, original, labels, predictions, weights=None, metrics_collections=None,
               updates_collections=None, name=None, kind="accuracy"):
    """tf.metrics.accuracy (or root_mean_squared_error, mean_squared_error, mean_absolute_error) without weights:
    (value, update_op) over a total and a count of local variables that only the update op moves, which is what
    the Keras metric's update_state / result do (Keras's mean over the last axis, then the batch, is the mean over
    every element where each example has as many)."""
    if weights is not None:
        return
    value, update = out
    labels, predictions = _tensor(labels), _tensor(predictions)
    inside = _inside(update, [labels, predictions]) | _inside(value, [labels, predictions])
    scope = update.op.name.rsplit("/", 1)[0]
    group = Group(kind, update.op, [labels, predictions], inside, {"update": update.name, "scope": scope})
    groups[value.name] = groups[update.name] = group


def _decay(decays, out, original, learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    import numpy as np

    def value(v):
        return float(np.asarray(v)) if not hasattr(v, "op") else None

    decays[getattr(out, "name", str(out))] = {"learning_rate": value(learning_rate), "decay_steps": value(decay_steps),
                                              "decay_rate": value(decay_rate), "staircase": bool(staircase)}


def _piecewise(decays, out, original, x, boundaries, values, name=None):
    """tf.train.piecewise_constant(x, boundaries, values) of numbers: x <= boundaries[0] takes values[0], as
    Keras's PiecewiseConstantDecay does on its step count."""
    import numpy as np

    if any(hasattr(v, "op") for v in [*boundaries, *values]):
        return
    decays[getattr(out, "name", str(out))] = {"kind": "piecewise", "boundaries": [int(b) for b in boundaries],
                                              "values": [float(np.float32(v)) for v in values]}


def _state_index(kind: str, state, index: dict, settings: dict) -> dict:
    """Where each final-state tensor is in what the helper returns: (1, i) for an LSTM's c (0) and h (1), (1, None)
    for a GRU's h; a stack's (1, i, layer) for each cell's. Added to `index` where an output is not the same
    tensor (static_rnn's last output is its top cell's h); returned whole (a group's "state_index")."""
    where = {}
    if kind == "stack":
        for n, ((layer, _, _), part) in enumerate(zip(settings["layers"], state)):
            for t, i in ([(part[0], 0), (part[1], 1)] if layer == "lstm" else [(part, None)]):
                where.setdefault(t.name, (1, i, n))
    elif kind == "lstm":
        where.setdefault(state[0].name, (1, 0))
        where.setdefault(state[1].name, (1, 1))
    else:
        where.setdefault(state.name, (1, None))
    for name, at in where.items():
        index.setdefault(name, at)
    return where


def _dynamic_rnn(groups, out, original, cell, inputs, sequence_length=None, initial_state=None, dtype=None,
                 parallel_iterations=None, swap_memory=False, time_major=False, scope=None):
    """dynamic_rnn of a plain LSTM or GRU over batch-major inputs with a known number of steps, from a zero state."""
    inputs = _tensor(inputs)
    written = cell_kind(cell)
    if not _zero(initial_state) or time_major or written is None or inputs.shape.rank != 3 or inputs.shape[1] is None:
        return
    kind, weights, settings = written
    outputs, state = out
    index = {outputs.name: (2, 0)}
    states = _state_index(kind, state, index, settings)
    given = [inputs] if sequence_length is None else [inputs, _tensor(sequence_length)]
    inside = set()
    for o in [outputs, *_flat(state)]:
        inside |= _inside(o, given)
    group = Group(kind, outputs.op, given, inside, {"weights": weights, "dynamic": True, "index": index,
                                                    "state_index": states,
                                                    "lengths": sequence_length is not None,
                                                    "initial": _flat(initial_state), **settings})
    for name in index:
        groups[name] = group


def _static_rnn(groups, out, original, cell, inputs, initial_state=None, dtype=None, sequence_length=None,
                scope=None):
    """A plain LSTM or GRU cell unrolled over a list of inputs from a zero state, with or without sequence_length."""
    written = cell_kind(cell)
    if not _zero(initial_state) or written is None:
        return
    kind, weights, settings = written
    outputs, state = out
    index = {o.name: (0, i - len(outputs) if i == len(outputs) - 1 else i) for i, o in enumerate(outputs)}
    states = _state_index(kind, state, index, settings)
    inputs = [_tensor(x) for x in inputs] + ([] if sequence_length is None else [_tensor(sequence_length)])
    inside = set()
    for o in [*outputs, *_flat(state)]:
        inside |= _inside(o, inputs)
    group = Group(kind, outputs[-1].op, inputs, inside, {"weights": weights, "index": index,
                                                         "state_index": states,
                                                         "lengths": sequence_length is not None,
                                                         "initial": _flat(initial_state), **settings})
    for name in index:
        groups[name] = group


def _rnn_decoder(groups, out, original, decoder_inputs, initial_state, cell, loop_function=None, scope=None):
    """legacy_seq2seq.rnn_decoder without a loop_function (char-rnn's training model) is static_rnn from
    `initial_state`: the cell over each input in turn."""
    if loop_function is None:
        _static_rnn(groups, out, original, cell, decoder_inputs, initial_state=initial_state)


def _zero(state) -> bool:
    """No initial state, or the cell's `zero_state(batch_size)` of a known batch size: every tensor constant
    zeros, which is where the written loop starts. A state computed or fed (a stateful RNN's `init_s`, fed its
    last final state) is not, and stays op by op; one fed only later is told apart by pair, which compares."""
    if state is None:
        return True
    for t in _flat(state):
        value = static_value(_tensor(t))
        if value is None or np.any(value != 0):
            return False
    return True


def _flat(state) -> list:
    """The tensors of a cell's state: (c, h) for an LSTM, h for a GRU, each cell's of a stack in turn; none where no
    initial state was given."""
    if state is None:
        return []
    return [x for t in state for x in _flat(t)] if isinstance(state, tuple) else [_tensor(state)]
