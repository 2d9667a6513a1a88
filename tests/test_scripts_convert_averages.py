"""`convert/averages.py` in-process: which ExponentialMovingAverage of a TF1 graph becomes TF2's own, as what
code, and which stays a TODO (an average the group runs beside another assignment is never dropped)."""

from __future__ import annotations

import ast
import textwrap

import numpy as np
import tensorflow as tf

from tfcompare.scripts.convert.averages import apply_line, find, setup_lines

_SCRIPT = """
DECAY = 0.99
x = tf.placeholder(tf.float32, [None, 3])
w = tf.Variable(tf.ones([3, 2]), name='w')
b = tf.Variable(tf.zeros([2]), name='b')
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b))
global_step = tf.Variable(0, trainable=False, name='global_step')
opt_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)
ema = tf.train.ExponentialMovingAverage({args})
with tf.control_dependencies([opt_op]):
    averages_op = ema.apply({applied})
train_op = tf.group(opt_op, averages_op{extra})
"""


def _found(args: str = "DECAY, global_step", applied: str = "tf.trainable_variables()", extra: str = ""):
    source = textwrap.dedent(_SCRIPT.format(args=args, applied=applied, extra=extra))
    with tf.compat.v1.Graph().as_default() as graph:
        scope = {"tf": tf.compat.v1}
        exec(compile(source, "script.py", "exec"), scope)
        train_op = graph.get_operation_by_name("GradientDescent")  # minimize's op: what the optimizer patch finds
        trained = [scope["w"], scope["b"]]
        return find(ast.parse(source), scope, train_op, trained, "optimizer", tf), scope


def test_the_cifar10_form_is_tf2s_own_average_with_the_script_s_decay_and_the_optimizer_s_step_count():
    averages, scope = _found()
    # both run the optimizer's step and the averages: `averages_op` under the step's control dependency
    assert averages is not None and averages.name == "ema" and averages.groups == {"train_op", "averages_op"}
    assert averages.constructor == "tf.train.ExponentialMovingAverage(DECAY, num_updates=optimizer.iterations)"
    assert averages.shadows == {"w/ExponentialMovingAverage": "w", "b/ExponentialMovingAverage": "b"}
    variables = {"w": "w", "b": "b"}
    assert setup_lines(averages, variables, [scope["w"], scope["b"]], "TF1 line 9")[1:] == [
        "ema = tf.train.ExponentialMovingAverage(DECAY, num_updates=optimizer.iterations)",
        "ema.apply(model.trainable_variables)  # the averages start at the initial weights, as TF1's did"]
    assert apply_line(averages, variables, [scope["w"], scope["b"]]).strip().startswith("ema.apply({variables})")
    # an average of some of the trained variables: the list, in TF1's order
    some, scope = _found(applied="[w]")
    assert some is not None and apply_line(some, variables, [scope["w"], scope["b"]]).strip().startswith(
        "ema.apply([model.w])")


def test_a_decay_by_value_zero_debias_and_a_name_are_kept_and_other_forms_stay_todos():
    kept, _ = _found(args="0.9, zero_debias=True, name='avg'")
    assert kept.constructor == "tf.train.ExponentialMovingAverage(0.9, zero_debias=True, name='avg')"
    # num_updates other than the global step the train op increments: TF2's iterations would count otherwise
    assert _found(args="DECAY, num_updates=tf.constant(5)")[0] is None
    # the group also assigns a counter of its own: the whole run stays a TODO, nothing dropped without a mark
    assert _found(extra=", tf.assign_add(tf.Variable(0.0, trainable=False), 1.0)")[0] is None


def test_tf2s_average_computes_tf1s_formula_with_num_updates():
    """What the written code relies on: TF2's ExponentialMovingAverage, given a Keras optimizer's iteration count,
    updates as TF1's does: shadow -= (1 - min(decay, (1 + n) / (10 + n))) * (shadow - weight), from the weight's
    value when `apply` first saw it."""
    import keras

    w = tf.Variable([1.0, 2.0])
    optimizer = keras.optimizers.SGD(0.5)
    ema = tf.train.ExponentialMovingAverage(0.99, num_updates=optimizer.iterations)
    ema.apply([w])
    shadow, expected = ema.average(w), np.array([1.0, 2.0])
    np.testing.assert_array_equal(shadow.numpy(), expected)  # made from the initial weight, moved nowhere
    for _ in range(3):
        optimizer.apply_gradients([(tf.constant([1.0, -1.0]), w)])
        ema.apply([w])
        n = float(optimizer.iterations.numpy())
        decay = min(0.99, (1 + n) / (10 + n))
        expected = expected - (1 - decay) * (expected - w.numpy())
        np.testing.assert_allclose(shadow.numpy(), expected, rtol=1e-6)
    assert shadow.name == "Variable/ExponentialMovingAverage:0" or shadow.name.endswith("/ExponentialMovingAverage:0")
