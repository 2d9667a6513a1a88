"""Code written into the TF2 script as it is (the script imports no tfcompare): TF1's BasicLSTMCell, LSTMCell
(peepholes, clipping, a projection) and GRUCell unrolled (`calls` writes their calls), and TF1's input_data.read_data_sets (gone from TF 2): the IDX files of its
`train_dir`, else tf.keras.datasets.mnist.
"""

from __future__ import annotations

__all__ = ["LSTM_HELPER", "LSTM_CELL_HELPER", "GRU_HELPER", "HELPER_SOURCE", "LOADER", "LOADER_NOTE"]

LSTM_HELPER = '''
def basic_lstm(inputs, kernel, bias, forget_bias=1.0, sequence_length=None, initial_state=None):
    """TF1's BasicLSTMCell unrolled over `inputs` (one tensor per time step, as TF1's static_rnn and
    dynamic_rnn ran it) from a zero state, or from `initial_state` (c and h stacked):
        i, j, f, o = split([x, h] @ kernel + bias, 4)
        c = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j)
        h = tanh(c) * sigmoid(o)
    With `sequence_length` (dynamic_rnn's), each example's output is 0 past its length and its state
    stays where its length ended. Returns (outputs, (c, h))."""
    if initial_state is None:
        c = h = tf.zeros([tf.shape(inputs[0])[0], kernel.shape[1] // 4], dtype=kernel.dtype)
    else:
        c, h = tf.unstack(initial_state)
    outputs = []
    for t, x in enumerate(inputs):
        gates = tf.nn.bias_add(tf.matmul(tf.concat([x, h], 1), kernel), bias)
        i, j, f, o = tf.split(gates, 4, axis=1)
        new_c = c * tf.sigmoid(f + forget_bias) + tf.sigmoid(i) * tf.tanh(j)
        new_h = tf.tanh(new_c) * tf.sigmoid(o)
        if sequence_length is None:
            c, h = new_c, new_h
            outputs.append(h)
            continue
        alive = tf.expand_dims(t < sequence_length, 1)
        c, h = tf.where(alive, new_c, c), tf.where(alive, new_h, h)
        outputs.append(tf.where(alive, new_h, tf.zeros_like(new_h)))
    return outputs, (c, h)
'''

LSTM_CELL_HELPER = '''
def lstm_cell(inputs, kernel, bias, peepholes=None, projection=None, forget_bias=1.0,
              cell_clip=None, proj_clip=None, sequence_length=None, initial_state=None):
    """TF1's LSTMCell unrolled over `inputs` (one tensor per time step, as TF1's static_rnn and
    dynamic_rnn ran it) from a zero state, or from `initial_state` (c and h stacked):
    BasicLSTMCell's formula with the peephole weights (w_f, w_i, w_o) reading the cell state, the
    cell state clipped to +-cell_clip, and the output projected (and clipped to +-proj_clip):
        i, j, f, o = split([x, h] @ kernel + bias, 4)
        c = c * sigmoid(f + forget_bias + w_f * c) + sigmoid(i + w_i * c) * tanh(j)
        h = tanh(c) * sigmoid(o + w_o * c)    (c the new state), then h @ projection
    With `sequence_length` (dynamic_rnn's), each example's output is 0 past its length and its state
    stays where its length ended. Returns (outputs, (c, h))."""
    units = kernel.shape[1] // 4
    if initial_state is None:
        batch = tf.shape(inputs[0])[0]
        c = tf.zeros([batch, units], kernel.dtype)
        h = tf.zeros([batch, units if projection is None else projection.shape[1]], kernel.dtype)
    else:
        c, h = tf.unstack(initial_state)
    outputs = []
    for t, x in enumerate(inputs):
        gates = tf.nn.bias_add(tf.matmul(tf.concat([x, h], 1), kernel), bias)
        i, j, f, o = tf.split(gates, 4, axis=1)
        if peepholes is None:
            new_c = tf.sigmoid(f + forget_bias) * c + tf.sigmoid(i) * tf.tanh(j)
        else:
            w_f, w_i, w_o = peepholes
            new_c = tf.sigmoid(f + forget_bias + w_f * c) * c + tf.sigmoid(i + w_i * c) * tf.tanh(j)
        if cell_clip is not None:
            new_c = tf.clip_by_value(new_c, -cell_clip, cell_clip)
        gate = o if peepholes is None else o + w_o * new_c
        new_h = tf.sigmoid(gate) * tf.tanh(new_c)
        if projection is not None:
            new_h = tf.matmul(new_h, projection)
            if proj_clip is not None:
                new_h = tf.clip_by_value(new_h, -proj_clip, proj_clip)
        if sequence_length is None:
            c, h = new_c, new_h
            outputs.append(h)
            continue
        alive = tf.expand_dims(t < sequence_length, 1)
        c, h = tf.where(alive, new_c, c), tf.where(alive, new_h, h)
        outputs.append(tf.where(alive, new_h, tf.zeros_like(new_h)))
    return outputs, (c, h)
'''

GRU_HELPER = '''
def gru(inputs, gate_kernel, gate_bias, candidate_kernel, candidate_bias, sequence_length=None,
        initial_state=None):
    """TF1's GRUCell unrolled over `inputs` (one tensor per time step, as TF1's static_rnn and
    dynamic_rnn ran it) from a zero state, or from `initial_state`:
        r, u = split(sigmoid([x, h] @ gate_kernel + gate_bias), 2)
        c = tanh([x, r * h] @ candidate_kernel + candidate_bias)
        h = u * h + (1 - u) * c
    With `sequence_length` (dynamic_rnn's), each example's output is 0 past its length and its state
    stays where its length ended. Returns (outputs, h)."""
    h = initial_state
    if h is None:
        h = tf.zeros([tf.shape(inputs[0])[0], candidate_kernel.shape[1]], candidate_kernel.dtype)
    outputs = []
    for t, x in enumerate(inputs):
        gates = tf.sigmoid(tf.nn.bias_add(tf.matmul(tf.concat([x, h], 1), gate_kernel), gate_bias))
        r, u = tf.split(gates, 2, axis=1)
        candidate = tf.matmul(tf.concat([x, r * h], 1), candidate_kernel)
        c = tf.tanh(tf.nn.bias_add(candidate, candidate_bias))
        new_h = u * h + (1 - u) * c
        if sequence_length is None:
            h = new_h
            outputs.append(h)
            continue
        alive = tf.expand_dims(t < sequence_length, 1)
        h = tf.where(alive, new_h, h)
        outputs.append(tf.where(alive, new_h, tf.zeros_like(new_h)))
    return outputs, h
'''
HELPER_SOURCE = {"lstm": LSTM_HELPER, "lstm_cell": LSTM_CELL_HELPER, "gru": GRU_HELPER}

# written into the TF2 script (which imports no tfcompare): TF 1.15's mnist read_data_sets on
# tf.keras.datasets.mnist, with TF1's validation split, and each epoch's order shuffled by tf.data
LOADER = '''
class _DataSet:
    """TF 1.15's input_data DataSet: images (N, 784) float32 in [0, 1], labels int or one-hot;
    next_batch hands out the examples in an order shuffled at each epoch (by tf.data; TF1 shuffled
    with NumPy), a batch running on into the next epoch as TF1's did."""

    def __init__(self, images, labels, one_hot, reshape):
        images = images.astype(np.float32) / 255.0
        self.images = images.reshape(len(images), -1) if reshape else images[..., np.newaxis]
        self.labels = np.eye(10)[labels] if one_hot else labels
        self.num_examples = len(images)
        self.epochs_completed = 0
        order = tf.data.Dataset.range(self.num_examples).shuffle(self.num_examples)
        self._order = iter(order.repeat().batch(self.num_examples))  # one epoch's order per element
        self._pending = np.zeros([0], np.int64)
        self._given = 0

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        while len(self._pending) < batch_size:
            self._pending = np.concatenate([self._pending, next(self._order).numpy()])
        index, self._pending = self._pending[:batch_size], self._pending[batch_size:]
        self._given += batch_size
        self.epochs_completed = self._given // self.num_examples
        return self.images[index], self.labels[index]


def read_data_sets(train_dir=None, fake_data=False, one_hot=False, dtype=None, reshape=True,
                   validation_size=5000, seed=None, source_url=None):
    """TF1's tensorflow.examples.tutorials.mnist.input_data.read_data_sets (gone from TF 2): the
    four IDX files in `train_dir` where they are (as TF1 read them: MNIST's, Fashion-MNIST's), else
    tf.keras.datasets.mnist (the MNIST TF1 downloaded); the first `validation_size` training images
    held out, as TF1 did."""
    paths = [os.path.join(train_dir or '', name) for name in (
        'train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz',
        't10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz')]
    if train_dir and all(os.path.isfile(path) for path in paths):
        x, y, test_x, test_y = (_read_idx(path) for path in paths)
    else:
        (x, y), (test_x, test_y) = tf.keras.datasets.mnist.load_data()
    held = validation_size
    return types.SimpleNamespace(train=_DataSet(x[held:], y[held:], one_hot, reshape),
                                 validation=_DataSet(x[:held], y[:held], one_hot, reshape),
                                 test=_DataSet(test_x, test_y, one_hot, reshape))


def _read_idx(path):
    """An IDX file (gzip, a big-endian header): uint8 images (N, rows, cols) or labels (N,)."""
    with gzip.open(path, 'rb') as f:
        data = f.read()
    shape = np.frombuffer(data, '>u4', data[3], 4)
    return np.frombuffer(data, np.uint8, offset=4 + 4 * data[3]).reshape(shape)
'''

LOADER_NOTE = ("input_data.read_data_sets (gone from TF 2) is written into the script: the IDX files of its folder where "
               "they are, else tf.keras.datasets.mnist, with TF1's validation split (5,000 images), each epoch shuffled "
               "by tf.data")
