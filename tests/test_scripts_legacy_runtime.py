"""The legacy runtime's shims, in-process at graph level: each against a hand-written tf.compat.v1 reference (and
the cells also against TF's own TF1 copy, `tensorflow.python.keras.layers.legacy_rnn`, where the wheel still
ships it), to float32 exactness; install/undo; refusals; importing tfcompare changes nothing."""

import importlib
import subprocess
import sys
import warnings

import keras  # noqa: F401 - then tf.compat.v1 and `import tensorflow.compat.v1` differ, as in pair's child
import numpy as np
import pytest
import tensorflow as tf

from tfcompare.scripts.legacy import coverage, estimator, layers, rnn
from tfcompare.scripts.legacy.runtime import install
from tfcompare.core.replacements import lookup

v1 = tf.compat.v1


def _session_values(build, feed_values, seed=3):
    """Build in a fresh graph; set every variable to seeded values; return (variable names, outputs)."""
    with tf.Graph().as_default():
        placeholders, outputs = build()
        names = sorted(v.op.name for v in v1.global_variables())
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for v in sorted(v1.global_variables(), key=lambda v: v.op.name):
                rng = np.random.default_rng([seed, sum(map(ord, v.op.name))])
                v.load(rng.normal(scale=0.5, size=v.shape).astype(np.float32), sess)
            return names, sess.run(outputs, dict(zip(placeholders, feed_values)))


_X = np.random.default_rng(0).normal(size=(4, 3, 5)).astype(np.float32)


def _lstm_reference(x, c, h, kernel, bias, forget_bias=1.0):
    """TF 1.15 BasicLSTMCell.call written out: gates i, j, f, o."""
    i, j, f, o = tf.split(tf.nn.bias_add(tf.matmul(tf.concat([x, h], 1), kernel), bias), 4, axis=1)
    new_c = c * tf.sigmoid(f + forget_bias) + tf.sigmoid(i) * tf.tanh(j)
    return new_c, tf.tanh(new_c) * tf.sigmoid(o)


def test_basic_lstm_cell_through_static_rnn_equals_the_hand_written_tf1_formula_and_names():
    def mine():
        x = v1.placeholder(tf.float32, [4, 3, 5])
        outputs, state = v1.nn.static_rnn(rnn.BasicLSTMCell(7), tf.unstack(x, axis=1), dtype=tf.float32)
        return [x], [outputs[-1], state.c]

    def reference():
        x = v1.placeholder(tf.float32, [4, 3, 5])
        with v1.variable_scope("rnn/basic_lstm_cell"):
            kernel = v1.get_variable("kernel", [12, 28])
            bias = v1.get_variable("bias", [28], initializer=tf.zeros_initializer())
        c = h = tf.zeros([4, 7])
        for step in tf.unstack(x, axis=1):
            c, h = _lstm_reference(step, c, h, kernel, bias)
        return [x], [h, c]

    names, got = _session_values(mine, [_X])
    ref_names, want = _session_values(reference, [_X])
    assert names == ref_names == ["rnn/basic_lstm_cell/bias", "rnn/basic_lstm_cell/kernel"]
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_an_lstm_trained_three_steps_through_static_rnn_matches_the_hand_written_reference():
    def train(cell_fn):
        def build():
            x = v1.placeholder(tf.float32, [4, 3, 5])
            y = v1.placeholder(tf.float32, [4, 2])
            h = cell_fn(x)
            w = v1.get_variable("w", [7, 2])
            loss = tf.reduce_mean(tf.square(tf.matmul(h, w) - y))
            step = v1.train.GradientDescentOptimizer(0.5).minimize(loss)
            return [x, y], (loss, step)
        with tf.Graph().as_default():
            placeholders, (loss, step) = build()
            with v1.Session() as sess:
                sess.run(v1.global_variables_initializer())
                for v in sorted(v1.global_variables(), key=lambda v: v.op.name):
                    rng = np.random.default_rng(sum(map(ord, v.op.name)))
                    v.load(rng.normal(scale=0.5, size=v.shape).astype(np.float32), sess)
                y = np.random.default_rng(1).normal(size=(4, 2)).astype(np.float32)
                losses = [sess.run([loss, step], {placeholders[0]: _X, placeholders[1]: y})[0] for _ in range(3)]
                return losses, {v.op.name: sess.run(v) for v in v1.global_variables()}

    def mine(x):
        outputs, _ = v1.nn.static_rnn(rnn.BasicLSTMCell(7), tf.unstack(x, axis=1), dtype=tf.float32)
        return outputs[-1]

    def reference(x):
        with v1.variable_scope("rnn/basic_lstm_cell"):
            kernel, bias = v1.get_variable("kernel", [12, 28]), v1.get_variable("bias", [28])
        c = h = tf.zeros([4, 7])
        for step in tf.unstack(x, axis=1):
            c, h = _lstm_reference(step, c, h, kernel, bias)
        return h

    losses, weights = train(mine)
    ref_losses, ref_weights = train(reference)
    assert losses == ref_losses and losses[2] < losses[0]
    assert sorted(weights) == sorted(ref_weights)
    for name in weights:
        np.testing.assert_array_equal(weights[name], ref_weights[name])


_CELLS = {
    "basic_lstm": lambda m: m.BasicLSTMCell(7),
    "lstm_peepholes_projection_clip": lambda m: m.LSTMCell(7, use_peepholes=True, num_proj=3, cell_clip=0.5,
                                                           proj_clip=0.8, forget_bias=0.3),
    "gru": lambda m: m.GRUCell(6),
    "basic_rnn": lambda m: m.BasicRNNCell(6),
    "multi_with_dropout_wrapper": lambda m: m.MultiRNNCell([m.DropoutWrapper(m.BasicLSTMCell(4)), m.GRUCell(3)]),
    "concatenated_state": lambda m: m.BasicLSTMCell(4, state_is_tuple=False),
}


@pytest.mark.parametrize("kind, loop", [(k, loop) for k in sorted(_CELLS) for loop in ("static_rnn", "dynamic_rnn")]
                         + [("basic_lstm", "static_bidirectional_rnn"), ("gru", "static_bidirectional_rnn")])
def test_each_cell_equals_tensorflows_own_tf1_cell_exactly_with_the_same_variable_names(kind, loop):
    legacy = pytest.importorskip("tensorflow.python.keras.layers.legacy_rnn.rnn_cell_impl")

    def build(module):
        def inner():
            x = v1.placeholder(tf.float32, [4, 3, 5])
            cell = _CELLS[kind](module)
            if loop == "static_rnn":
                outputs, state = v1.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32)
                outputs = tf.stack(outputs)
            elif loop == "static_bidirectional_rnn":
                outputs, fw, bw = v1.nn.static_bidirectional_rnn(cell, _CELLS[kind](module), tf.unstack(x, axis=1),
                                                                 dtype=tf.float32)
                outputs, state = tf.stack(outputs), (fw, bw)
            else:
                outputs, state = v1.nn.dynamic_rnn(cell, x, dtype=tf.float32)
            return [x], [outputs, tf.nest.flatten(state)]
        return inner

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref_names, want = _session_values(build(legacy), [_X])
    names, got = _session_values(build(rnn), [_X])
    assert names == ref_names
    for a, b in zip(tf.nest.flatten(got), tf.nest.flatten(want)):
        np.testing.assert_array_equal(a, b)


def test_stack_bidirectional_dynamic_rnn_names_and_concatenates_both_directions():
    def build():
        x = v1.placeholder(tf.float32, [4, 3, 5])
        out, fw, bw = rnn.stack_bidirectional_dynamic_rnn([rnn.GRUCell(3), rnn.GRUCell(2)],
                                                          [rnn.GRUCell(3), rnn.GRUCell(2)], x, dtype=tf.float32)
        return [x], [out, fw[-1], bw[-1]]
    names, (out, fw, bw) = _session_values(build, [_X])
    assert out.shape == (4, 3, 4) and fw.shape == bw.shape == (4, 2)
    assert "stack_bidirectional_rnn/cell_1/bidirectional_rnn/bw/gru_cell/gates/kernel" in names
    np.testing.assert_array_equal(out[:, -1, :2], fw)  # forward's last output is its final state


def test_fully_connected_conv2d_pool_flatten_equal_their_formulas_with_tf1_names_and_defaults():
    image = np.random.default_rng(2).random((2, 6, 6, 3)).astype(np.float32)

    def mine():
        x = v1.placeholder(tf.float32, [None, 6, 6, 3])
        conv = layers.conv2d(x, 4, 3)
        flat = layers.flatten(layers.max_pool2d(conv, 2))
        return [x], [conv, flat, layers.fully_connected(flat, 5)]

    def reference():
        x = v1.placeholder(tf.float32, [None, 6, 6, 3])
        with v1.variable_scope("Conv"):
            w, b = v1.get_variable("weights", [3, 3, 3, 4]), v1.get_variable("biases", [4])
        conv = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), b))
        flat = tf.reshape(tf.nn.max_pool2d(conv, 2, 2, "VALID"), [-1, 36])
        with v1.variable_scope("fully_connected"):
            fw, fb = v1.get_variable("weights", [36, 5]), v1.get_variable("biases", [5])
        return [x], [conv, flat, tf.nn.relu(tf.matmul(flat, fw) + fb)]

    names, got = _session_values(mine, [image])
    ref_names, want = _session_values(reference, [image])
    assert names == ref_names == ["Conv/biases", "Conv/weights", "fully_connected/biases", "fully_connected/weights"]
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_initializers_and_l2_regularizer_have_tf1_scales():
    with tf.Graph().as_default(), v1.Session() as sess:
        xavier = sess.run(layers.xavier_initializer(seed=1)([400, 600]))
        scaled = sess.run(layers.variance_scaling_initializer(seed=1)([500, 100]))
        w = v1.get_variable("w", [3, 2], initializer=tf.ones_initializer(),
                            regularizer=layers.l2_regularizer(0.25))
        sess.run(v1.global_variables_initializer())
        reg = sess.run(v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES))
    limit = np.sqrt(6.0 / 1000)  # sqrt(3 * 1.0 / ((400 + 600) / 2))
    assert np.abs(xavier).max() <= limit and np.abs(xavier).max() > 0.99 * limit
    assert abs(scaled.std() / (np.sqrt(1.3 * 2.0 / 500) * 0.8796) - 1) < 0.02  # a normal truncated at 2 sigma
    assert reg == [pytest.approx(0.25 * 6 / 2)] and w.op.name == "w"
    assert layers.l2_regularizer(0.0)(tf.ones([2])) is None


def test_batch_norm_trains_on_batch_statistics_and_updates_its_moving_averages():
    x_value = np.random.default_rng(4).normal(2.0, 3.0, size=(8, 3)).astype(np.float32)
    with tf.Graph().as_default(), v1.Session() as sess:
        x = v1.placeholder(tf.float32, [8, 3])
        out = layers.batch_norm(x, decay=0.9, scale=True)
        updates = v1.get_collection(v1.GraphKeys.UPDATE_OPS)
        sess.run(v1.global_variables_initializer())
        got, _ = sess.run([out, updates], {x: x_value})
        moving_mean = sess.run([v for v in v1.global_variables() if v.op.name == "BatchNorm/moving_mean"][0])
    want = (x_value - x_value.mean(0)) / np.sqrt(x_value.var(0) + 0.001)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert len(updates) == 2
    np.testing.assert_allclose(moving_mean, 0.1 * x_value.mean(0), rtol=1e-5)


def test_arg_scope_sets_defaults_and_optimize_loss_is_one_optimizer_step():
    with tf.Graph().as_default(), v1.Session() as sess:
        x = tf.ones([2, 3])
        with layers.arg_scope([layers.fully_connected], activation_fn=None,
                              weights_initializer=tf.ones_initializer()):
            y = layers.fully_connected(x, 2)
        loss = tf.reduce_sum(y)
        step = layers.optimize_loss(loss, v1.train.get_or_create_global_step(), 0.1, "SGD")
        sess.run(v1.global_variables_initializer())
        before = sess.run(loss)
        sess.run(step)
        after = sess.run(loss)
    assert before == 12.0  # ones weights, no activation: each of 2x2 outputs is 3
    # d loss / d w = 2 for each of 6 weights, 2 for each of 2 biases; the loss drops by 0.1 * (4 * 6 + 4 * 2)
    assert after == pytest.approx(12.0 - 0.1 * (4 * 6 + 4 * 2), rel=1e-6)


def test_an_estimator_trained_three_steps_matches_three_hand_computed_gradient_steps(tmp_path):
    x = np.arange(24, dtype=np.float32).reshape(12, 2) / 10
    y = (x @ np.array([[1.5], [-2.0]], np.float32) + 0.5).ravel()

    def model_fn(features, labels, mode, params):
        w = v1.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
        b = v1.get_variable("b", [1], initializer=tf.zeros_initializer())
        pred = tf.squeeze(tf.matmul(features["x"], w) + b, 1)
        if mode == estimator.ModeKeys.PREDICT:
            return estimator.EstimatorSpec(mode, predictions={"y": pred})
        loss = tf.reduce_mean(tf.square(pred - labels))
        train_op = v1.train.GradientDescentOptimizer(params["lr"]).minimize(loss, v1.train.get_global_step())
        return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                       eval_metric_ops={"mae": v1.metrics.mean_absolute_error(labels, pred)})

    model = estimator.Estimator(model_fn, model_dir=str(tmp_path), params={"lr": 0.1})
    model.train(estimator.numpy_input_fn({"x": x}, y, batch_size=4, num_epochs=None, shuffle=False), steps=3)
    w, b = np.zeros((2, 1), np.float32), np.zeros(1, np.float32)
    for k in range(3):
        bx, by = x[4 * k:4 * k + 4], y[4 * k:4 * k + 4]
        err = (bx @ w).ravel() + b - by
        w, b = w - 0.1 * (2 * bx.T @ err / 4)[:, None], b - 0.1 * np.array([2 * err.mean()], np.float32)
    np.testing.assert_allclose(model.get_variable_value("w"), w, rtol=1e-6)
    np.testing.assert_allclose(model.get_variable_value("b"), b, rtol=1e-6)
    results = model.evaluate(estimator.numpy_input_fn({"x": x}, y, batch_size=5, shuffle=False))
    pred = (x @ w).ravel() + b
    assert results["global_step"] == 3
    assert results["mae"] == pytest.approx(np.abs(pred - y).mean(), rel=1e-5)
    assert results["loss"] == pytest.approx(np.mean([np.mean((pred - y)[i:i + 5] ** 2) for i in (0, 5, 10)]), rel=1e-5)
    predicted = list(model.predict(estimator.numpy_input_fn({"x": x}, shuffle=False, batch_size=5)))
    assert len(predicted) == 12
    np.testing.assert_allclose([p["y"] for p in predicted], pred, rtol=1e-5)
    with pytest.raises(ValueError, match="shuffle must be provided"):
        estimator.numpy_input_fn({"x": x}, y)


def test_tfe_gradients_are_the_tapes_and_a_summary_keeps_its_tf1_meaning(tmp_path):
    from tfcompare.scripts.legacy import eager

    w = tf.Variable(3.0)
    value, grads = eager.implicit_value_and_gradients(lambda a: w * w * a)(2.0)
    assert float(value) == 18.0 and float(grads[0][0]) == 12.0 and grads[0][1] is w
    assert sum(1 for _ in eager.Iterator(tf.data.Dataset.range(5))) == 5
    undo = install()
    try:
        tf1 = importlib.import_module("tensorflow.compat.v1")
        with tf.Graph().as_default(), tf1.Session() as sess:
            loss = tf.constant(2.5)
            tf1.summary.scalar("loss", loss)
            merged = tf1.summary.merge_all()
            writer = tf1.summary.FileWriter(str(tmp_path), sess.graph)
            writer.add_summary(sess.run(merged), 7)
            writer.close()
    finally:
        undo()
    events = [e for f in tmp_path.iterdir() for e in v1.train.summary_iterator(str(f))]
    values = [(e.step, v.tag, v.simple_value) for e in events for v in e.summary.value]
    assert values == [(7, "loss", 2.5)]


def test_install_serves_imports_and_attributes_and_undo_puts_everything_back():
    tf1 = importlib.import_module("tensorflow.compat.v1")
    meta_path = list(sys.meta_path)
    notes = []
    undo = install("script.py", notes)
    assert notes == []  # installing uses nothing
    try:
        from tensorflow.contrib import rnn as contrib_rnn  # noqa: F401 - the import is the test
        import tensorflow.contrib.eager as tfe
        from tensorflow.contrib.learn.python.learn.datasets.mnist import read_data_sets  # noqa: F401

        assert contrib_rnn.LSTMCell is rnn.LSTMCell and tfe.implicit_gradients is not None
        assert tf1.contrib.layers.fully_connected is layers.fully_connected
        assert tf1.contrib.slim.conv2d is layers.conv2d and tf1.contrib.slim.arg_scope is layers.arg_scope
        assert tf1.estimator.Estimator is estimator.Estimator
        assert tf1.estimator.inputs.numpy_input_fn is estimator.numpy_input_fn
        assert tf1.nn.rnn_cell.BasicLSTMCell is rnn.BasicLSTMCell or importlib.util.find_spec("tf_keras")
        used = {n.split(" came")[0] for n in notes}  # one note per namespace the script used
        assert {"tf.contrib.rnn", "tf.contrib.eager", "tf.contrib.layers", "tf.contrib.slim", "tf.estimator",
                "tf.estimator.inputs", "tf.contrib.learn.datasets.mnist"} <= used and len(used) == len(notes)
        namespace = {}
        exec("from tensorflow.contrib.rnn import *", namespace)
        assert namespace["GRUCell"] is rnn.GRUCell
    finally:
        undo()
    assert sys.meta_path == meta_path
    assert not hasattr(tf1, "contrib") and not hasattr(tf1, "estimator") and not hasattr(tf, "contrib")
    assert not [m for m in sys.modules if m.startswith(("tensorflow.contrib", "tensorflow.estimator"))]
    with pytest.raises(ImportError):
        importlib.import_module("tensorflow.contrib.rnn")


def test_what_is_not_provided_is_refused_with_the_symbol_the_replacement_and_the_migrate_line():
    tf1 = importlib.import_module("tensorflow.compat.v1")
    undo = install("train.py")
    try:
        with pytest.raises(AttributeError) as attr:
            tf1.estimator.DNNClassifier  # noqa: B018
        with pytest.raises(ModuleNotFoundError) as imported:
            importlib.import_module("tensorflow.contrib.tensor_forest.python")
        assert not hasattr(tf1.contrib, "boosted_trees")
        with pytest.raises(ImportError, match=r"^tf.contrib.slim.nets is not provided: .*: keras.applications"):
            exec("from tensorflow.contrib.slim import nets")  # Python's own `cannot import name` must not hide it
    finally:
        undo()
    assert str(attr.value) == (f"tf.estimator.DNNClassifier is not provided: TensorFlow 2 removed it and tfcompare's "
                               f"legacy runtime does not implement it; the TF2 replacement: {lookup('estimator')}. "
                               "`tfcompare migrate train.py` lists every removed API the script uses, with its "
                               "replacement")
    assert str(imported.value).startswith("tf.contrib.tensor_forest is not provided")
    assert lookup("contrib.tensor_forest") in str(imported.value) and "tfdf" in str(imported.value)


def test_coverage_lists_what_the_runtime_serves_and_migrate_reads_the_same_table():
    assert coverage.is_provided("tf.contrib.rnn.LSTMCell") and coverage.is_provided("tensorflow.estimator.Estimator")
    assert coverage.is_provided("tensorflow.contrib.learn.python.learn.datasets.mnist.read_data_sets")
    assert not coverage.is_provided("tf.contrib.factorization.KMeans")
    assert not coverage.is_provided("tf.estimator.DNNClassifier")
    table = "\n".join(coverage.table_lines())
    assert "| `tf.contrib.rnn` | BasicLSTMCell, BasicRNNCell, DropoutWrapper, GRUCell, LSTMCell," in table
    assert all(f"`tf.{n}`" in table for n in coverage.REFUSED)
    from tfcompare.tools.migrate.classify import idiom

    assert idiom("tensorflow.contrib.boosted_trees.estimator") == lookup("contrib.boosted_trees")


def test_importing_tfcompare_and_the_runtime_changes_nothing_in_tensorflow():
    code = ("import sys, importlib, tensorflow as tf\n"
            "before = list(sys.meta_path)\n"
            "import tfcompare, tfcompare.cli, tfcompare.scripts.legacy, tfcompare.scripts.legacy.runtime\n"
            "import tfcompare.scripts.child.main, tfcompare.scripts.run_tf1\n"
            "v1 = importlib.import_module('tensorflow.compat.v1')\n"
            "print(sys.meta_path == before, hasattr(v1, 'contrib'), hasattr(v1, 'estimator'), hasattr(tf, 'contrib'),"
            " any(m.startswith('tensorflow.contrib') for m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["True", "False", "False", "False", "False"], out.stderr[-2000:]


def test_a_scripts_own_rnncell_subclass_builds_and_runs_as_in_tf1():
    class Accumulator(rnn.RNNCell):  # what TF1 scripts write: state_size, output_size, build, call
        state_size = output_size = property(lambda self: 2)

        def build(self, inputs_shape):
            self.kernel = self.add_variable("kernel", [int(inputs_shape[-1]), 2], initializer=tf.ones_initializer())

        def call(self, inputs, state):
            out = state + tf.matmul(inputs, self.kernel)
            return out, out

    with tf.Graph().as_default(), v1.Session() as sess:
        outputs, state = v1.nn.dynamic_rnn(Accumulator(), tf.ones([3, 4, 5]), dtype=tf.float32)
        sess.run(v1.global_variables_initializer())
        assert [v.op.name for v in v1.global_variables()] == ["rnn/accumulator/kernel"]
        np.testing.assert_array_equal(sess.run(state), np.full((3, 2), 20.0, np.float32))


def test_the_readme_coverage_table_is_the_one_coverage_prints():
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    missing = [line for line in coverage.table_lines() if line and line not in readme]
    assert not missing, "README's run-tf1 coverage table is stale; paste `python -m tfcompare.scripts.legacy.coverage`"


def test_a_removed_name_anywhere_gets_the_migrate_line_once():
    from tfcompare.core.errors import legacy_hint

    assert legacy_hint("AttributeError: module 'tensorflow.compat.v1' has no attribute 'Foo'", "a.py") == \
        "; tf.Foo is not in this TensorFlow: `tfcompare migrate a.py` names its TF2 replacement"
    assert legacy_hint("ModuleNotFoundError: No module named 'tensorflow.contrib'", "a.py").startswith("; tf.contrib ")
    assert legacy_hint(coverage.refusal("contrib.crf.crf_log_likelihood", "a.py"), "a.py") == ""
    assert legacy_hint("ValueError: shapes differ", "a.py") == ""


def test_legacy_seq2seq_decoder_and_losses_equal_their_tf1_formulas_and_names():
    """char-rnn's `rnn_decoder(inputs, state, cell, loop_function, scope='rnnlm')` and `sequence_loss_by_example`,
    MorvanZhou's `sequence_loss_by_example(..., softmax_loss_function=ms_error)`: TF 1.15's definitions, against
    the loop and the cross-entropies written out (names, values to float32 exactness)."""
    from tfcompare.scripts.legacy import seq2seq

    labels = np.random.default_rng(1).integers(0, 7, size=(4, 3)).astype(np.int32)

    def mine():
        x, y = v1.placeholder(tf.float32, [4, 3, 5]), v1.placeholder(tf.int32, [4, 3])
        cell = rnn.BasicLSTMCell(7)
        outputs, state = seq2seq.rnn_decoder(tf.unstack(x, axis=1), cell.zero_state(4, tf.float32), cell,
                                             scope="rnnlm")
        by_example = seq2seq.sequence_loss_by_example(outputs, tf.unstack(y, axis=1), [tf.ones([4])] * 3)
        squared = seq2seq.sequence_loss(outputs[:1], [tf.ones([4, 7])], [tf.fill([4, 7], 0.5)],
                                        softmax_loss_function=lambda labels, logits: tf.square(labels - logits))
        return [x, y], [outputs[-1], state.c, by_example, squared]

    def reference():
        x, y = v1.placeholder(tf.float32, [4, 3, 5]), v1.placeholder(tf.int32, [4, 3])
        with v1.variable_scope("rnnlm/basic_lstm_cell"):
            kernel = v1.get_variable("kernel", [12, 28])
            bias = v1.get_variable("bias", [28], initializer=tf.zeros_initializer())
        c = h = tf.zeros([4, 7])
        outputs = []
        for step in tf.unstack(x, axis=1):
            c, h = _lstm_reference(step, c, h, kernel, bias)
            outputs.append(h)
        losses = [tf.nn.sparse_softmax_cross_entropy_with_logits(labels=t, logits=o) * tf.ones([4])
                  for t, o in zip(tf.unstack(y, axis=1), outputs)]
        by_example = tf.add_n(losses) / (tf.add_n([tf.ones([4])] * 3) + 1e-12)
        squared = tf.reduce_sum(tf.square(1.0 - outputs[0]) * 0.5 / (0.5 + 1e-12)) / 4.0
        return [x, y], [h, c, by_example, squared]

    names, got = _session_values(mine, [_X, labels])
    ref_names, want = _session_values(reference, [_X, labels])
    assert names == ref_names == ["rnnlm/basic_lstm_cell/bias", "rnnlm/basic_lstm_cell/kernel"]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    with pytest.raises(ValueError, match="Lengths of logits, weights, and targets must be the same 1, 2, 1"):
        seq2seq.sequence_loss_by_example([tf.ones([2, 3])], [tf.ones([2], tf.int32)], [tf.ones([2])] * 2)


def test_legacy_seq2seq_loop_function_feeds_each_output_back_in_its_own_scope():
    from tfcompare.scripts.legacy import seq2seq

    seen = []

    def loop(prev, i):
        seen.append((i, v1.get_variable_scope().name, v1.get_variable_scope().reuse))
        return prev[:, :5] * 2.0

    with tf.Graph().as_default(), v1.Session() as sess:
        v1.set_random_seed(7)
        cell = rnn.BasicRNNCell(6)
        inputs = [tf.ones([2, 5])] * 3
        outputs, _ = seq2seq.rnn_decoder(inputs, cell.zero_state(2, tf.float32), cell, loop_function=loop)
        sess.run(v1.global_variables_initializer())
        assert [v.op.name for v in v1.global_variables()] == ["rnn_decoder/basic_rnn_cell/kernel",
                                                              "rnn_decoder/basic_rnn_cell/bias"]
        first, second = sess.run(outputs[:2])
        kernel, bias = sess.run(v1.global_variables())
    assert seen == [(1, "rnn_decoder/loop_function", True), (2, "rnn_decoder/loop_function", True)]
    np.testing.assert_allclose(second, np.tanh(np.concatenate([first[:, :5] * 2.0, first], 1) @ kernel + bias),
                               rtol=1e-5, atol=1e-6)  # float32 sums of 11 terms: an element near 0 is off by ~1e-7
