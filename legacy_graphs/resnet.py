"""A small residual network for 32×32×3 images as a TF1 graph, batch norm in training mode.

Each residual block is conv → batch norm → relu → conv → batch norm, added to its input, then relu.
Batch norm normalises with the batch's own statistics (training mode), with a learned scale and offset.
"""

from legacy_graphs import graph_parts, placeholders, tf1

WIDTH = 16
_EPS = 1e-3


def _batch_norm(h, gamma, beta):
    mean, var = tf1.nn.moments(h, axes=[0, 1, 2])
    return tf1.nn.batch_normalization(h, mean, var, beta, gamma, _EPS)


def build(specs, depth=2):
    inputs = placeholders(specs)
    x, y = inputs["x"], inputs["y"]
    variables = {"stem": tf1.get_variable("stem", shape=[3, 3, 3, WIDTH])}
    h = tf1.nn.relu(tf1.nn.conv2d(x, variables["stem"], strides=[1, 2, 2, 1], padding="SAME"))
    for b in range(depth):
        skip = h
        for j in range(2):
            for name, shape in ((f"b{b}c{j}", [3, 3, WIDTH, WIDTH]), (f"b{b}g{j}", [WIDTH]), (f"b{b}o{j}", [WIDTH])):
                variables[name] = tf1.get_variable(name, shape=shape)
            h = tf1.nn.conv2d(h, variables[f"b{b}c{j}"], strides=[1, 1, 1, 1], padding="SAME")
            h = _batch_norm(h, variables[f"b{b}g{j}"], variables[f"b{b}o{j}"])
            if j == 0:
                h = tf1.nn.relu(h)
        h = tf1.nn.relu(h + skip)
    h = tf1.reduce_mean(h, axis=[1, 2])
    variables["head"] = tf1.get_variable("head", shape=[WIDTH, 10])
    variables["head_bias"] = tf1.get_variable("head_bias", shape=[10])
    logits = tf1.nn.bias_add(tf1.matmul(h, variables["head"]), variables["head_bias"])
    loss = tf1.reduce_mean(tf1.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    return graph_parts(inputs, logits, loss, tf1.train.MomentumOptimizer(0.05, 0.9), variables)
