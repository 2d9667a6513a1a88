"""A sequence classifier as TF1 code wrote it: an LSTM in `LSTMCell`'s layout, unrolled statically, with dropout
on a `keep_prob` placeholder and integer labels into `sparse_softmax_cross_entropy`, trained with `AdamOptimizer`.

`LSTMCell`'s layout (what a TF1 checkpoint holds): one kernel `[features + hidden, 4 * hidden]` over `[x, h]`,
gates in the order i, j (the candidate), f, o, and `forget_bias` (1.0) added to f inside the cell. Written with
raw ops because `tf.compat.v1.nn.rnn_cell` needs tf-keras under Keras 3; the arithmetic is the cell's.
"""

from legacy_graphs import graph_parts, placeholders, tf1


def build(specs, *, hidden: int, classes: int, forget_bias: float = 1.0):
    """The sizes are the case's (`tfcompare.registry`), shared with its Keras twin; 1.0 is LSTMCell's default."""
    inputs = placeholders(specs)
    x, label = inputs["x"], inputs["label"]
    keep_prob = tf1.placeholder(tf1.float32, shape=(), name="keep_prob")
    steps, features = int(x.shape[1]), int(x.shape[2])
    with tf1.variable_scope("lstm"):
        kernel = tf1.get_variable("kernel", shape=[features + hidden, 4 * hidden])
        bias = tf1.get_variable("bias", shape=[4 * hidden], initializer=tf1.zeros_initializer())
    with tf1.variable_scope("out"):
        out_kernel = tf1.get_variable("kernel", shape=[hidden, classes])
        out_bias = tf1.get_variable("bias", shape=[classes], initializer=tf1.zeros_initializer())
    h = c = tf1.zeros([tf1.shape(x)[0], hidden])
    for t in range(steps):  # static_rnn: one cell per time step in the graph
        z = tf1.matmul(tf1.concat([x[:, t, :], h], axis=1), kernel) + bias
        i, j, f, o = tf1.split(z, 4, axis=1)
        c = tf1.sigmoid(f + forget_bias) * c + tf1.sigmoid(i) * tf1.tanh(j)
        h = tf1.sigmoid(o) * tf1.tanh(c)
    h = tf1.nn.dropout(h, rate=1.0 - keep_prob)
    logits = tf1.matmul(h, out_kernel) + out_bias
    loss = tf1.reduce_mean(tf1.nn.sparse_softmax_cross_entropy_with_logits(labels=label, logits=logits))
    variables = {"lstm/kernel": kernel, "lstm/bias": bias, "out/kernel": out_kernel, "out/bias": out_bias}
    return graph_parts({**inputs, "keep_prob": keep_prob}, logits, loss, tf1.train.AdamOptimizer(0.01), variables)
