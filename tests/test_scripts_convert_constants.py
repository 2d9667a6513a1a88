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


def test_a_class_built_several_times_gives_its_optimizer_the_scripts_learning_rate():
    """`opt(LR, **kwargs)` in the class, `opt` a TF1 optimizer class the script passes in: LR is the first argument
    of every one, the learning rate; the rewrite's `Net(Momentum(learning_rate=LR, ...))`, not `0.01`."""
    source = "LR = 0.01\nclass Net:\n    def __init__(self, opt, **kwargs):\n        self.t = opt(LR, **kwargs)\n"
    call = ast.parse(source).body[1].body[0].body[0].value
    assert script_constants(ast.parse(source), {"LR": 0.01}, 10, call) == {"learning_rate": "LR"}
    assert script_constants(ast.parse(source), {"LR": 0.01}, 1, call) == {}  # bound below the graph: not read


def test_a_fetched_global_step_is_the_optimizers_iteration_count_with_or_without_a_schedule():
    """`minimize(loss, global_step=global_step)` and `sess.run([train_op, global_step, loss])`: the step TF1's
    train op adds to is what the Keras optimizer counts (both from 0, one per step); a counter the train op does not
    step is not. Before, without a decay schedule the fetch was a TODO and the rewrite took no step."""
    import tensorflow as tf

    from tfcompare.scripts.convert.optimizers import optimizer_values, stepped_variables

    v1 = tf.compat.v1
    with tf.Graph().as_default() as graph:
        w = v1.get_variable("w", [3], initializer=v1.ones_initializer())
        global_step = v1.Variable(0, trainable=False, name="global_step")
        other = v1.Variable(0, trainable=False, name="other")
        loss = tf.reduce_sum(tf.square(w))
        train_op = v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)
        stepped = stepped_variables(graph, train_op)
        module = {"global_step": global_step, "other": other, "loss": loss}
        assert stepped == {"global_step"}
        assert optimizer_values(module, None, tf, "optimizer", (graph, train_op)) == {
            "global_step": "optimizer.iterations.numpy()"}
        assert optimizer_values(module, None, tf, "optimizer") == {}
