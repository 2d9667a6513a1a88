"""Python that TF runs on every call, from inside a tf.function: a lambda and a nested function handed to
tf.py_function / tf.numpy_function. No hazards: the script checks that its host code ran once per call."""
import time
import numpy as np
import tensorflow as tf

seen = []


@tf.function
def step(x):
    def log_host(v):
        print("host value", v)  # runs every call: inside tf.py_function
        seen.append(time.time())
        return v

    tf.py_function(lambda v: print("every call", v), [x], [])
    y = tf.numpy_function(lambda a: a + np.random.normal(), [x], tf.float32)
    return tf.py_function(log_host, [y], tf.float32)


for _ in range(3):
    step(tf.constant(1.0))
assert len(seen) == 3
