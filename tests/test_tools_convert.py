"""`tfcompare convert`: TF1 scripts written for these tests in the style of public examples are converted, and the
TF2 scripts parse, import no compat.v1 / tfcompare, run on their own, and `pair` agrees with the original.

The six conversions (each a real child plus a real pair) run once for the module; the standalone runs of the six
written scripts share one process. The op translation is tested in-process on small graphs: the written TF2 code
is executed eagerly and must give the TF1 session's value.
"""

from __future__ import annotations

import ast
import concurrent.futures
import textwrap
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf
from click.testing import CliRunner
from conftest import run_written_scripts

from tfcompare.cli import cli
from tfcompare.tools.pair.convert import WRITTEN_AGREES, ConvertOptions, convert_script
from tfcompare.tools.pair.convert import source as carried
from tfcompare.tools.pair.convert.calls import Group
from tfcompare.tools.pair.convert.calls import _dynamic_rnn
from tfcompare.tools.pair.convert.ops import Translator
from tfcompare.tools.pair.convert.writer import LSTM_HELPER

DATA = Path(__file__).parent / "data" / "convert"
SCRIPTS = {  # script -> ARGS (dropout off so both sides' masks cannot differ)
    "logreg_gd": (), "mlp_adam": (), "cnn_dropout": ("--dropout", "1.0"), "autoencoder_rmsprop": (),
    "decay_momentum": (), "lstm_static_rnn": (), "mlp_batch_norm": (),
}


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    out = tmp_path_factory.mktemp("convert")
    with concurrent.futures.ThreadPoolExecutor(2) as pool:  # two at a time: a conversion waits on its processes
        futures = {name: pool.submit(convert_script, DATA / f"{name}.py", out / f"{name}_tf2.py",
                                     ConvertOptions(args=args)) for name, args in SCRIPTS.items()}
    return out, {name: f.result() for name, f in futures.items()}


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_converted_script_is_tf2_and_pair_agrees(converted, name):
    out, results = converted
    result = results[name]
    assert result.status == WRITTEN_AGREES, "\n".join(result.lines())
    assert result.todos == []
    text = (out / f"{name}_tf2.py").read_text()
    tree = ast.parse(text)
    imported = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    imported += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not [m for m in imported if "compat" in m or m.startswith("tfcompare")], imported
    assert "compat.v1" not in text and "Session" not in text and "placeholder" not in text
    assert "@tf.function" in text and "class Model(tf.Module)" in text
    assert len(result.pair.checks) == 3 and all(c.ok for c in result.pair.checks)


def test_written_optimizers_carry_tf1_settings(converted):
    out, _ = converted
    text = {name: (out / f"{name}_tf2.py").read_text() for name in SCRIPTS}
    assert "tf.keras.optimizers.SGD(learning_rate=0.5)" in text["logreg_gd"]
    assert "tf.keras.optimizers.Adam(learning_rate=0.01, beta_1=0.9, beta_2=0.999, epsilon=1e-08)" in text["mlp_adam"]
    assert "RMSProp(learning_rate=0.01, decay=0.9, momentum=0.0, epsilon=1e-10)" in text["autoencoder_rmsprop"]
    assert 'initializer="ones"' in text["autoencoder_rmsprop"]  # TF1's mean-square slot starts at 1
    assert ("Momentum(learning_rate=tf.keras.optimizers.schedules.ExponentialDecay(0.2, decay_steps=2.0, "
            "decay_rate=0.5, staircase=True), momentum=0.9)") in text["decay_momentum"]
    assert "tf.nn.dropout(h2, rate=1 - keep_prob)" in text["cnn_dropout"]
    assert "basic_lstm(tf.unstack(X, num=6, axis=1)" in text["lstm_static_rnn"]
    assert "h1 = tf.nn.relu(conv1 + self.biases_bc1)" in text["cnn_dropout"]
    assert "tf.nn.l2_loss(self.w1)" in text["decay_momentum"]
    assert ("bn1 = tf.raw_ops.FusedBatchNormV3(x=flat1, scale=self.BatchNorm_gamma, offset=self.BatchNorm_beta, "
            "mean=[], variance=[], epsilon=0.001, data_format='NHWC', is_training=True).y") in text["mlp_batch_norm"]
    assert "self.BatchNorm_gamma = tf.Variable(tf.ones([32])" in text["mlp_batch_norm"]
    assert "TODO" not in text["mlp_batch_norm"]  # the script ran no moving-average updates: none to carry
    # the script's own loop, batch size and logging are carried over
    assert "batch_size = 40" in text["decay_momentum"] and 'print("step %d: loss %.4f"' in text["decay_momentum"]
    assert "loss = model.loss_op(batch_x, batch_y, 1.0).numpy()" in text["cnn_dropout"]


def test_written_scripts_run_on_their_own(converted):
    """Each written script runs with --steps 3 (one process for all six, which must not import tfcompare)."""
    out, _ = converted
    proc = run_written_scripts(out, list(SCRIPTS))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.count("RUN ") == len(SCRIPTS)
    assert "TFCOMPARE False" in proc.stdout
    assert "Step:" in proc.stdout and "Minibatch Loss=" in proc.stdout and "step 0: loss" in proc.stdout


# -- op translation, in-process ---------------------------------------------------------------------------------


def _translate_and_compare(build, feeds: dict, groups=None):
    """Build a TF1 graph with `build(v1) -> (target, {placeholder: arg})`, translate it, run the TF2 code eagerly
    with the same variable values and feeds, and return (written lines, TF1 value, TF2 value)."""
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        target, args = build(v1, groups)
        variables = v1.global_variables()
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            values = dict(zip([v.op.name for v in variables], sess.run(variables)))
            expected = sess.run(target, {p: feeds[a] for p, a in args.items()})
            attrs = {v.op.name: v.op.name.replace("/", "_") for v in variables}
            tr = Translator("<test>", [], sess, {}, attrs, {p.op.name: a for p, a in args.items()}, groups or {})
            lines, expr = tr.function(target)
    code = "\n".join(line.code for line in lines) + f"\nresult = {expr}"
    model = type("M", (), {})()
    for name, attr in attrs.items():
        setattr(model, attr, tf.Variable(values[name]))
    scope = {"tf": tf, "self": model, **{a: tf.constant(feeds[a]) for a in args.values()}}
    exec(LSTM_HELPER, scope)
    exec(compile(code, "<written>", "exec"), scope)
    return [line.code for line in lines], expected, scope["result"].numpy()


def test_dense_layer_is_one_line_and_exact():
    rng = np.random.RandomState(0)

    def build(v1, groups):
        x = v1.placeholder(tf.float32, [None, 4])
        w = tf.Variable(rng.rand(4, 3).astype(np.float32), name="w")
        b = tf.Variable(rng.rand(3).astype(np.float32), name="b")
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b))
        return tf.reduce_sum(h, 1), {x: "x"}

    lines, tf1, tf2 = _translate_and_compare(build, {"x": rng.rand(5, 4).astype(np.float32)})
    assert lines == ["h1 = tf.nn.relu(tf.matmul(x, self.w) + self.b)", "t1 = tf.reduce_sum(h1, axis=1)"]
    np.testing.assert_array_equal(tf1, tf2)


def test_conv_pool_and_precedence_are_exact():
    rng = np.random.RandomState(1)

    def build(v1, groups):
        x = v1.placeholder(tf.float32, [None, 6, 6, 2])
        k = tf.Variable(rng.rand(3, 3, 2, 4).astype(np.float32), name="k")
        conv = tf.nn.relu(tf.nn.conv2d(x, k, strides=[1, 1, 1, 1], padding="SAME"))
        pool = tf.nn.max_pool(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
        a = tf.reduce_mean(pool, axis=[1, 2])
        return a - (a * 2.0 - 1.0) / (a + 3.0), {x: "x"}

    lines, tf1, tf2 = _translate_and_compare(build, {"x": rng.rand(2, 6, 6, 2).astype(np.float32)})
    assert any(line.startswith("pool1 = tf.nn.max_pool2d(") for line in lines)
    assert lines[-1].endswith("mean1 - (mean1 * 2.0 - 1.0) / (mean1 + 3.0)")
    np.testing.assert_allclose(tf1, tf2, rtol=1e-6)


def test_training_batch_norm_is_tf1s_fused_kernel_exactly():
    """contrib.layers.batch_norm(is_training=True) on a rank-2 input: the written line runs TF1's kernel, so the
    float32 output is bit-identical (tf.nn.moments + batch_normalization differs by ~5e-7 here)."""
    from tfcompare.core.legacy.layers import batch_norm

    rng = np.random.RandomState(4)

    def build(v1, groups):
        x = v1.placeholder(tf.float32, [None, 6])
        return tf.nn.relu(batch_norm(x * 3.0, scale=True, is_training=True)), {x: "x"}

    lines, tf1, tf2 = _translate_and_compare(build, {"x": rng.rand(8, 6).astype(np.float32)})
    assert lines[2] == ("bn1 = tf.raw_ops.FusedBatchNormV3(x=flat1, scale=self.BatchNorm_gamma, "
                        "offset=self.BatchNorm_beta, mean=[], variance=[], epsilon=0.001, data_format='NHWC', "
                        "is_training=True).y"), lines
    assert lines[3] == "flat2 = tf.reshape(bn1, tf.shape(t1))", lines
    assert tf1.dtype == tf2.dtype == np.float32
    np.testing.assert_array_equal(tf1, tf2)


def test_moving_average_updates_run_by_the_train_op_are_a_todo():
    from tfcompare.core.legacy.layers import batch_norm
    from tfcompare.core.optimizer_replay import tf1_optimizer
    from tfcompare.tools.pair.convert.writer import _moving_average_todos

    v1 = tf.compat.v1
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 4])
        w = tf.Variable(tf.ones([4, 4]), name="w")
        loss = tf.reduce_sum(batch_norm(tf.matmul(x, w), is_training=True))
        with tf.control_dependencies(v1.get_collection(v1.GraphKeys.UPDATE_OPS)):
            updating = v1.train.GradientDescentOptimizer(0.25).minimize(loss)
        plain = v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        with v1.Session() as sess:  # the settings are read without a batch, though the train op waits on one
            sess.run(v1.global_variables_initializer())
            assert tf1_optimizer(sess.graph, sess).settings["learning_rate"] == 0.25
        assert _moving_average_todos(plain, "<test>", [], []) == []
        todos = []
        written = _moving_average_todos(updating, "<test>", [], todos)
    assert todos == ["the moving-average update of FusedBatchNormV3 (moving mean/variance) from the TF1 graph"]
    assert len(written) == 1 and "# TODO(tfcompare): TF1's train op also updated the moving mean" in written[0]


def test_untranslatable_op_is_a_todo_not_a_silent_change():
    def build(v1, groups):
        x = v1.placeholder(tf.float32, [None, 3])
        w = tf.Variable(tf.ones([3, 3]), name="w")
        return tf.reduce_sum(tf.linalg.det(tf.matmul(x, w))), {x: "x"}

    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        target, args = build(v1, None)
        with v1.Session(graph=graph) as sess:
            tr = Translator("<test>", [], sess, {}, {"w": "w"}, {p.op.name: a for p, a in args.items()}, {})
            lines, expr = tr.function(target)
    assert tr.todos and tr.todos[0].startswith("MatrixDeterminant (no TF2 translation written for this op)")
    assert "TODO_tfcompare(" in "\n".join(line.code for line in lines) + expr


def test_fed_dropout_becomes_rate():
    def build(v1, groups):
        x = v1.placeholder(tf.float32, [None, 3])
        keep = v1.placeholder(tf.float32)
        out = v1.nn.dropout(x, keep)
        groups[out.name] = Group("dropout", out.op, [x, keep], set(), {"keep": True})
        return tf.reduce_sum(out), {x: "x", keep: "keep_prob"}

    lines, tf1, tf2 = _translate_and_compare(build, {"x": np.ones((2, 3), np.float32),
                                                     "keep_prob": np.float32(1.0)}, groups={})
    assert lines[0] == "drop1 = tf.nn.dropout(x, rate=1 - keep_prob)"
    assert tf1 == tf2 == 6.0


def test_dynamic_rnn_lstm_is_one_call_and_matches_the_while_loop():
    from tfcompare.core.legacy.rnn import BasicLSTMCell

    rng = np.random.RandomState(3)

    def build(v1, groups):
        x = v1.placeholder(tf.float32, [None, 5, 4])
        cell = BasicLSTMCell(6)
        outputs, state = v1.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        _dynamic_rnn(groups, (outputs, state), None, cell, x, dtype=tf.float32)
        return tf.reduce_sum(outputs, axis=[1, 2]) + tf.reduce_sum(state.c, axis=1), {x: "x"}

    lines, tf1, tf2 = _translate_and_compare(build, {"x": rng.rand(3, 5, 4).astype(np.float32)}, groups={})
    assert lines[0].startswith("outputs1, state1 = basic_lstm(tf.unstack(x, axis=1), self.rnn_basic_lstm_cell_kernel")
    assert "tf.stack(outputs1, axis=1)" in "\n".join(lines) and "state1[0]" in "\n".join(lines)
    np.testing.assert_allclose(tf1, tf2, rtol=1e-6)


def test_session_code_is_carried_and_graph_code_after_the_first_step_is_a_todo():
    source = textwrap.dedent("""\
        import tensorflow as tf
        import numpy as np
        data = np.ones((10, 2))
        x = tf.placeholder(tf.float32, [None, 2])
        loss = tf.reduce_sum(x)
        if data.shape[0] > 5:
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        else:
            train = tf.train.AdamOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i in range(3):
                _, value = sess.run([train, loss], feed_dict={x: data})
                print(i, value)
            total = tf.reduce_mean(x)
            print(sess.run(total, feed_dict={x: data}))
    """)
    plan = carried.Plan(graph={"x", "loss", "train"}, train={"train"}, methods={"loss": ("model.loss", ["x"])},
                        step_args=["x"], loss="loss", tf_names={"tf"}, placeholders={"x"})
    kept = carried.rewrite(source, plan, first_step_line=13)
    assert kept.imports == ["import tensorflow as tf", "import numpy as np"]
    assert kept.head == ["data = np.ones((10, 2))"]
    assert "    _, value = (None, train_step(data).numpy())" in "\n".join(kept.tail)
    assert kept.todos == [
        "a choice between TF1 graph alternatives (the TF2 script has the branch this run took) from TF1 line 6: "
        "if data.shape[0] > 5:",
        "TF1 graph code run after the first training step from TF1 line 15: total = tf.reduce_mean(x)",
        "a Session.run whose fetches or feed_dict tfcompare cannot map from TF1 line 16: "
        "print(sess.run(total, feed_dict={x: data}))"]
    assert "\n    print(i, value)" in "\n".join(kept.tail)


def test_cli_usage_errors_exit_2(tmp_path):
    script = DATA / "logreg_gd.py"
    existing = tmp_path / "new.py"
    existing.write_text("# mine\n")
    runner = CliRunner()
    result = runner.invoke(cli, ["convert", str(script), "-o", str(existing)])
    assert result.exit_code == 2 and "exists (use --force to overwrite it)" in result.output
    assert existing.read_text() == "# mine\n"
    result = runner.invoke(cli, ["convert", str(script), "-o", str(script)])
    assert result.exit_code == 2 and "is OLD.py itself" in result.output
    result = runner.invoke(cli, ["convert", str(script), "-o", str(tmp_path / "x.py"), "--style", "layers"])
    assert result.exit_code == 2 and "'layers' is not one of 'module', 'keras'" in result.output
    result = runner.invoke(cli, ["convert", str(tmp_path / "missing.py"), "-o", str(tmp_path / "y.py")])
    assert result.exit_code == 2 and "missing.py" in result.output


def test_a_tf2_script_is_named_as_such(tmp_path):
    """A TF2 script given as OLD.py fails under TF1 semantics: the message says it reads like a TF2 script."""
    script = Path(__file__).parent / "data" / "pairs" / "tf2_logreg.py"
    result = CliRunner().invoke(cli, ["convert", str(script), "-o", str(tmp_path / "new.py")])
    assert result.exit_code == 3, result.output
    assert "it reads like a TF2 script already (convert takes a TF1 script)" in result.output
    assert not (tmp_path / "new.py").exists()
