"""The same network in TF1, with the softsign operator written the same three ways.

`tf-ops`: graph ops. `python`: `tf.compat.v1.py_func` over NumPy, whose gradient TF1 cannot derive, so it
is given one with the TF1 recipe (`gradient_override_map` on the PyFunc op). `custom-gradient`:
`tf.custom_gradient`, which works in TF1 graphs too.
"""

import numpy as np
import tensorflow as tf

from legacy_graphs import graph_parts, placeholders, tf1

_GRAD_NAME = "TfcompareSoftsignPyGrad"


@tf.RegisterGradient(_GRAD_NAME)
def _softsign_py_grad(op, dy):
    x = op.inputs[0]
    return dy / tf.square(1.0 + tf.abs(x))


def _softsign_numpy(x):
    return (x / (1.0 + np.abs(x))).astype(np.float32)


def _softsign(x, variant):
    if variant == "tf-ops":
        return x / (1.0 + tf1.abs(x))
    if variant == "python":
        with tf1.get_default_graph().gradient_override_map({"PyFunc": _GRAD_NAME, "PyFuncStateless": _GRAD_NAME}):
            y = tf1.py_func(_softsign_numpy, [x], tf.float32, stateful=False)
        y.set_shape(x.shape)  # py_func has no shape function: TF1's way to restore it
        return y

    @tf.custom_gradient
    def softsign(t):
        def grad(dy):
            return dy / tf.square(1.0 + tf.abs(t))
        return t / (1.0 + tf.abs(t)), grad
    return softsign(x)


def build(specs, variant="tf-ops"):
    inputs = placeholders(specs)
    w1 = tf1.get_variable("w1", shape=[16, 16])
    w2 = tf1.get_variable("w2", shape=[16, 1])
    out = tf1.matmul(_softsign(tf1.matmul(inputs["x"], w1), variant), w2)
    loss = tf1.reduce_mean(tf1.square(out - inputs["y"]))
    return graph_parts(inputs, out, loss, tf1.train.GradientDescentOptimizer(0.1), {"w1": w1, "w2": w2})
