"""One operator, softsign `x / (1 + |x|)`, written three ways inside the same small network (TF2).

`tf-ops`: TensorFlow ops (differentiated by TensorFlow). `python`: a Python function run by `tf.py_function`
(differentiable, because it runs TensorFlow ops eagerly; opaque to the graph: no static shape, no XLA kernel,
not serialisable without the Python code). `custom-gradient`: TensorFlow ops for the value, the gradient
`1 / (1 + |x|)^2` written by hand with `tf.custom_gradient`.
"""

import tensorflow as tf

from eager_models import SGD, StepModule


def softsign_ops(x):
    return x / (1.0 + tf.abs(x))


def softsign_python(x):
    y = tf.py_function(lambda t: t / (1.0 + tf.abs(t)), [x], tf.float32)
    return tf.ensure_shape(y, x.shape)  # the Python op loses its static shape; this restores it (see pitfalls)


@tf.custom_gradient
def softsign_custom_gradient(x):
    def grad(dy):
        return dy / tf.square(1.0 + tf.abs(x))
    return x / (1.0 + tf.abs(x)), grad


VARIANTS = {"tf-ops": softsign_ops, "python": softsign_python, "custom-gradient": softsign_custom_gradient}


class CustomOp(StepModule):
    optimizer_cls = SGD
    learning_rate = 0.1
    variant = "tf-ops"

    def __call__(self, inputs):
        h = VARIANTS[self.variant](tf.matmul(inputs["x"], self.variables_by_name["w1"]))
        return tf.matmul(h, self.variables_by_name["w2"])

    def loss(self, inputs):
        return tf.reduce_mean(tf.square(self(inputs) - inputs["y"]))


def model_for(variant: str):
    """The model class for one variant (each case names its own)."""
    return type(f"CustomOp_{variant.replace('-', '_')}", (CustomOp,), {"variant": variant})
