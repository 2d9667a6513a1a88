"""`(x @ w + OFFSET) - OFFSET` in float32, as code that shifts values into a range and back does. Run op by op
(eager) the sum rounds to a multiple of 8 near 1e8 and the difference comes back as 0; Grappler's constant
folding in every graph TensorFlow optimises (a Session's, a `tf.function`'s) first folds the two constants and
gives `x @ w` exactly, and XLA's simplifier does the same. Two `tfcompare debug` cases: with a squared error
the modes disagree (the Grappler bisection names the pass), with `log` of its square eager meets log(0) = -inf
at a known op and step.
"""

from legacy_graphs import graph_parts, placeholders, tf1

OFFSET = 1e8


def build(specs, *, log: bool = False):
    inputs = placeholders(specs)
    w = tf1.get_variable("w", shape=[4, 2])
    out = (tf1.matmul(inputs["x"], w) + OFFSET) - OFFSET
    if log:  # a log-likelihood-style term: finite unless the value is exactly 0
        loss = -tf1.reduce_mean(tf1.log(tf1.square(out)))
    else:
        loss = tf1.reduce_mean(tf1.square(out - inputs["y"]))
    return graph_parts(inputs, out, loss, tf1.train.GradientDescentOptimizer(0.01), {"w": w})
