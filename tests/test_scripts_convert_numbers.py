"""The script's own expressions for the numbers TF1 folded into its graph (`7*7*32`, `2 * n_samples`): found
only where exactly one part of the statement computes the constant from literals and names bound once above."""

import ast
import contextlib

import numpy as np
import pytest

from tfcompare.scripts.convert.script_numbers import ScriptNumbers

SOURCE = """n_samples = train_X.shape[0]
LR = 0.01
k = 2
k2 = 3
k2 = 4
flat = tf.reshape(pool2, [-1, 7*7*32])
cost = tf.reduce_sum(tf.pow(pred - Y, 2)) / (2 * n_samples)
scaled = x / 255.
axis_and_k = tf.reduce_sum(x, 1) * (k - 1)
rebound = x * k2
late = 5
uses_late = x * (late + 1)
plain = tf.reshape(x, [-1, 784])
third = x * (1 / 3)
"""
GLOBALS = {"n_samples": 17, "LR": 0.01, "k": 2, "k2": 4, "late": 5, "train_X": np.zeros((17, 1))}


@pytest.mark.parametrize("line, value, expected", [
    (6, np.array([-1, 1568], np.int32), "[-1, 7 * 7 * 32]"),  # the shape list, not its folded number
    (7, np.float32(34.0), "2 * n_samples"),  # an int expression for a float constant
    (7, np.float32(2.0), None),  # the literal 2 twice (pow's exponent and the product's): ambiguous
    (8, np.float32(255.0), None),  # a literal alone gains nothing
    (9, np.int32(1), None),  # the axis 1 and `k - 1` both compute 1: ambiguous
    (10, np.float32(4.0), None),  # k2 is bound twice: the value the model reads could be another
    (12, np.float32(6.0), None),  # `late` is bound below the graph's first step (line 11)
    (13, np.array([-1, 784], np.int32), None),  # literals only
    (14, np.float32(1 / 3), "1 / 3"),  # compared in float32, the constant's dtype
    (14, np.int32(0), None),  # an integer constant only from ints
])
def test_an_expression_is_the_scripts_only_where_it_is_the_one(line, value, expected):
    numbers = ScriptNumbers(ast.parse(SOURCE), GLOBALS, before_line=11)
    assert numbers.expression(line, np.asarray(value)) == expected
    assert set(numbers.numbers) == {"n_samples", "LR", "k"}


@contextlib.contextmanager
def _session(source: str, tmp_path, name: str):
    """The TF1 graph of `source`, run from a file (its ops' tracebacks name it), its variables initialised."""
    import tensorflow as tf

    script = tmp_path / name
    script.write_text(source)
    namespace: dict = {}
    with tf.Graph().as_default():
        exec(compile(source, str(script), "exec"), namespace)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            yield str(script), namespace, sess


_SHAPES = '''
import tensorflow.compat.v1 as tf
n_input = 784
n_hidden_1 = 256
n_classes = 10
weights = {
    'h1': tf.Variable(tf.random_normal([n_input, n_hidden_1])),
    'h2': tf.Variable(tf.random_normal([n_hidden_1, n_hidden_1])),
    'out': tf.Variable(tf.random_normal([n_hidden_1, n_classes])),
}
b = tf.Variable(tf.zeros([n_classes]))
c = tf.Variable(tf.zeros([10]))
'''


def test_a_variables_shape_is_the_scripts_expression_of_it(tmp_path):
    """`tf.random_normal([n_input, n_hidden_1])` in a dict of weights is written with the script's names (a
    reviewer: "hard-coded sizes"), in the dict's one statement each shape found once; literals stay literals.
    The written initializers, run where the script's numbers are bound, make TF1's shapes."""
    import tensorflow as tf

    from tfcompare.scripts.convert.model_init import variable_line
    from tfcompare.scripts.convert.ops import Translator

    with _session(_SHAPES, tmp_path, "shapes.py") as (script, namespace, sess):
        tr = Translator(script, _SHAPES.split("\n"), sess, {}, {}, {}, {})
        tr.script_numbers = ScriptNumbers(ast.parse(_SHAPES), namespace, 100)
        made = [namespace["weights"][k] for k in ("h1", "h2", "out")] + [namespace["b"], namespace["c"]]
        lines = [variable_line(f"v{i}", v, sess, tr).split("  # ")[0].strip() for i, v in enumerate(made)]
    assert [line.split(" = ", 1)[1].split(", name=")[0] for line in lines] == [
        "tf.Variable(tf.random.normal([n_input, n_hidden_1], stddev=1.0)",
        "tf.Variable(tf.random.normal([n_hidden_1, n_hidden_1], stddev=1.0)",
        "tf.Variable(tf.random.normal([n_hidden_1, n_classes], stddev=1.0)",
        "tf.Variable(tf.zeros([n_classes])", "tf.Variable(tf.zeros([10])"]
    scope = {"tf": tf, "n_input": 784, "n_hidden_1": 256, "n_classes": 10, "self": type("M", (), {})()}
    for line in lines:
        exec(line, scope)
    assert [tuple(getattr(scope["self"], f"v{i}").shape) for i in range(5)] == [
        (784, 256), (256, 256), (256, 10), (10,), (10,)]


_SIZES = '''
import tensorflow.compat.v1 as tf
x = tf.placeholder(tf.float32, [None, 4, 4, 2])
weights = {'wd1': tf.Variable(tf.ones([32, 3]))}
W = tf.Variable(tf.ones([5, 2]))


def net(x):
    fc1 = tf.reshape(x, [-1, weights['wd1'].get_shape().as_list()[0]])
    h = tf.matmul(fc1, weights['wd1'])
    h = tf.reshape(h, [-1, int(W.shape[1]), 3 * W.get_shape()[0]])
    return h


out = net(x)
'''


def test_a_size_read_from_a_variables_shape_is_the_models_variables_shape(tmp_path):
    """Aymeric Damien's `tf.reshape(conv2, [-1, weights['wd1'].get_shape().as_list()[0]])` was `[-1, 3136]`: the
    size is the model's weight's (`self.weights_wd1.shape[0]`), in each form TF1 code reads it."""
    from tfcompare.scripts.convert.ops import Translator

    with _session(_SIZES, tmp_path, "sizes.py") as (script, namespace, sess):
        variables = {namespace["weights"]["wd1"].op.name: "weights_wd1", namespace["W"].op.name: "W"}
        tr = Translator(script, _SIZES.split("\n"), sess, {}, variables, {"Placeholder": "x"}, {})
        tr.script_numbers = ScriptNumbers(ast.parse(_SIZES), namespace, 100, variables)
        lines, expr = tr.function(namespace["out"])
    assert [line.code for line in lines] == [
        "flat1 = tf.reshape(x, [-1, self.weights_wd1.shape[0]])",
        "flat2 = tf.reshape(tf.matmul(flat1, self.weights_wd1), [-1, self.W.shape[1], 3 * self.W.shape[0]])"]
