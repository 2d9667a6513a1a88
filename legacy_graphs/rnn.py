"""An LSTM over padded variable-length sequences as a TF1 graph: `tf.compat.v1.while_loop` over time.

Past a sequence's length its state is carried unchanged (a mask), so padded steps never reach the loss.
"""

from legacy_graphs import graph_parts, placeholders, tf1

HIDDEN = 16


def _lstm_step(x_t, h, c, w, b):
    z = tf1.matmul(tf1.concat([x_t, h], axis=1), w) + b
    i, f, g, o = tf1.split(z, 4, axis=1)
    c_new = tf1.sigmoid(f) * c + tf1.sigmoid(i) * tf1.tanh(g)
    return tf1.sigmoid(o) * tf1.tanh(c_new), c_new


def build(specs):
    inputs = placeholders(specs)
    x, lengths, y = inputs["x"], inputs["lengths"], inputs["y"]
    features = int(x.shape[2])
    w = tf1.get_variable("w", shape=[features + HIDDEN, 4 * HIDDEN])
    b = tf1.get_variable("b", shape=[4 * HIDDEN])
    head = tf1.get_variable("head", shape=[HIDDEN, 1])
    head_bias = tf1.get_variable("head_bias", shape=[1])
    batch, steps = tf1.shape(x)[0], tf1.shape(x)[1]
    zeros = tf1.zeros([batch, HIDDEN])

    def body(t, h, c):
        h_new, c_new = _lstm_step(x[:, t, :], h, c, w, b)
        keep = tf1.expand_dims(tf1.cast(t < lengths, x.dtype), 1)  # 1 while t < length, else 0
        return t + 1, keep * h_new + (1.0 - keep) * h, keep * c_new + (1.0 - keep) * c

    _, h, _ = tf1.while_loop(lambda t, h, c: t < steps, body, [tf1.constant(0), zeros, zeros],
                             maximum_iterations=steps)
    out = tf1.matmul(h, head) + head_bias
    loss = tf1.reduce_mean(tf1.square(out - y))
    variables = {"w": w, "b": b, "head": head, "head_bias": head_bias}
    return graph_parts(inputs, out, loss, tf1.train.GradientDescentOptimizer(0.1), variables)
