"""A tf.function that keeps Python state, as scripts do: a global step counter, Python's random for jitter, a
wall-clock stamp, NumPy noise, a print, a Python loop over a long range, a variable made without a guard, and a
tf.function made per epoch. Each runs once per trace, not per call: the script checks it. Lines are asserted in
tests: edit with care."""
import random
import time

import numpy as np
import tensorflow as tf

calls = 0
w = tf.Variable(tf.ones([4, 1]))


@tf.function
def train_step(x):
    global calls
    calls += 1  # line 18: global_rebinding
    jitter = random.uniform(0.9, 1.1)  # line 19: python_random
    started = time.time()  # line 20: time
    noise = np.random.normal()  # line 21: np_random
    print("step", started)  # line 22: print
    y = x
    for _ in range(128):  # line 24: unrolled_loop
        y = y * 0.999
    return tf.reduce_mean(tf.matmul(y, w)) * jitter + noise


@tf.function
def make_bias(x):
    bias = tf.Variable(tf.zeros([1]))  # line 31: variable_in_body
    return x + bias


losses = [float(train_step(tf.ones([2, 4]))) for _ in range(3)]
assert calls == 1 and len(set(losses)) == 1  # three calls, one trace: counted once, one jitter, frozen
try:
    make_bias(tf.ones([1]))
    raise AssertionError("TF accepted a variable created on every trace")
except ValueError as exc:
    assert "singleton tf.Variables" in str(exc)
for epoch in range(2):
    evaluate = tf.function(lambda x: x * 2)  # line 43: function_in_loop
    evaluate(tf.ones([1]))


class Trainer(tf.Module):
    def __init__(self):
        super().__init__()
        self.steps, self.last_loss = 0, None

    @tf.function
    def train(self, x):
        self.steps += 1  # line 54: attribute_rebinding
        return tf.reduce_sum(x)


trainer = Trainer()
for _ in range(3):
    trainer.train(tf.ones([2]))
assert trainer.steps == 1  # three calls, one trace
