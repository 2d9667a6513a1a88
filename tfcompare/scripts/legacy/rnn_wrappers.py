"""The legacy runtime's cells made of other cells, as TF 1.15 defined them on `tf.compat.v1`: `MultiRNNCell`
(cells stacked) and `DropoutWrapper` (dropout around a cell) (source checked: TF 1.15
`tensorflow/python/ops/rnn_cell_impl.py`, MultiRNNCell.call, DropoutWrapper).
"""

from __future__ import annotations

import tensorflow as tf
from tensorflow.python.framework import tensor_util

from tfcompare.scripts.legacy.rnn_base import LSTMStateTuple, RNNCell, batch_zeros

__all__ = ["MultiRNNCell", "DropoutWrapper"]

_v1 = tf.compat.v1


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
            return batch_zeros(self.state_size, batch_size, dtype)

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
