"""Raw tf.Variables in global dicts, trained with GradientTape inside tf.function. No hazards.

`extra` starts as an empty dict (the static pass cannot tell what it will hold; read at line 19) and is filled with
variables before the first trace: the runtime half of the audit sees that and drops the static hazard.
"""
import numpy as np
import tensorflow as tf

params = {"w": tf.Variable(tf.zeros([4, 1])), "b": tf.Variable(tf.zeros([1]))}
extra = {}
for _name in ("scale",):
    extra[_name] = tf.Variable(1.0)
trainables = [params["w"], params["b"]]


@tf.function
def step(x, y, lr):
    with tf.GradientTape() as tape:
        pred = tf.add(tf.matmul(x, params["w"]), params["b"]) * extra["scale"]
        loss = tf.reduce_mean(tf.square(pred - y))
    for g, v in zip(tape.gradient(loss, trainables), trainables):
        v.assign_sub(lr * g)
    return loss


rng = np.random.default_rng(0)
x = tf.constant(rng.standard_normal((32, 4)), tf.float32)
y = tf.constant(rng.standard_normal((32, 1)), tf.float32)
losses = [float(step(x, y, tf.constant(0.1))) for _ in range(5)]
assert losses[-1] < losses[0]  # the variables moved every step: nothing was frozen
