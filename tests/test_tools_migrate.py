"""`tfcompare migrate` on a corpus of TF1 files written for these tests: exact findings, real tf_upgrade_v2."""

import json
import runpy
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.tools.migrate import CLASSES, migrate

pytestmark = pytest.mark.legacy  # its results depend on whether tf-keras is installed: CI runs it both ways

CORPUS = Path(__file__).resolve().parent / "data" / "tf1_corpus"


@pytest.fixture(scope="module")
def report():
    before = {p: p.read_bytes() for p in CORPUS.iterdir()}
    found = migrate([CORPUS])
    assert {p: p.read_bytes() for p in CORPUS.iterdir()} == before  # never edits, never adds a file
    return found


def _findings(report, name):
    file = next(r for r in report.files if Path(r.path).name == name)
    return [(f.line, f.symbol, f.klass, f.upgrade_v2) for f in file.findings if f.klass != "runs"]


def test_aliased_contrib_imports_are_removed_and_tf_upgrade_v2_says_nothing(report):
    assert _findings(report, "contrib_aliases.py") == [
        (3, "from tensorflow.contrib import slim", "removed", "left"),
        (4, "import tensorflow.contrib.rnn", "removed", "left"),
        (6, "slim.fully_connected", "removed", "left"),
        (7, "rnn.BasicLSTMCell", "removed", "left"),
    ]


def test_layers_and_rnn_cells_need_the_extra_and_a_rename_that_breaks_on_keras_3(report):
    found = _findings(report, "layers_rnn.py")
    assert found == [
        (4, "tf.placeholder", "compat-v1", "renamed"),
        (5, "tf.layers.dense", "needs-extra", "left"),  # TF 2.21's tf_upgrade_v2 no longer renames tf.layers.*
        (6, "tf.nn.rnn_cell.LSTMCell", "needs-extra", "broke"),
        (7, "tf.nn.dynamic_rnn", "compat-v1", "renamed"),
        (8, "tf.nn.dropout(keep_prob=)", "removed", "changed"),  # TF2's dropout has no keep_prob: TypeError
    ]
    file = next(r for r in report.files if r.path.endswith("layers_rnn.py"))
    lstm = next(f for f in file.findings if f.line == 6)
    assert lstm.upgrade_to == "tf.compat.v1.nn.rnn_cell.LSTMCell" and "not available with Keras 3" in lstm.note
    assert "pip install tf-keras" in lstm.note


def test_estimator_and_flags(report):
    assert _findings(report, "estimator_flags.py") == [
        (4, "tf.app.flags", "compat-v1", "renamed"),
        (5, "flags.DEFINE_integer", "compat-v1", "renamed"),  # through the alias `flags = tf.app.flags`
        (9, "tf.layers.dense", "needs-extra", "left"),
        (10, "tf.losses.softmax_cross_entropy", "compat-v1", "renamed"),
        (10, "tf.losses.softmax_cross_entropy", "behaviour", "renamed"),
        (11, "tf.estimator.EstimatorSpec", "removed", "left"),
        (14, "tf.estimator.Estimator", "removed", "left"),
    ]


def test_a_tf1_training_script_and_its_default_changes(report):
    found = _findings(report, "placeholders_session.py")
    assert (11, "tf.train.AdamOptimizer", "behaviour", "renamed") in found
    assert (13, "tf.Session", "compat-v1", "renamed") in found
    assert [f for f in found if f[1] == "tf.placeholder"] == [(5, "tf.placeholder", "compat-v1", "renamed"),
                                                            (6, "tf.placeholder", "compat-v1", "renamed")]
    adam = next(f for r in report.files for f in r.findings if f.symbol == "tf.train.AdamOptimizer"
                and f.klass == "behaviour")
    assert "epsilon" in adam.note and "keras.optimizers.Adam" in adam.replacement


def test_compat_v1_alias_tf2_code_and_a_syntax_error(report):
    assert _findings(report, "compat_v1_alias.py") == [
        (4, "tf.disable_v2_behavior", "compat-v1", "renamed"),
        (5, "tf.placeholder", "compat-v1", "renamed"),
        (7, "tf.train.GradientDescentOptimizer", "compat-v1", "renamed"),
    ]
    assert _findings(report, "tf2_ok.py") == []
    assert _findings(report, "syntax_error.py") == [(1, "", "unparsable", "not run")]


def test_calls_checked_against_the_installed_signatures_aliases_methods_and_devices(report):
    """Issue #26 item 1: each name here resolves, and each call still breaks (or silently changes meaning)."""
    assert _findings(report, "calls_and_aliases.py") == [
        (5, "tf.contrib.eager", "removed", "flagged"),
        (6, "tf.placeholder", "compat-v1", "renamed"),
        (7, "tf.reduce_sum(reduction_indices=)", "removed", "changed"),  # TypeError on TF2's reduce_sum
        (7, "tf.reduce_sum(keep_dims=)", "removed", "changed"),
        (8, "tf.nn.softmax(dim=)", "removed", "changed"),
        (9, "tf.nn.dropout(… argument 2)", "behaviour", "changed"),  # 0.8 is keep_prob in TF1, rate in TF2
        (11, ".make_initializable_iterator", "compat-v1", "changed"),  # a method of the dataset object
        (12, "tf.summary.scalar", "behaviour", "flagged"),  # TF2's op: writes nothing without a writer and step
        (13, "tf.summary.merge_all", "compat-v1", "renamed"),
        (14, "tf.log", "compat-v1", "renamed"),
        (14, "tf.random_normal", "compat-v1", "renamed"),
        (15, "tf.logging.info", "compat-v1", "renamed"),
        (16, "tfe.Variable", "removed", "left"),  # through the alias `tfe = tf.contrib.eager`
        (25, "tf.device(function)", "removed", "left"),  # the string device at line 27 is fine
        # line 30: conv2d's filter -> filters is one parameter renamed (tf_upgrade_v2's table): no finding
        (31, "tf.nn.in_top_k(… argument 1)", "behaviour", "changed"),  # TF2 swapped predictions and targets
        (31, "tf.nn.in_top_k(… argument 2)", "behaviour", "changed"),
        (32, "tf.summary.image", "behaviour", "flagged"),  # 10 is TF1's max_outputs, not a step
        (33, "shape[i].value", "removed", "left"),  # TF2's dimensions are ints
        (34, "tf.app.flags.FLAGS", "compat-v1", "renamed"),  # and FLAGS.batch_size (line 35) is a value's attribute
    ]
    file = next(r for r in report.files if r.path.endswith("calls_and_aliases.py"))
    notes = {(f.line, f.symbol): f.note for f in file.findings}
    assert "raises TypeError" in notes[(7, "tf.reduce_sum(reduction_indices=)")]
    assert "its rewrite still has this problem" in notes[(12, "tf.summary.scalar")]
    for line, symbol in ((14, "tf.log"), (14, "tf.random_normal"), (15, "tf.logging.info")):
        assert "eager" not in notes[(line, symbol)]  # they work eagerly: no such claim
    assert "graph mode only" in notes[(13, "tf.summary.merge_all")]
    private = [f for f in file.findings if "resources" in f.symbol]
    assert [f.klass for f in private] == ["runs", "runs"]  # a private import that works is not `behaviour`


def test_graph_only_names_fail_under_eager_and_the_others_named_in_notes_do_not():
    """The "graph mode only" qualifier is put only on names that really fail when called eagerly."""
    import tensorflow as tf

    from tfcompare.tools.migrate.classify import GRAPH_ONLY

    v1 = tf.compat.v1
    calls = {"placeholder": lambda: v1.placeholder(tf.float32),
             "Session": lambda: v1.Session().run(tf.constant(1.0)),
             "summary.FileWriter": lambda: v1.summary.FileWriter("/nonexistent/never-written"),
             "summary.merge_all": v1.summary.merge_all,
             "data.make_initializable_iterator": lambda: v1.data.make_initializable_iterator(tf.data.Dataset.range(2)),
             "train.start_queue_runners": v1.train.start_queue_runners}
    assert set(calls) == set(GRAPH_ONLY)
    for name, call in calls.items():
        with pytest.raises(RuntimeError):
            call()
    # these run eagerly: their notes must not say otherwise
    assert v1.log(tf.constant(1.0)).numpy() == 0.0 and v1.random_normal([2]).shape == (2,)
    assert v1.logging.info("eager is fine") is None


def test_totals_and_fail_on(report):
    totals = report.totals()
    assert totals["files"] == 8 and sum(totals["by_class"].values()) == totals["findings"]
    assert totals["upgrade_v2_broke"] == 1 and totals["upgrade_v2_missed"] >= 6
    assert report.worst() == "unparsable" and report.fails("removed") and report.fails("runs")
    assert list(CLASSES) == ["runs", "behaviour", "compat-v1", "needs-extra", "removed", "unparsable"]


def test_cli_json_markdown_fail_on_and_a_scaffold_that_loads(tmp_path):
    md, out = tmp_path / "report.md", tmp_path / "cases.py"
    result = CliRunner().invoke(cli, ["migrate", str(CORPUS / "placeholders_session.py"), "--json", "--markdown",
                                      str(md), "--scaffold", str(out), "--fail-on", "compat-v1",
                                      "--no-upgrade"])
    assert result.exit_code == 1, result.output  # compat-v1 findings exist
    doc = json.loads(result.stdout)
    assert doc["files"][0]["findings"][0].keys() >= {"line", "col", "symbol", "resolved_to", "class", "upgrade_v2",
                                                     "replacement", "note"}
    assert "| 13:5 | `tf.Session` | compat-v1 |" in md.read_text()
    listed = CliRunner().invoke(cli, ["list", "--cases-file", str(out)])
    assert listed.exit_code == 0 and "placeholders_session" in listed.output
    text = out.read_text()
    assert "InputSpec('x', (4,), 'float32')" in text and "'w': rng.uniform(-1.0954" in text  # glorot_uniform
    again = CliRunner().invoke(cli, ["migrate", str(CORPUS / "placeholders_session.py"), "--scaffold", str(out)])
    assert again.exit_code == 2 and "exists; it is never overwritten" in again.output
    assert CliRunner().invoke(cli, ["migrate", str(CORPUS / "tf2_ok.py"), "--no-upgrade", "--fail-on",
                                    "behaviour"]).exit_code == 0


@pytest.mark.parametrize("args,needle", [
    (["migrate"], "Missing argument 'PATH...'"),
    (["migrate", "nope.py"], "'nope.py' does not exist"),
    (["migrate", "{empty}"], "holds no .py files"),
    (["migrate", str(CORPUS), "--fail-on", "bad"], "'bad' is not one of 'runs'"),
    (["migrate", str(CORPUS), "--scaffold", "x.py"], "give exactly one TF1 file to scaffold from"),
])
def test_migrate_bad_input(tmp_path, args, needle):
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(cli, [a.replace("{empty}", str(tmp_path / "empty")) for a in args])
    assert result.exit_code == 2 and needle in result.output, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]



_INJECT = 'open("INJECTED", "w")'


@pytest.mark.parametrize("file_name,name", [
    ("plain.py", f'x"""\n{_INJECT}\n"""#'),  # ends the docstring the name was once pasted into
    (f'evil"""\n{_INJECT}\n\'\'\'x.py', f"y'\n{_INJECT}\n'"),  # a file name with quotes, newlines, triple quotes
])
def test_scaffold_writes_source_strings_as_data_never_as_code(tmp_path, monkeypatch, file_name, name):
    """Issue #25 item 1 / #26: a placeholder name and a file name holding quotes, newlines and triple quotes
    stay strings in the scaffold; loading it runs none of them."""
    monkeypatch.chdir(tmp_path)
    src = tmp_path / file_name
    src.write_text("import tensorflow as tf\n"
                   f"x = tf.placeholder(tf.float32, [None, None, 3], name={name!r})\n"
                   "w = tf.get_variable('w', [3, 1])\n"
                   "train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(x))\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["migrate", file_name, "--no-upgrade", "--scaffold", "cases.py"])
    assert result.exit_code == 0, result.output
    listed = CliRunner().invoke(cli, ["list", "--cases-file", "cases.py"])
    assert not (tmp_path / "INJECTED").exists()
    assert listed.exit_code == 0, listed.output
    module = runpy.run_path("cases.py")
    assert not (tmp_path / "INJECTED").exists()
    assert module["SOURCE"] == file_name and module["INPUTS"][0].name == name


SCRIPTS = Path(__file__).resolve().parent / "data" / "tf1_scripts"
_TF2_BODIES = {  # what a user writes into the scaffold's Model: the TF2 forward pass and loss, nothing else
    "logistic_regression": (
        'return tf.nn.softmax(inputs["x"] @ self.variables_by_name["W"] + self.variables_by_name["b"])',
        'return tf.reduce_mean(-tf.reduce_sum(inputs["y"] * tf.math.log(self(inputs)), axis=1))'),
    "multilayer_perceptron": (
        'v = self.variables_by_name\n'
        '        h = tf.nn.relu(inputs["X"] @ v["weights/h1"] + v["biases/b1"])\n'
        '        h = tf.nn.relu(h @ v["weights/h2"] + v["biases/b2"])\n'
        '        return h @ v["weights/out"] + v["biases/out"]',
        'return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=inputs["Y"], logits=self(inputs)))'),
}


@pytest.mark.parametrize("script", sorted(_TF2_BODIES))
def test_a_scaffold_of_a_plain_tf1_script_runs_ok_in_every_mode_once_its_tf2_body_is_filled(tmp_path, monkeypatch,
                                                                                             script):
    """Issue #26 item 2: learning rate and optimizer from the call, initial values from the initializers, InputSpecs
    with a None batch dimension, keep_prob as a scalar feed; only Model.__call__ and Model.loss are written."""
    monkeypatch.chdir(tmp_path)
    made = CliRunner().invoke(cli, ["migrate", str(SCRIPTS / f"{script}.py"), "--no-upgrade", "--scaffold", "cases.py"])
    assert made.exit_code == 0, made.output
    text = Path("cases.py").read_text()
    scaffold = runpy.run_path("cases.py")
    model = scaffold["Model"]
    if script == "multilayer_perceptron":
        assert [(s.name, s.shape) for s in scaffold["INPUTS"]] == [("X", (784,)), ("Y", (10,))]
        assert scaffold["SCALAR_FEEDS"] == {"keep_prob": 1.0} and model.learning_rate == 0.001
        assert model.optimizer_cls.__name__ == "Adam"
        weights = scaffold["init_weights"](np.random.default_rng(0))
        assert {k: v.shape for k, v in weights.items()} == {
            "weights/h1": (784, 32), "weights/h2": (32, 32), "weights/out": (32, 10),
            "biases/b1": (32,), "biases/b2": (32,), "biases/out": (10,)}
        assert 0.04 < weights["weights/h1"].std() < 0.06  # stddev=0.05 read from the initializer
    else:
        assert [(s.name, s.shape) for s in scaffold["INPUTS"]] == [("x", (784,)), ("y", (10,))]
        assert model.learning_rate == 0.01 and model.optimizer_cls.__name__ == "SGD"
        assert {k: float(abs(v).max()) for k, v in scaffold["init_weights"](np.random.default_rng(0)).items()} == {
            "W": 0.0, "b": 0.0}  # tf.zeros
    forward, loss = _TF2_BODIES[script]
    text = text.replace('raise NotImplementedError("fill in the TF2 forward pass")  # TODO(tfcompare)', forward)
    text = text.replace('raise NotImplementedError("fill in the TF2 loss")  # TODO(tfcompare)', loss)
    Path("filled.py").write_text(text)
    result = CliRunner().invoke(cli, ["run", "--cases-file", "filled.py", "--json", "--logdir", "logs",
                                      "--quick", "--repeats", "3", "--steps", "2"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["results"]
    assert {(r["mode"], r["status"]) for r in rows} == {(m, "ok") for m in ("tf1-graph", "tf2-eager", "tf2-function",
                                                                               "tf2-xla")}


def test_scaffold_reads_scalar_feeds_data_scalars_scoped_graph_code_and_a_learning_rate_placeholder(tmp_path):
    """keep_prob (dropout) and a learning-rate placeholder are scalar feeds, a per-example scalar is an input of
    shape (); graph code under `with graph.as_default()` and `tf.name_scope` is found; build_graph builds."""
    import tensorflow as tf

    src = tmp_path / "scoped.py"
    src.write_text(
        "import tensorflow as tf\n"
        "n_in = 3\n"
        "graph = tf.Graph()\n"
        "with graph.as_default():\n"
        "    x = tf.placeholder(tf.float32, [None, n_in])\n"
        "    t = tf.placeholder(tf.float32)\n"
        "    keep_prob = tf.placeholder(tf.float32)\n"
        "    lr = tf.placeholder(tf.float32, [])\n"
        "    with tf.name_scope('model'):\n"
        "        w = tf.get_variable('w', [n_in, 1], initializer=tf.random_normal_initializer(stddev=0.5))\n"
        "        out = tf.nn.dropout(tf.squeeze(tf.matmul(x, w), 1), keep_prob)\n"
        "    loss = tf.reduce_mean(tf.square(out - t))\n"
        "    train = tf.train.MomentumOptimizer(lr, 0.8).minimize(loss)\n"
        "    init = tf.global_variables_initializer()\n"
        "with tf.Session(graph=graph) as sess:\n"
        "    for step in range(3):\n"
        "        sess.run(train, {x: xs, t: ts, keep_prob: 0.5, lr: 0.05})\n")
    out = tmp_path / "cases.py"
    assert CliRunner().invoke(cli, ["migrate", str(src), "--no-upgrade", "--scaffold", str(out)]).exit_code == 0
    scaffold = runpy.run_path(str(out))
    assert [(s.name, s.shape) for s in scaffold["INPUTS"]] == [("x", (3,)), ("t", ())]
    assert scaffold["SCALAR_FEEDS"] == {"keep_prob": 1.0, "lr": 0.05}
    model = scaffold["Model"]
    assert (model.optimizer_cls.__name__, model.learning_rate, model.optimizer_kwargs) == ("Momentum", 0.05,
                                                                                          {"momentum": 0.8})
    assert "'w': (rng.standard_normal((3, 1)) * 0.5 + 0.0)" in out.read_text()  # the initializer's stddev
    with tf.compat.v1.Graph().as_default():
        parts = scaffold["build_graph"](scaffold["INPUTS"])
    assert sorted(parts.inputs) == ["keep_prob", "lr", "t", "x"] and list(parts.variables) == ["w"]
    assert parts.output.shape.as_list() == [None] and parts.loss.shape.as_list() == []
