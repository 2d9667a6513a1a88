"""One large matrix multiply and a squared-error loss as a TF1 graph: compute-bound."""

from legacy_graphs import graph_parts, placeholders, tf1


def build(specs):
    inputs = placeholders(specs)
    x, target = inputs["x"], inputs["target"]
    w = tf1.get_variable("w", shape=[x.shape[1], target.shape[1]], dtype=x.dtype)
    y = tf1.matmul(x, w)
    loss = tf1.reduce_mean(tf1.square(y - target))
    return graph_parts(inputs, y, loss, tf1.train.GradientDescentOptimizer(0.01), {"w": w})
