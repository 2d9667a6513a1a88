"""The legacy runtime's recurrent cells, TF 1.15's formulas, defaults, gate order and variable names on
`tf.compat.v1` ops: `BasicRNNCell`, `GRUCell`, `BasicLSTMCell`, `LSTMCell` (source checked: TF 1.15
`tensorflow/python/ops/rnn_cell_impl.py`, each cell's build/call).
"""

from __future__ import annotations

import tensorflow as tf

from tfcompare.scripts.legacy.rnn_base import LSTMStateTuple, RNNCell

__all__ = ["BasicRNNCell", "GRUCell", "BasicLSTMCell", "LSTMCell"]


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

    def build(self, inputs_shape):
        self._kernel = self._variable("kernel", [_depth(inputs_shape) + self._num_units, self._num_units])
        self._bias = self._variable("bias", [self._num_units], tf.zeros_initializer())

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

    def build(self, inputs_shape):
        depth, n = _depth(inputs_shape), self._num_units
        self._gate_kernel = self._variable("gates/kernel", [depth + n, 2 * n], self._kernel_initializer)
        self._gate_bias = self._variable("gates/bias", [2 * n], self._bias_initializer
                                         if self._bias_initializer is not None else tf.constant_initializer(1.0))
        self._candidate_kernel = self._variable("candidate/kernel", [depth + n, n], self._kernel_initializer)
        self._candidate_bias = self._variable("candidate/bias", [n], self._bias_initializer
                                              if self._bias_initializer is not None else tf.zeros_initializer())

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

    def build(self, inputs_shape):
        n = self._num_units
        self._kernel = self._variable("kernel", [_depth(inputs_shape) + n, 4 * n])
        self._bias = self._variable("bias", [4 * n], tf.zeros_initializer())

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

    def build(self, inputs_shape):
        n = self._num_units
        h_depth = n if self._num_proj is None else self._num_proj
        self._kernel = self._variable("kernel", [_depth(inputs_shape) + h_depth, 4 * n], self._initializer)
        self._bias = self._variable("bias", [4 * n], tf.zeros_initializer())
        if self._use_peepholes:
            self._w_f_diag = self._variable("w_f_diag", [n], self._initializer)
            self._w_i_diag = self._variable("w_i_diag", [n], self._initializer)
            self._w_o_diag = self._variable("w_o_diag", [n], self._initializer)
        if self._num_proj is not None:
            self._proj_kernel = self._variable("projection/kernel", [n, self._num_proj], self._initializer)

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
