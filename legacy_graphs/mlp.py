"""Two hidden ReLU layers and softmax cross-entropy as a TF1 graph, trained with momentum."""

from legacy_graphs import graph_parts, placeholders, tf1


def build(specs):
    inputs = placeholders(specs)
    x, y = inputs["x"], inputs["y"]
    sizes = [int(x.shape[1]), 128, 128, int(y.shape[1])]
    variables = {}
    h = x
    for i in range(3):
        w = variables[f"w{i}"] = tf1.get_variable(f"w{i}", shape=sizes[i:i + 2], dtype=x.dtype)
        b = variables[f"b{i}"] = tf1.get_variable(f"b{i}", shape=sizes[i + 1:i + 2], dtype=x.dtype)
        h = tf1.nn.bias_add(tf1.matmul(h, w), b)
        if i < 2:
            h = tf1.nn.relu(h)
    loss = tf1.reduce_mean(tf1.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=h))
    return graph_parts(inputs, h, loss, tf1.train.MomentumOptimizer(0.05, 0.9), variables)
