"""A training script with real hazards: a global learning rate changed mid-run, a global history list,
a print in the step. Lines are asserted in tests: edit with care."""
import tensorflow as tf

LEARNING_RATE = 0.1
history = []
w = tf.Variable(1.0)


@tf.function
def step(x):
    print("tracing step")  # line 12: print
    loss = tf.square(w * x - 2.0)
    w.assign_sub(LEARNING_RATE * 2.0 * (w * x - 2.0) * x)  # line 14: global read, frozen at 0.1
    history.append(loss)  # line 15: container mutation, once per trace
    return loss


for i in range(4):
    if i == 2:
        LEARNING_RATE = 0.0  # has no effect: the traced graph holds 0.1
    step(tf.constant(1.0))
