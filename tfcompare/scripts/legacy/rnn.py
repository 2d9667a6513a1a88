"""`tf.contrib.rnn` / `tf.nn.rnn_cell` as TensorFlow 1.15 defined them, on `tf.compat.v1` ops alone.

TF 2.21 keeps the recurrent loops (`tf.compat.v1.nn.dynamic_rnn`, `static_rnn`, `static_bidirectional_rnn` live in
`tensorflow/python/ops/rnn.py`) but its cells moved behind Keras 2 (`tf.compat.v1.nn.rnn_cell` says "not available
with Keras 3"). These cells are what those loops ask of a cell (`output_size`, `state_size`, `zero_state`, callable:
`rnn_cell_impl.assert_like_rnncell`), with TF 1.15's formulas, defaults, gate order and variable names.

Source checked: TF 1.15 `tensorflow/python/ops/rnn_cell_impl.py` (BasicRNNCell.call, GRUCell.build/call,
BasicLSTMCell.build/call, LSTMCell.build/call, MultiRNNCell.call, DropoutWrapper) and
`tensorflow/contrib/rnn/python/ops/rnn.py` (stack_bidirectional_dynamic_rnn); the same code ships in TF 2.21 as
`tensorflow/python/keras/layers/legacy_rnn/rnn_cell_impl.py` (lines 400-1340), which the tests compare against.

This module is the namespace (`coverage.NAMESPACES` serves `contents` and `cell_contents`): the loops and
`stack_bidirectional_dynamic_rnn` live here, the cells in `rnn_base` (RNNCell, LSTMStateTuple), `rnn_cells`
(BasicRNNCell, GRUCell, BasicLSTMCell, LSTMCell) and `rnn_wrappers` (MultiRNNCell, DropoutWrapper).
"""

from __future__ import annotations

import tensorflow as tf

from tfcompare.scripts.legacy.rnn_base import LSTMStateTuple, RNNCell
from tfcompare.scripts.legacy.rnn_cells import BasicLSTMCell, BasicRNNCell, GRUCell, LSTMCell
from tfcompare.scripts.legacy.rnn_wrappers import DropoutWrapper, MultiRNNCell

__all__ = ["RNNCell", "LSTMStateTuple", "BasicRNNCell", "GRUCell", "BasicLSTMCell", "LSTMCell", "MultiRNNCell",
           "DropoutWrapper", "stack_bidirectional_dynamic_rnn", "static_rnn", "static_bidirectional_rnn",
           "dynamic_rnn", "bidirectional_dynamic_rnn", "contents", "cell_contents"]

_v1 = tf.compat.v1
static_rnn = _v1.nn.static_rnn
static_bidirectional_rnn = _v1.nn.static_bidirectional_rnn
dynamic_rnn = _v1.nn.dynamic_rnn
bidirectional_dynamic_rnn = _v1.nn.bidirectional_dynamic_rnn


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


_CELLS = ["RNNCell", "LSTMStateTuple", "BasicRNNCell", "GRUCell", "BasicLSTMCell", "LSTMCell", "MultiRNNCell",
          "DropoutWrapper"]


def contents() -> dict:
    """The names `tf.contrib.rnn` provides."""
    return {name: globals()[name] for name in __all__ if name not in ("contents", "cell_contents")}


def cell_contents() -> dict:
    """The names `tf.nn.rnn_cell` provides (without tf-keras)."""
    return {name: globals()[name] for name in _CELLS}
