"""`tf.contrib.rnn` / `tf.nn.rnn_cell` as TensorFlow 1.15 defined them, on `tf.compat.v1` ops alone.

TF 2.21 keeps the recurrent loops (`tf.compat.v1.nn.dynamic_rnn`, `static_rnn`, `static_bidirectional_rnn` live in
`tensorflow/python/ops/rnn.py`) but its cells moved behind Keras 2 (`tf.compat.v1.nn.rnn_cell` says "not available
with Keras 3"). These cells are what those loops ask of a cell (`output_size`, `state_size`, `zero_state`, callable:
`rnn_cell_impl.assert_like_rnncell`), with TF 1.15's formulas, defaults, gate order and variable names.

Source checked: TF 1.15 `tensorflow/python/ops/rnn_cell_impl.py` (BasicRNNCell.call, GRUCell.build/call,
BasicLSTMCell.build/call, LSTMCell.build/call, MultiRNNCell.call, DropoutWrapper) and
`tensorflow/contrib/rnn/python/ops/rnn.py` (stack_bidirectional_dynamic_rnn); the same code ships in TF 2.21 as
`tensorflow/python/keras/layers/legacy_rnn/rnn_cell_impl.py` (lines 400-1340), which the tests compare against.
"""

from __future__ import annotations

import collections
import re

import tensorflow as tf
from tensorflow.python.framework import tensor_util

__all__ = ["RNNCell", "LSTMStateTuple", "BasicRNNCell", "GRUCell", "BasicLSTMCell", "LSTMCell", "MultiRNNCell",
           "DropoutWrapper", "stack_bidirectional_dynamic_rnn", "static_rnn", "static_bidirectional_rnn",
           "dynamic_rnn", "bidirectional_dynamic_rnn", "contents"]

_v1 = tf.compat.v1
static_rnn = _v1.nn.static_rnn
static_bidirectional_rnn = _v1.nn.static_bidirectional_rnn
dynamic_rnn = _v1.nn.dynamic_rnn
bidirectional_dynamic_rnn = _v1.nn.bidirectional_dynamic_rnn


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """(c, h): TF 1.15's LSTM state (rnn_cell_impl.py, LSTMStateTuple)."""

    __slots__ = ()

    @property
    def dtype(self):
        if self.c.dtype != self.h.dtype:
            raise TypeError(f"Inconsistent internal state: {self.c.dtype} vs {self.h.dtype}")
        return self.c.dtype


def _snake(name: str) -> str:
    """`BasicLSTMCell` -> `basic_lstm_cell`, as TF 1.15's base Layer names its scope."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()


def _zeros(size, batch_size, dtype):
    if isinstance(batch_size, int):
        return tf.zeros([batch_size, size], dtype=dtype)
    out = tf.zeros(tf.stack([batch_size, size]), dtype=dtype)
    static = tensor_util.constant_value(batch_size)
    out.set_shape([int(static) if static is not None else None, size])
    return out


class RNNCell:
    """TF 1.15's RNNCell contract: `cell(inputs, state)` builds its variables in its own variable scope on the
    first call (`<scope>/<snake_case class name>`, uniquified) and reuses them on every later call."""

    def __init__(self, reuse=None, name=None, dtype=None, **kwargs):
        self._reuse, self._name, self._dtype = reuse, name, dtype
        self._scope = None
        self.built = False
        self._variables: list = []

    @property
    def state_size(self):
        raise NotImplementedError

    @property
    def output_size(self):
        raise NotImplementedError

    @property
    def variables(self) -> list:
        return list(self._variables)

    trainable_variables = trainable_weights = weights = variables

    def zero_state(self, batch_size, dtype):
        with tf.name_scope(type(self).__name__ + "ZeroState"):
            return tf.nest.map_structure(lambda s: _zeros(s, batch_size, dtype), self.state_size)

    def _variable(self, name, shape, initializer=None, dtype=tf.float32):
        var = _v1.get_variable(name, shape=shape, initializer=initializer, dtype=dtype)
        if var not in self._variables:
            self._variables.append(var)
        return var

    def __call__(self, inputs, state, scope=None):
        if self._scope is None:  # TF 1.15 tensorflow/python/layers/base.py, Layer._set_scope
            base = self._name or _snake(type(self).__name__)
            if self._reuse:
                with _v1.variable_scope(scope if scope is not None else base) as captured:
                    self._scope = captured
            else:
                with _v1.variable_scope(scope, default_name=base) as captured:
                    self._scope = captured
        with _v1.variable_scope(self._scope, reuse=True if self.built else self._reuse, auxiliary_name_scope=False):
            if not self.built:
                self.build(inputs.shape, inputs.dtype)
                self.built = True
            return self.call(inputs, state)

    def build(self, inputs_shape, dtype):
        pass

    def call(self, inputs, state):
        raise NotImplementedError


def _depth(inputs_shape) -> int:
    depth = tf.compat.dimension_value(tf.TensorShape(inputs_shape)[-1])
    if depth is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: {inputs_shape}")
    return int(depth)


def _activation(activation):
    if activation is None:
        return tf.tanh
    return getattr(tf.nn, activation) if isinstance(activation, str) else activation


class _OneStateCell(RNNCell):
    """A cell whose state and output are one [batch, num_units] tensor."""

    def __init__(self, num_units, activation, reuse, name, dtype):
        super().__init__(reuse, name, dtype)
        self._num_units, self._activation = num_units, _activation(activation)

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units


class BasicRNNCell(_OneStateCell):
    """output = new_state = act(W [x, h] + b); kernel default initializer: get_variable's glorot_uniform."""

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(num_units, activation, reuse, name, dtype)

    def build(self, inputs_shape, dtype):
        self._kernel = self._variable("kernel", [_depth(inputs_shape) + self._num_units, self._num_units], dtype=dtype)
        self._bias = self._variable("bias", [self._num_units], tf.zeros_initializer(), dtype)

    def call(self, inputs, state):
        gate_inputs = tf.nn.bias_add(tf.matmul(tf.concat([inputs, state], 1), self._kernel), self._bias)
        output = self._activation(gate_inputs)
        return output, output


class GRUCell(_OneStateCell):
    """Gates r, u = sigmoid(W_g [x, h] + b_g) (b_g starts at 1.0); c = act(W_c [x, r*h] + b_c); h' = u*h + (1-u)*c."""

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None, bias_initializer=None,
                 name=None, dtype=None, **kwargs):
        super().__init__(num_units, activation, reuse, name, dtype)
        self._kernel_initializer, self._bias_initializer = kernel_initializer, bias_initializer

    def build(self, inputs_shape, dtype):
        depth, n = _depth(inputs_shape), self._num_units
        self._gate_kernel = self._variable("gates/kernel", [depth + n, 2 * n], self._kernel_initializer, dtype)
        self._gate_bias = self._variable("gates/bias", [2 * n], self._bias_initializer
                                         if self._bias_initializer is not None else tf.constant_initializer(1.0), dtype)
        self._candidate_kernel = self._variable("candidate/kernel", [depth + n, n], self._kernel_initializer, dtype)
        self._candidate_bias = self._variable("candidate/bias", [n], self._bias_initializer
                                              if self._bias_initializer is not None else tf.zeros_initializer(), dtype)

    def call(self, inputs, state):
        gate_inputs = tf.nn.bias_add(tf.matmul(tf.concat([inputs, state], 1), self._gate_kernel), self._gate_bias)
        r, u = tf.split(value=tf.sigmoid(gate_inputs), num_or_size_splits=2, axis=1)
        candidate = tf.nn.bias_add(tf.matmul(tf.concat([inputs, r * state], 1), self._candidate_kernel),
                                   self._candidate_bias)
        c = self._activation(candidate)
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class BasicLSTMCell(RNNCell):
    """Gates i, j, f, o = split(W [x, h] + b, 4) in that order; c' = c*sigmoid(f + forget_bias) +
    sigmoid(i)*act(j); h' = act(c')*sigmoid(o); forget_bias 1.0, bias starts at 0."""

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):
        super().__init__(reuse, name, dtype)
        self._num_units, self._forget_bias = num_units, forget_bias
        self._state_is_tuple, self._activation = state_is_tuple, _activation(activation)

    @property
    def state_size(self):
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape, dtype):
        n = self._num_units
        self._kernel = self._variable("kernel", [_depth(inputs_shape) + n, 4 * n], dtype=dtype)
        self._bias = self._variable("bias", [4 * n], tf.zeros_initializer(), dtype)

    def call(self, inputs, state):
        sigmoid = tf.sigmoid
        one = tf.constant(1, dtype=tf.int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = tf.split(value=state, num_or_size_splits=2, axis=one)
        gate_inputs = tf.nn.bias_add(tf.matmul(tf.concat([inputs, h], 1), self._kernel), self._bias)
        i, j, f, o = tf.split(value=gate_inputs, num_or_size_splits=4, axis=one)
        forget_bias_tensor = tf.constant(self._forget_bias, dtype=f.dtype)
        new_c = tf.add(tf.multiply(c, sigmoid(tf.add(f, forget_bias_tensor))),
                       tf.multiply(sigmoid(i), self._activation(j)))
        new_h = tf.multiply(self._activation(new_c), sigmoid(o))
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else tf.concat([new_c, new_h], 1)
        return new_h, new_state


class LSTMCell(RNNCell):
    """BasicLSTMCell plus peepholes (w_f_diag, w_i_diag, w_o_diag), cell_clip, a projection (projection/kernel)
    with proj_clip, and an initializer for the kernels; same gate order and forget_bias."""

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None, num_proj=None,
                 proj_clip=None, num_unit_shards=None, num_proj_shards=None, forget_bias=1.0, state_is_tuple=True,
                 activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(reuse, name, dtype)
        if num_unit_shards is not None or num_proj_shards is not None:
            raise NotImplementedError("LSTMCell num_unit_shards / num_proj_shards (deprecated in TF 1.x) are not "
                                      "provided by tfcompare's legacy runtime; use keras.layers.LSTMCell")
        self._num_units, self._use_peepholes, self._cell_clip = num_units, use_peepholes, cell_clip
        self._initializer, self._num_proj, self._proj_clip = initializer, num_proj, proj_clip
        self._forget_bias, self._state_is_tuple, self._activation = forget_bias, state_is_tuple, _activation(activation)

    @property
    def state_size(self):
        n, p = self._num_units, self._num_proj
        if p:
            return LSTMStateTuple(n, p) if self._state_is_tuple else n + p
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    @property
    def output_size(self):
        return self._num_proj or self._num_units

    def build(self, inputs_shape, dtype):
        n = self._num_units
        h_depth = n if self._num_proj is None else self._num_proj
        self._kernel = self._variable("kernel", [_depth(inputs_shape) + h_depth, 4 * n], self._initializer, dtype)
        self._bias = self._variable("bias", [4 * n], tf.zeros_initializer(), dtype)
        if self._use_peepholes:
            self._w_f_diag = self._variable("w_f_diag", [n], self._initializer, dtype)
            self._w_i_diag = self._variable("w_i_diag", [n], self._initializer, dtype)
            self._w_o_diag = self._variable("w_o_diag", [n], self._initializer, dtype)
        if self._num_proj is not None:
            self._proj_kernel = self._variable("projection/kernel", [n, self._num_proj], self._initializer, dtype)

    def call(self, inputs, state):
        num_proj = self._num_units if self._num_proj is None else self._num_proj
        sigmoid = tf.sigmoid
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = tf.slice(state, [0, 0], [-1, self._num_units])
            m_prev = tf.slice(state, [0, self._num_units], [-1, num_proj])
        lstm_matrix = tf.nn.bias_add(tf.matmul(tf.concat([inputs, m_prev], 1), self._kernel), self._bias)
        i, j, f, o = tf.split(value=lstm_matrix, num_or_size_splits=4, axis=1)
        if self._use_peepholes:
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev +
                 sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = tf.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = tf.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = tf.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else tf.concat([c, m], 1)
        return m, new_state


class MultiRNNCell(RNNCell):
    """Cells stacked: cell i runs in scope `cell_<i>` inside this cell's own (`multi_rnn_cell`)."""

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not isinstance(cells, (list, tuple)):
            raise TypeError(f"cells must be a list or tuple, but saw: {cells}.")
        self._cells, self._state_is_tuple = list(cells), state_is_tuple
        if not state_is_tuple and any(tf.nest.is_nested(c.state_size) for c in self._cells):
            raise ValueError("Some cells return tuples of states, but the flag state_is_tuple is not set.  State "
                             f"sizes are: {[c.state_size for c in self._cells]}")

    @property
    def state_size(self):
        sizes = tuple(cell.state_size for cell in self._cells)
        return sizes if self._state_is_tuple else sum(sizes)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    @property
    def variables(self) -> list:
        return [v for cell in self._cells for v in getattr(cell, "variables", [])]

    trainable_variables = trainable_weights = weights = variables

    def zero_state(self, batch_size, dtype):
        with tf.name_scope(type(self).__name__ + "ZeroState"):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return _zeros(self.state_size, batch_size, dtype)

    def call(self, inputs, state):
        position, current, new_states = 0, inputs, []
        for i, cell in enumerate(self._cells):
            with _v1.variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not tf.nest.is_nested(state):
                        raise ValueError(f"Expected state to be a tuple of length {len(self.state_size)}, but "
                                         f"received: {state}")
                    cell_state = state[i]
                else:
                    cell_state = tf.slice(state, [0, position], [-1, cell.state_size])
                    position += cell.state_size
                current, new_state = cell(current, cell_state)
                new_states.append(new_state)
        return current, (tuple(new_states) if self._state_is_tuple else tf.concat(new_states, 1))


class DropoutWrapper(RNNCell):
    """Dropout on the cell's inputs, outputs and (h of) its state; a probability that is a constant 1.0 adds no
    op, any other value (a placeholder too) adds `tf.nn.dropout(rate=1 - keep_prob)`. The wrapped cell keeps its
    own scope: variables are named as without the wrapper."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None, **kwargs):
        super().__init__(dtype=dtype)
        if variational_recurrent or dropout_state_filter_visitor is not None:
            raise NotImplementedError("DropoutWrapper(variational_recurrent=True / dropout_state_filter_visitor) is "
                                      "not provided by tfcompare's legacy runtime; use keras.layers.LSTM(dropout=..., "
                                      "recurrent_dropout=...)")
        self.cell, self._seed = cell, seed
        for prob, attr in [(input_keep_prob, "input_keep_prob"), (state_keep_prob, "state_keep_prob"),
                           (output_keep_prob, "output_keep_prob")]:
            value = tf.convert_to_tensor(prob)
            constant = tensor_util.constant_value(value)
            if constant is not None:
                if not 0 <= constant <= 1:
                    raise ValueError(f"Parameter {attr} must be between 0 and 1: {constant}")
                setattr(self, f"_{attr}", float(constant))
            else:
                setattr(self, f"_{attr}", value)

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return self.cell.output_size

    @property
    def variables(self) -> list:
        return list(getattr(self.cell, "variables", []))

    trainable_variables = trainable_weights = weights = variables

    def zero_state(self, batch_size, dtype):
        with tf.name_scope(type(self).__name__ + "ZeroState"):
            return self.cell.zero_state(batch_size, dtype)

    def _seed_for(self, salt: str, index: int):
        if self._seed is None:
            return None
        import hashlib

        digest = hashlib.md5((str(self._seed) + f"{salt}_{index}").encode("utf-8")).hexdigest()
        return int(digest[:8], 16) & 0x7FFFFFFF

    def _dropout(self, values, salt, keep_prob, keep=None):
        flat = tf.nest.flatten(values)
        mask = tf.nest.flatten(keep) if keep is not None else [True] * len(flat)
        out = [tf.nn.dropout(v, rate=1.0 - keep_prob, seed=self._seed_for(salt, i)) if drop else v
               for i, (v, drop) in enumerate(zip(flat, mask))]
        return tf.nest.pack_sequence_as(values, out)

    def __call__(self, inputs, state, scope=None):
        def should(p):
            return not isinstance(p, float) or p < 1

        if should(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._input_keep_prob)
        output, new_state = self.cell(inputs, state, scope=scope)
        if should(self._state_keep_prob):
            # TF 1.15's default filter: never the c of an LSTMStateTuple
            keep = tf.nest.map_structure(lambda _: True, new_state)
            if isinstance(new_state, LSTMStateTuple):
                keep = LSTMStateTuple(False, True)
            new_state = self._dropout(new_state, "state", self._state_keep_prob, keep)
        if should(self._output_keep_prob):
            output = self._dropout(output, "output", self._output_keep_prob)
        return output, new_state


def stack_bidirectional_dynamic_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None, initial_states_bw=None,
                                    dtype=None, sequence_length=None, parallel_iterations=None, time_major=False,
                                    scope=None, swap_memory=False):
    """Bidirectional layers stacked (`stack_bidirectional_rnn/cell_<i>/bidirectional_rnn/{fw,bw}/...`), each
    layer's input the concatenation of the previous layer's two outputs; returns (outputs, states_fw, states_bw)."""
    if not cells_fw or not cells_bw or len(cells_fw) != len(cells_bw):
        raise ValueError("cells_fw and cells_bw must be non-empty lists of the same length.")
    states_fw, states_bw, layer = [], [], inputs
    with _v1.variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw)):
            init_fw = initial_states_fw[i] if initial_states_fw else None
            init_bw = initial_states_bw[i] if initial_states_bw else None
            with _v1.variable_scope(f"cell_{i}"):
                outputs, (state_fw, state_bw) = bidirectional_dynamic_rnn(
                    cell_fw, cell_bw, layer, initial_state_fw=init_fw, initial_state_bw=init_bw,
                    sequence_length=sequence_length, parallel_iterations=parallel_iterations, dtype=dtype,
                    swap_memory=swap_memory, time_major=time_major)
                layer = tf.concat(outputs, 2)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return layer, tuple(states_fw), tuple(states_bw)


def contents() -> dict:
    """The names `tf.contrib.rnn` (and `tf.nn.rnn_cell` without tf-keras) provide."""
    return {name: globals()[name] for name in __all__ if name != "contents"}
