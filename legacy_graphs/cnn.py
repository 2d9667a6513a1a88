"""Two conv → bias → relu → max-pool blocks and a dense layer as a TF1 graph (Grappler fuses conv+bias+relu)."""

from legacy_graphs import graph_parts, placeholders, tf1


def build(specs):
    inputs = placeholders(specs)
    x, y = inputs["x"], inputs["y"]
    variables = {
        "conv0": tf1.get_variable("conv0", shape=[3, 3, 3, 8]),
        "bias0": tf1.get_variable("bias0", shape=[8]),
        "conv1": tf1.get_variable("conv1", shape=[3, 3, 8, 16]),
        "bias1": tf1.get_variable("bias1", shape=[16]),
        "dense": tf1.get_variable("dense", shape=[4 * 4 * 16, 10]),
        "dense_bias": tf1.get_variable("dense_bias", shape=[10]),
    }
    h = x
    for i in range(2):
        h = tf1.nn.conv2d(h, variables[f"conv{i}"], strides=[1, 1, 1, 1], padding="SAME")
        h = tf1.nn.relu(tf1.nn.bias_add(h, variables[f"bias{i}"]))
        h = tf1.nn.max_pool2d(h, ksize=2, strides=2, padding="VALID")
    h = tf1.reshape(h, [-1, 4 * 4 * 16])
    logits = tf1.nn.bias_add(tf1.matmul(h, variables["dense"]), variables["dense_bias"])
    loss = tf1.reduce_mean(tf1.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    return graph_parts(inputs, logits, loss, tf1.train.MomentumOptimizer(0.05, 0.9), variables)
