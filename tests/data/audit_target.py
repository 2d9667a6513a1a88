"""An audit target with every hazard at a known line. Lines are asserted in tests: edit with care."""
import sys
import time

import numpy as np
import tensorflow as tf

SCALE = 2.0
history = []


@tf.function
def hazardous(x):
    print("tracing")  # line 14: print
    noise = np.random.normal()  # line 15: np.random
    stamp = time.time()  # line 16: time
    history.append(stamp)  # line 17: container mutation
    for _ in range(200):  # line 18: unrolled loop
        x = x + 1.0
    return x * SCALE + noise  # line 20: global read


@tf.function
def makes_variable(x):
    v = tf.Variable(1.0)  # line 25: variable in body
    return x * v


@tf.function
def add(x, k):
    return x + k


if __name__ == "__main__":
    hazardous(tf.constant(1.0))
    add(tf.constant(1), 1)
    add(tf.constant(1), 1.0)  # line 37: literal collision, reuses the int graph
    add(tf.constant(1), True)  # line 38: literal collision
    add(tf.constant(1), 2)  # a real retrace: value 1 -> 2
    for _ in range(3):
        tf.function(lambda t: t * 2)(tf.constant(1.0))  # line 41: function in loop
    if "--raise" in sys.argv:
        raise ValueError("the user's code failed")
    if "--exit" in sys.argv:
        sys.exit(0)
    if "--hard-exit" in sys.argv:
        __import__("os")._exit(7)
    if "--interrupt" in sys.argv:  # what Ctrl-C raises in the main thread
        raise KeyboardInterrupt
    SCALE = 3.0  # the traced graph of hazardous() still multiplies by 2.0 (line 20 reads it)
