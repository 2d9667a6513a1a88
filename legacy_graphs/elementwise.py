"""A chain of 120 small element-wise ops on a small tensor as a TF1 graph: dispatch-bound."""

from legacy_graphs import graph_parts, placeholders, tf1

LINKS = 40  # each link is multiply, add, tanh: 120 element-wise ops in the forward pass


def build(specs):
    inputs = placeholders(specs)
    x, target = inputs["x"], inputs["target"]
    scale = tf1.get_variable("scale", shape=[x.shape[1]], dtype=x.dtype)
    shift = tf1.get_variable("shift", shape=[x.shape[1]], dtype=x.dtype)
    h = x
    for _ in range(LINKS):
        h = tf1.tanh(h * scale + shift)
    loss = tf1.reduce_mean(tf1.square(h - target))
    return graph_parts(inputs, h, loss, tf1.train.GradientDescentOptimizer(0.1), {"scale": scale, "shift": shift})
