"""The rewrite's optimizer takes the script's own names for its settings, only where that name is safe to read."""

import ast

import pytest

from tfcompare.scripts.convert.optimizers import script_constants

SCRIPT = """
learning_rate = 0.01
beta = 0.8
flag = True
x = tf.placeholder(tf.float32, [None, 3])
opt = tf.train.AdamOptimizer(learning_rate, beta1=beta, epsilon=flag).minimize(loss)
with tf.Session() as sess:
    sess.run(opt)
"""


def _own(source: str, module: dict, first_step_line: int = 8) -> dict:
    return script_constants(ast.parse(source), module, first_step_line)


def test_a_module_level_number_passed_to_the_constructor_names_its_setting():
    assert _own(SCRIPT, {"learning_rate": 0.01, "beta": 0.8, "flag": True}) == {
        "learning_rate": "learning_rate", "beta1": "beta"}  # a bool is no setting's number


@pytest.mark.parametrize("source, why", [
    (SCRIPT.replace("beta = 0.8\n", "beta = 0.8\nbeta = 0.9\n"), "bound twice"),
    (SCRIPT + "    beta *= 0.5\n", "changed in the loop"),
    (SCRIPT.replace("beta = 0.8", "beta = rate()"), "not a number in the source"),
    (SCRIPT.replace("opt = tf", "opt2 = tf.train.AdamOptimizer(beta)\nopt = tf"), "two constructors"),
])
def test_a_name_that_may_not_hold_the_setting_is_not_used(source, why):
    own = _own(source, {"learning_rate": 0.01, "beta": 0.8})
    assert "beta1" not in own, why


def test_a_constant_assigned_after_the_first_step_is_not_used():
    assert _own(SCRIPT, {"learning_rate": 0.01, "beta": 0.8}, first_step_line=2) == {}
