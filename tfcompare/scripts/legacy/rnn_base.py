"""The cell contract of the legacy runtime's `tf.contrib.rnn` / `tf.nn.rnn_cell` (TF 1.15's, on `tf.compat.v1`):
`RNNCell`, the base every cell (and a TF1 script's own subclass) builds on, and `LSTMStateTuple`, an LSTM's state.

An `RNNCell` is what TF 2.21's kept loops (`tf.compat.v1.nn.dynamic_rnn`, `static_rnn`) ask of a cell:
`output_size`, `state_size`, `zero_state`, and `cell(inputs, state)`, which builds its variables in its own
variable scope on the first call, as TF 1.15's `rnn_cell_impl.py` / `layers/base.py` do.
"""

from __future__ import annotations

import collections
import re

import tensorflow as tf
from tensorflow.python.framework import tensor_util

__all__ = ["RNNCell", "LSTMStateTuple", "batch_zeros"]

_v1 = tf.compat.v1


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


def batch_zeros(size, batch_size, dtype):
    """A [batch_size, size] zero tensor (batch_size an int or a scalar tensor): a zero state."""
    if isinstance(batch_size, int):
        return tf.zeros([batch_size, size])
    out = tf.zeros(tf.stack([batch_size, size]))
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
        self._input_dtype = tf.float32

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
            return tf.nest.map_structure(lambda s: batch_zeros(s, batch_size, dtype), self.state_size)

    def _variable(self, name, shape, initializer=None, dtype=None):
        var = _v1.get_variable(name, shape=shape, initializer=initializer, dtype=dtype or self._input_dtype)
        if var not in self._variables:
            self._variables.append(var)
        return var

    def add_variable(self, name, shape, dtype=None, initializer=None, **kwargs):
        """TF 1.15's Layer.add_variable / add_weight, for a script's own RNNCell subclass."""
        return self._variable(name, shape, initializer, dtype)

    add_weight = add_variable

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
                self._input_dtype = inputs.dtype.base_dtype
                self.build(inputs.shape)
                self.built = True
            return self.call(inputs, state)

    def build(self, inputs_shape):
        pass

    def call(self, inputs, state):
        raise NotImplementedError
