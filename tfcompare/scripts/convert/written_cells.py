"""Code written into the TF2 script as it is (the script imports no tfcompare): TF1's BasicLSTMCell and GRUCell
unrolled (`calls` writes their calls), and TF1's input_data.read_data_sets (gone from TF 2) on
tf.keras.datasets.mnist.
"""

from __future__ import annotations

import inspect

from tfcompare.scripts.child.loaders import _DataSet

__all__ = ["LSTM_HELPER", "GRU_HELPER", "HELPER_SOURCE", "LOADER"]

LSTM_HELPER = '''
def basic_lstm(inputs, kernel, bias, forget_bias=1.0):
    """TF1's BasicLSTMCell unrolled over `inputs` (one tensor per time step, as TF1's static_rnn and
    dynamic_rnn ran it) from a zero state:
        i, j, f, o = split([x, h] @ kernel + bias, 4)
        c = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j)
        h = tanh(c) * sigmoid(o)
    Returns (outputs, (c, h))."""
    c = h = tf.zeros([tf.shape(inputs[0])[0], kernel.shape[1] // 4], dtype=kernel.dtype)
    outputs = []
    for x in inputs:
        gates = tf.nn.bias_add(tf.matmul(tf.concat([x, h], 1), kernel), bias)
        i, j, f, o = tf.split(gates, 4, axis=1)
        c = c * tf.sigmoid(f + forget_bias) + tf.sigmoid(i) * tf.tanh(j)
        h = tf.tanh(c) * tf.sigmoid(o)
        outputs.append(h)
    return outputs, (c, h)
'''

GRU_HELPER = '''
def gru(inputs, gate_kernel, gate_bias, candidate_kernel, candidate_bias):
    """TF1's GRUCell unrolled over `inputs` (one tensor per time step, as TF1's static_rnn and
    dynamic_rnn ran it) from a zero state:
        r, u = split(sigmoid([x, h] @ gate_kernel + gate_bias), 2)
        c = tanh([x, r * h] @ candidate_kernel + candidate_bias)
        h = u * h + (1 - u) * c
    Returns (outputs, h)."""
    h = tf.zeros([tf.shape(inputs[0])[0], candidate_kernel.shape[1]], dtype=candidate_kernel.dtype)
    outputs = []
    for x in inputs:
        gates = tf.sigmoid(tf.nn.bias_add(tf.matmul(tf.concat([x, h], 1), gate_kernel), gate_bias))
        r, u = tf.split(gates, 2, axis=1)
        candidate = tf.matmul(tf.concat([x, r * h], 1), candidate_kernel)
        c = tf.tanh(tf.nn.bias_add(candidate, candidate_bias))
        h = u * h + (1 - u) * c
        outputs.append(h)
    return outputs, h
'''
HELPER_SOURCE = {"lstm": LSTM_HELPER, "gru": GRU_HELPER}

# written into the TF2 script (which imports no tfcompare): the DataSet pair's loader stub hands TF1, then the
# loader on tf.keras.datasets.mnist
LOADER = inspect.getsource(_DataSet) + '''

def read_data_sets(train_dir=None, fake_data=False, one_hot=False, dtype=None, reshape=True, validation_size=0,
                   seed=None, source_url=None):
    """TF1's tensorflow.examples.tutorials.mnist.input_data.read_data_sets (gone from TF 2), on
    tf.keras.datasets.mnist: no validation split is held out and batches are not shuffled."""
    (x, y), (test_x, test_y) = tf.keras.datasets.mnist.load_data()
    test = _DataSet(test_x, test_y, one_hot, reshape)
    return types.SimpleNamespace(train=_DataSet(x, y, one_hot, reshape), test=test, validation=test)
'''
