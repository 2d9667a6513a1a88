"""Which of an Estimator's metrics `convert` can write, read in-process from the legacy Estimator's TRAIN graph:
the TRAIN spec's eval_metric_ops, or (the guide's style) the EVAL spec's names for metric ops the TRAIN graph built
before its mode branch. A metric the TRAIN graph never built, or built over other ops (a dropout live only in
training), is not claimed: its evaluate() stays marked."""

import numpy as np
import pytest
import tensorflow as tf

from tfcompare.scripts.convert.estimator_runs import _metric_ops
from tfcompare.scripts.legacy import estimator

v1 = tf.compat.v1
X = np.arange(24, dtype=np.float32).reshape(12, 2) / 10
Y = (X[:, 0] > X[:, 1] - 0.05).astype(np.int32)


def _model_fn(where: str):
    """A softmax classifier whose accuracy is built `before` the mode branch, `inside` the EVAL branch only, or
    before it over a dropout live in training (`dropout`)."""
    def model_fn(features, labels, mode):
        w = v1.get_variable("w", [2, 2], initializer=tf.ones_initializer())
        logits = tf.matmul(features["x"], w)
        if where == "dropout":
            logits = tf.nn.dropout(logits, rate=0.5) if mode == estimator.ModeKeys.TRAIN else logits
        loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
        if where != "inside":
            accuracy = v1.metrics.accuracy(labels, tf.argmax(logits, 1), name="acc_op")
        if mode == estimator.ModeKeys.EVAL:
            if where == "inside":
                accuracy = v1.metrics.accuracy(labels, tf.argmax(logits, 1), name="acc_op")
            return estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})
        train_op = v1.train.GradientDescentOptimizer(0.1).minimize(loss, v1.train.get_global_step())
        return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    return model_fn


@pytest.mark.parametrize("where, found", [("before", True), ("inside", False), ("dropout", False)])
def test_an_eval_branchs_metric_is_the_train_graphs_op_of_its_name_only_where_it_computes_the_same(tmp_path, where,
                                                                                                   found):
    model = estimator.Estimator(_model_fn(where), model_dir=str(tmp_path))
    model.train(estimator.numpy_input_fn({"x": X}, Y, batch_size=4, num_epochs=None, shuffle=False), steps=1)
    spec = model._train_spec
    assert spec.eval_metric_ops == {}
    ops = _metric_ops(model, spec)
    if not found:
        assert ops == {}
        return
    assert list(ops) == ["accuracy"]
    value, update = ops["accuracy"]
    assert value.graph is spec.loss.graph and update.graph is spec.loss.graph  # the TRAIN graph's own tensors
    assert (value.name, update.name) == ("acc_op/value:0", "acc_op/update_op:0")
    # the EVAL spec was built in a graph of its own: the TRAIN graph holds one accuracy, and evaluate still runs
    assert len([op for op in spec.loss.graph.get_operations() if op.name == "acc_op/update_op"]) == 1
    result = model.evaluate(estimator.numpy_input_fn({"x": X}, Y, batch_size=6, shuffle=False))
    assert result["global_step"] == 1 and 0.0 <= result["accuracy"] <= 1.0


def test_a_train_spec_with_metrics_is_read_as_it_is(tmp_path):
    def model_fn(features, labels, mode):
        w = v1.get_variable("w", [2, 2], initializer=tf.ones_initializer())
        logits = tf.matmul(features["x"], w)
        loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = v1.train.GradientDescentOptimizer(0.1).minimize(loss, v1.train.get_global_step())
        metrics = {"acc": v1.metrics.accuracy(labels, tf.argmax(logits, 1))}
        return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)

    model = estimator.Estimator(model_fn, model_dir=str(tmp_path))
    model.train(estimator.numpy_input_fn({"x": X}, Y, batch_size=4, num_epochs=None, shuffle=False), steps=1)
    assert _metric_ops(model, model._train_spec) == model._train_spec.eval_metric_ops
    assert _metric_ops(None, None) == {}


_FRAMEWORK_SCRIPT = '''
import tensorflow as tf
v1 = tf.compat.v1

def model_fn(features):
    net = features
    for units in (3, 4):
        w = v1.get_variable("w%d" % units, [net.shape[1], units])
        net = tf.nn.relu(tf.matmul(net, w))
    logits = tf.matmul(net, v1.get_variable("out", [4, 2]))
    loss = tf.reduce_sum(logits)
    return loss

result = CALLER(model_fn, v1.placeholder(tf.float32, [None, 2]))
'''


@pytest.mark.parametrize("caller", ["framework", "script"])
def test_a_model_fn_only_a_framework_calls_lends_its_local_names_to_the_forward_pass(tmp_path, caller):
    """An Estimator calls the model_fn (no call of the script's own): the forward pass takes the model_fn's names
    (`logits`, the last `net`), read from the ops' lines. A function the script calls itself is find_calls'."""
    import ast

    from tfcompare.scripts.convert.script_functions import framework_names

    path = tmp_path / "script.py"
    text = _FRAMEWORK_SCRIPT.replace("CALLER", "call_it" if caller == "framework" else "(lambda f, x: model_fn(x))")
    path.write_text(text)
    with tf.Graph().as_default() as graph:
        scope = {"call_it": lambda f, x: f(x)}  # the framework: not the script's code
        exec(compile(text, str(path), "exec"), scope)
        loss = scope["result"]
        logits = loss.op.inputs[0]
        names = framework_names(graph, str(path), ast.parse(text), logits)
    if caller == "script":
        assert names == {}
        return
    assert names[logits.name] == "logits" and names[loss.name] == "loss"
    relu = logits.op.inputs[0]  # the loop's last value keeps `net`; the first one's ops are the same line's
    assert relu.op.type == "Relu" and names[relu.name] == "net"
    # and `w` its variables' (the forward pass reads a variable as the model's attribute, never by this name)
    assert sorted(set(names.values())) == ["logits", "loss", "net", "w"]

