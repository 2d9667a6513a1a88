"""A TF1 script that feeds one example per step as rank-0 values (`for (x, y) in zip(train_X, train_Y):
sess.run(optimizer, feed_dict={X: x, Y: y})`, as aymericdamien's linear_regression does) has TF1's batch in
its scalar feeds: pair gives them to the TF2 step's rank-0 arguments, identifies and times that step.
A fed keep_prob or learning rate (one value at every step) is never taken for data."""

import textwrap

import numpy as np

from tfcompare.scripts.child.tf2_inputs import example_feeds
from tfcompare.scripts.pair import AGREE, DIFFER, PairOptions, pair_scripts

_TF1 = '''
import numpy
import tensorflow as tf
rng = numpy.random
rng.seed(3)
train_X = numpy.asarray([3.3, 4.4, 5.5, 6.71, 6.93, 4.168, 9.779, 6.182])
train_Y = numpy.asarray([1.7, 2.76, 2.09, 3.19, 1.694, 1.573, 3.366, 2.596])
X = tf.placeholder("float")
Y = tf.placeholder("float")
W = tf.Variable(rng.randn(), name="weight")
b = tf.Variable(rng.randn(), name="bias")
pred = tf.add(tf.multiply(X, W), b)
cost = tf.reduce_sum(tf.pow(pred - Y, 2)) / (2 * 8)
optimizer = tf.train.GradientDescentOptimizer(0.01).minimize(cost)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(5):
        for (x, y) in zip(train_X, train_Y):
            sess.run(optimizer, feed_dict={X: x, Y: y})
'''

_TF2 = '''
import numpy
import tensorflow as tf
rng = numpy.random
rng.seed(3)
train_X = numpy.asarray([3.3, 4.4, 5.5, 6.71, 6.93, 4.168, 9.779, 6.182])
train_Y = numpy.asarray([1.7, 2.76, 2.09, 3.19, 1.694, 1.573, 3.366, 2.596])
W = tf.Variable(rng.randn(), dtype=tf.float32, name="weight")
b = tf.Variable(rng.randn(), dtype=tf.float32, name="bias")
optimizer = tf.keras.optimizers.SGD(learning_rate=LEARNING_RATE)


@tf.function(input_signature=[tf.TensorSpec(None, tf.float32), tf.TensorSpec(None, tf.float32)])
def train_step(x, y):
    with tf.GradientTape() as tape:
        cost = tf.reduce_sum(tf.pow(x * W + b - y, 2)) / (2 * 8)
    gradients = tape.gradient(cost, [W, b])
    optimizer.apply_gradients(zip(gradients, [W, b]))
    return cost


for epoch in range(5):
    for (x, y) in ORDER:
        train_step(x, y)
'''


def _pair(tmp_path, rate="0.01", order="zip(train_X, train_Y)"):
    (tmp_path / "tf1_lin.py").write_text(textwrap.dedent(_TF1))
    (tmp_path / "tf2_lin.py").write_text(_TF2.replace("LEARNING_RATE", rate).replace("ORDER", order))
    return pair_scripts(tmp_path / "tf1_lin.py", tmp_path / "tf2_lin.py", PairOptions(steps=3, timing=True))


def test_scalar_examples_are_tf1s_batch_the_step_is_identified_and_timed(tmp_path):
    # TF2 walks the data backwards: it trains on TF1's examples only if pair gave them to its step
    result = _pair(tmp_path, order="reversed(list(zip(train_X, train_Y)))")
    assert result.status == AGREE, "\n".join(result.lines())
    assert result.sides["tf2"]["step_function"].startswith("train_step()")
    said = " ".join(result.lines())
    assert "TF1 feeds one example per step as rank-0 values (Placeholder, Placeholder_1); TF2's rank-0 " \
           "arguments took them in order" in said
    assert "outside a function" not in said
    assert "the first example differs (TF1 3.3, TF2 6.182)" in said
    t = result.timing
    assert t["timed"] and t["retraces"] == 0 and t["tf1"]["median_s"] > 0 and t["tf2"]["median_s"] > 0
    assert t["speedup"]["low"] <= t["speedup"]["estimate"] <= t["speedup"]["high"]


def test_a_learning_rate_twice_tf1s_on_scalar_examples_differs(tmp_path):
    result = _pair(tmp_path, rate="0.02")
    assert result.status == DIFFER, "\n".join(result.lines())


def _feed(name, dtype="float32"):
    return {"name": name, "kind": "scalar", "dtype": dtype, "shape": []}


def test_only_rank_0_feeds_that_change_every_step_are_examples():
    steps = [{"x": np.float32(v), "y": np.float32(2 * v), "keep": np.float32(0.5)} for v in (1.0, 2.0, 3.0)]
    assert example_feeds([_feed("x"), _feed("y")], steps) == ["x", "y"]
    assert example_feeds([_feed("x"), _feed("keep")], steps) == []  # a fed keep_prob is a setting
    assert example_feeds([_feed("x"), _feed("y")], steps[:1]) == []  # one step cannot tell data from a setting
    assert example_feeds([_feed("x"), _feed("y", "bool")], steps) == []  # is_training
    assert example_feeds([_feed("x"), dict(_feed("y"), kind="features", shape=[3, 2])], steps) == []
