"""Data-dependent control flow as a TF1 graph: a fixed-point solver that loops until a tensor-valued
tolerance is met (`tf.compat.v1.while_loop`), then a branch on a tensor's value (`tf.compat.v1.cond`)."""

from legacy_graphs import graph_parts, placeholders, tf1

TOLERANCE = 1e-5
MAX_ITERATIONS = 60


def build(specs):
    inputs = placeholders(specs)
    x, y = inputs["x"], inputs["y"]
    size = int(x.shape[1])
    w = tf1.get_variable("w", shape=[size, size])
    scale = tf1.get_variable("scale", shape=[size])

    def not_converged(k, h, delta):
        return delta > TOLERANCE

    def iterate(k, h, delta):
        h_new = tf1.tanh(x + tf1.matmul(h, w))
        return k + 1, h_new, tf1.reduce_max(tf1.abs(h_new - h))

    _, h, _ = tf1.while_loop(not_converged, iterate, [tf1.constant(0), tf1.zeros_like(x), tf1.constant(1.0)],
                             maximum_iterations=MAX_ITERATIONS)
    out = tf1.cond(tf1.reduce_mean(h) > 0.0, lambda: h * scale, lambda: -h * scale)
    loss = tf1.reduce_mean(tf1.square(out - y))
    return graph_parts(inputs, out, loss, tf1.train.GradientDescentOptimizer(0.1), {"w": w, "scale": scale})
