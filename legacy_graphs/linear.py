"""Logistic regression `sigmoid(x·w + b)` as a TF1 graph: the textbook static-graph example."""

from legacy_graphs import graph_parts, placeholders, tf1


def build(specs):
    inputs = placeholders(specs)
    x, y = inputs["x"], inputs["y"]
    w = tf1.get_variable("w", shape=[x.shape[1], 1], dtype=x.dtype)
    b = tf1.get_variable("b", shape=[1], dtype=x.dtype)
    logits = tf1.matmul(x, w) + b
    loss = tf1.reduce_mean(tf1.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
    return graph_parts(inputs, logits, loss, tf1.train.GradientDescentOptimizer(0.5), {"w": w, "b": b})
