"""`tfcompare convert --style keras`: the TF1 test scripts become a keras.Model of Keras layers (Dense, Conv2D,
MaxPooling2D, Flatten, Reshape) where TF1's ops are exactly one layer, op by op elsewhere with the reason, and
`pair` agrees with each. The conversions (a real child plus a real pair each) run once for the module, two at a
time, one of them through the CLI; the written scripts run on their own in one process. The layer finding is also
tested in-process: the written Keras layers, given TF1's weights, give TF1's value bit for bit.
"""

from __future__ import annotations

import ast
import concurrent.futures
import json
import types
from pathlib import Path

import keras
import numpy as np
import pytest
import tensorflow as tf
from click.testing import CliRunner
from tensorflow.core.protobuf import rewriter_config_pb2
from conftest import provenance, run_written_scripts, unwrapped, written_code, written_model_class

from tfcompare.cli import cli
from tfcompare.scripts.convert import WRITTEN_AGREES, ConvertOptions, convert_script, keras_layers
from tfcompare.scripts.convert.calls import Group, _inside
from tfcompare.scripts.convert.line_width import MAX_LINE
from tfcompare.scripts.convert.ops import Translator

DATA = Path(__file__).parent / "data" / "convert"
SCRIPTS = {"mlp_adam": (), "cnn_dropout": (), "autoencoder_rmsprop": ()}  # cnn_dropout: keep_prob 0.75 to train
CLI_SCRIPT = "logreg_gd"  # converted through `tfcompare convert ... --style keras` while the others convert


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    out = tmp_path_factory.mktemp("convert_keras")
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # with the CLI run below: two at a time
        futures = {name: pool.submit(convert_script, DATA / f"{name}.py", out / f"{name}_tf2.py",
                                     ConvertOptions(args=args, style="keras", levers=()))
                   for name, args in SCRIPTS.items()}
        cli_run = CliRunner().invoke(cli, ["convert", str(DATA / f"{CLI_SCRIPT}.py"), "-o",
                                           str(out / f"{CLI_SCRIPT}_tf2.py"), "--style", "keras", "--no-levers"])
        results = {name: f.result() for name, f in futures.items()}
    return out, results, cli_run


def test_cli_keras_style_writes_a_keras_model_pair_agrees_with(converted):
    out, _, cli_run = converted
    assert cli_run.exit_code == 0, cli_run.output
    assert "CONVERTED: the TF2 script trains as the TF1 script does (pair agrees)" in cli_run.output
    assert "AGREE: losses, gradients and weights within the noise for every step" in cli_run.output
    text = (out / f"{CLI_SCRIPT}_tf2.py").read_text()
    assert "class Model(keras.Model):" in text
    assert ("        # TF1 line 23: pred = tf.nn.softmax(tf.matmul(x, W) + b); TF1's W, b\n"
            "        self.dense1 = keras.layers.Dense(\n") in text and "self.dense1.build((None, 20))" in text
    assert _assignment(text, "self.dense1") == ("self.dense1 = keras.layers.Dense(3, activation='softmax', "
                                                "kernel_initializer='zeros', bias_initializer='zeros', name='dense1')")
    assert "        pred = self.dense1(x)\n" in text and 23 in provenance(text, "pred = self.dense1(x)")


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_keras_script_uses_keras_layers_and_pair_agrees(converted, name):
    out, results, _ = converted
    result = results[name]
    assert result.status == WRITTEN_AGREES, "\n".join(result.lines())
    assert result.todos == []
    assert result.style == "keras" and json.loads(result.json_text())["style"] == "keras"  # said in --json too
    assert len(result.pair.checks) == 3 and all(c.ok for c in result.pair.checks)
    text = (out / f"{name}_tf2.py").read_text()
    tree = ast.parse(text)
    imported = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    imported += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert "keras" in imported and not [m for m in imported if "compat" in m or m.startswith("tfcompare")]
    code = written_code(text)
    assert "compat.v1" not in code and "Session" not in code and "tf.Variable(" not in text
    assert "class Model(keras.Model):" in text and "@tf.function" in text
    built = {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and isinstance(n.func.value, ast.Attribute) and getattr(n.func.value, "attr", "") == "layers"}
    assert built == {"mlp_adam": {"Dense"}, "autoencoder_rmsprop": {"Dense"},
                     "cnn_dropout": {"Reshape", "Conv2D", "MaxPooling2D", "Flatten", "Dense"}}[name]


def _assignment(text: str, target: str) -> str:
    """The statement assigning `target` in a written script, as ast.unparse writes it: whatever its line breaks."""
    found = [ast.unparse(n) for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Assign)
             and ast.unparse(n.targets[0]) == target]
    assert len(found) == 1, found
    return found[0]


def test_keras_layers_carry_tf1_shapes_initializers_and_fallbacks(converted):
    out, _, _ = converted
    text = {name: (out / f"{name}_tf2.py").read_text() for name in SCRIPTS}
    cnn = unwrapped(text["cnn_dropout"])
    assert ('        # TF1 lines 25-27: x = tf.nn.conv2d(x, W, strides=[1, strides, strides, 1], ...\n'
            "        # TF1's weights_wc1, biases_bc1\n"
            '        self.conv1 = keras.layers.Conv2D(\n') in cnn
    assert _assignment(cnn, "self.conv1") == (
        "self.conv1 = keras.layers.Conv2D(8, (3, 3), padding='same', activation='relu', "
        "kernel_initializer=keras.initializers.RandomNormal(stddev=0.1), bias_initializer='zeros', name='conv1')")
    assert "self.conv1.build((None, 12, 12, 1))" in cnn
    assert _assignment(cnn, "self.pool1") == ("self.pool1 = keras.layers.MaxPooling2D(pool_size=(2, 2), "
                                              "strides=(2, 2), padding='same', name='pool1')")
    assert 'self.flatten1 = keras.layers.Flatten(name="flatten1")' in cnn
    assert "self.dense1.build((None, 288))" in cnn
    # keep_prob is fed 0.75 to train and 1.0 elsewhere: the `training` argument of Keras's call; tf.nn.dropout
    # stays (the traced methods take `training` as a bool tensor), and the line says why it is no Keras Dropout
    assert "def call(self, X, training=False):" in cnn and "keep_prob" not in cnn.split("def call")[1].split("def ")[0]
    assert "        # not keras.layers.Dropout: `training` is a tensor in the methods' input_signature\n" in cnn
    assert ("fc1 = tf.cond(tf.convert_to_tensor(training), lambda: tf.nn.dropout(fc1, rate=1 - args.dropout), "
            "lambda: fc1)") in cnn, cnn
    assert 53 in provenance(cnn, "fc1 = tf.cond(")
    autoencoder = text["autoencoder_rmsprop"]
    assert _assignment(autoencoder, "self.dense1") == (
        "self.dense1 = keras.layers.Dense(32, activation='sigmoid', "
        "kernel_initializer=keras.initializers.RandomNormal(stddev=1.0), "
        "bias_initializer=keras.initializers.RandomNormal(stddev=1.0), name='dense1')")
    # the code tfcompare wrote, comments too, within 100 columns
    for written in text.values():
        model = written.split("class Model(keras.Model):")[1].split("def train_step(")[0]
        assert [line for line in model.splitlines() if len(line) > MAX_LINE] == []
    assert "def loss_fn(self, X):" in autoencoder  # `loss` is keras.Model's: the method must not hide it
    assert "    l = train_step(batch_x).numpy()\n" in autoencoder
    assert 'initializer="ones"' in text["autoencoder_rmsprop"]  # TF1's RMSProp slot, written out as in module style
    assert ("tf.keras.optimizers.Adam(learning_rate=learning_rate, beta_1=0.9, beta_2=0.999, epsilon=1e-08)"
            in unwrapped(text["mlp_adam"]))


def test_keras_scripts_run_on_their_own(converted):
    out, _, _ = converted
    names = [*SCRIPTS, CLI_SCRIPT]
    proc = run_written_scripts(out, names)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.count("RUN ") == len(names) and "TFCOMPARE False" in proc.stdout
    assert "Minibatch Loss=" in proc.stdout and "Step 1: Minibatch Loss:" in proc.stdout and "Step: 0000 cost=" in proc.stdout


# -- the layer finding, in-process --------------------------------------------------------------------------------


def _written(sess, target, trained, arguments: dict, groups: dict, keras_style: bool):
    """(Translator, layers, variables, lines, expression) of `target` as convert writes it in either style."""
    variables = {v.op.name: v.op.name.replace("/", "_") for v in trained}
    tr = Translator("<test>", [], sess, {}, variables, arguments, dict(groups))
    layers = []
    if keras_style:
        layers, owned, tr.remarks = keras_layers.find(tr, [target], trained, sess,
                                                      set(variables.values()) | set(arguments.values()))
        variables.update(owned)
    lines, expr = tr.function(target)
    return tr, layers, variables, lines, expr


def _run_written(layers, variables, lines, expr, values: dict, feeds: dict) -> np.ndarray:
    """Build the written layers (TF1's weights assigned) and run the written lines eagerly."""
    model = types.SimpleNamespace()
    for layer in layers:
        made = eval(f"{layer.cls}({', '.join(layer.arguments())})", {"keras": keras})
        if layer.build:
            made.build(eval(layer.build))
        for role, v in layer.weights.items():
            getattr(made, role).assign(values[v.op.name])
        setattr(model, layer.attr, made)
    for name, attr in variables.items():
        if "." not in attr:
            setattr(model, attr, tf.Variable(values[name]))
    scope = {"tf": tf, "self": model, **{a: tf.constant(v) for a, v in feeds.items()}}
    exec(compile("\n".join(line.code for line in lines) + f"\nresult = {expr}", "<written>", "exec"), scope)
    return scope["result"].numpy()


def test_found_layers_compute_what_the_ops_do_and_the_rest_says_why():
    """conv + bias + relu, max-pool, flatten, dense + bias + tanh, batch norm, a fed dropout, a dense without bias
    and an l2 term on a layer's kernel. The Keras layers written for them, with TF1's weights, give the module
    style's op-by-op TF2 value and TF1's session value bit for bit (the session with grappler's remapper off: it
    fuses conv + bias + relu into one kernel, which eager TF2 does not); batch norm and the fed dropout stay op by
    op with the reason in their comment."""
    from tfcompare.scripts.legacy.layers import batch_norm

    rng = np.random.RandomState(5)
    v1 = tf.compat.v1
    groups = {}
    with tf.Graph().as_default() as graph:
        x = v1.placeholder(tf.float32, [None, 6, 6, 2])
        keep = v1.placeholder(tf.float32)
        k = tf.Variable(rng.randn(3, 3, 2, 4).astype(np.float32), name="k")
        kb = tf.Variable(rng.randn(4).astype(np.float32), name="kb")
        w = tf.Variable(v1.truncated_normal([36, 5], stddev=0.2), name="w")
        c = tf.Variable(tf.fill([5], 0.1), name="c")
        w2 = tf.Variable(v1.random_uniform([5, 3], -0.5, 0.5), name="w2")
        conv = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, k, strides=[1, 1, 1, 1], padding="SAME"), kb))
        pool = tf.nn.max_pool(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
        h = tf.tanh(tf.matmul(tf.reshape(pool, [-1, 36]), w) + c)
        normed = batch_norm(h, is_training=True)
        dropped = v1.nn.dropout(normed, keep)
        groups[dropped.name] = Group("dropout", dropped.op, [normed, keep], _inside(dropped, [normed, keep]),
                                     {"keep": True})
        target = tf.reduce_sum(tf.matmul(dropped, w2), axis=1) + 0.01 * tf.nn.l2_loss(w)
        trained = v1.trainable_variables()
        config = v1.ConfigProto()
        config.graph_options.rewrite_options.remapping = rewriter_config_pb2.RewriterConfig.OFF
        with v1.Session(graph=graph, config=config) as sess:
            sess.run(v1.global_variables_initializer())
            values = dict(zip([v.op.name for v in trained], sess.run(trained)))
            feeds = {"x": rng.rand(4, 6, 6, 2).astype(np.float32), "keep_prob": np.float32(1.0)}
            expected = sess.run(target, {x: feeds["x"], keep: feeds["keep_prob"]})
            arguments = {x.op.name: "x", keep.op.name: "keep_prob"}
            tr, layers, variables, lines, expr = _written(sess, target, trained, arguments, groups, True)
            module = _written(sess, target, trained, arguments, groups, False)[2:]
            initializers = {v.op.name: keras_layers.keras_initializer(v, sess) for v in trained}
    assert [(layer.attr, layer.cls) for layer in layers] == [
        ("conv1", "keras.layers.Conv2D"), ("pool1", "keras.layers.MaxPooling2D"), ("flatten1", "keras.layers.Flatten"),
        ("dense1", "keras.layers.Dense"), ("dense2", "keras.layers.Dense")]
    assert layers[3].arguments() == ["5", 'activation="tanh"',
                                     "kernel_initializer=keras.initializers.TruncatedNormal(stddev=0.2)",
                                     "bias_initializer=keras.initializers.Constant(0.1)", 'name="dense1"']
    assert layers[4].arguments()[:2] == ["3", "use_bias=False"]
    assert initializers["w2"] == "keras.initializers.RandomUniform(minval=-0.5, maxval=0.5)"
    assert {k: v for k, v in variables.items() if "." in v} == {
        "k": "conv1.kernel", "kb": "conv1.bias", "w": "dense1.kernel", "c": "dense1.bias", "w2": "dense2.kernel"}
    code = [line.code for line in lines]
    assert code[:4] == ["conv1 = self.conv1(x)", "pool1 = self.pool1(conv1)", "flatten1 = self.flatten1(pool1)",
                        "dense1 = self.dense1(flatten1)"], code
    assert "tf.nn.l2_loss(self.dense1.kernel)" in "\n".join(code) + expr
    comments = "\n".join(line.comment for line in lines)
    assert comments.count("not keras.layers.BatchNormalization") == 1
    assert comments.count("not keras.layers.Dropout: keep_prob is fed") == 1
    assert tr.todos == []

    written = _run_written(layers, variables, lines, expr, values, feeds)
    assert written.dtype == expected.dtype == np.float32
    np.testing.assert_array_equal(written, _run_written([], *module, values, feeds))
    np.testing.assert_array_equal(written, expected)


def test_constant_dropout_is_a_keras_dropout_and_average_pooling_is_exact():
    """A dropout at a constant keep_prob is keras.layers.Dropout(rate=1 - keep_prob) called with training=True (TF1
    drops on every run; both scale the kept values by 1 / keep_prob); SAME average pooling on an odd size (TF1
    leaves the padding out of the mean) is AveragePooling2D, equal to TF1's value."""
    v1 = tf.compat.v1
    groups = {}
    x_value = np.random.RandomState(6).rand(2, 7, 7, 3).astype(np.float32)
    with tf.Graph().as_default() as graph:
        x = v1.placeholder(tf.float32, [None, 7, 7, 3])
        pool = tf.nn.avg_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
        dropped = v1.nn.dropout(pool, 0.75)
        level = tf.constant(0.75)
        groups[dropped.name] = Group("dropout", dropped.op, [pool, level], _inside(dropped, [pool]), {"keep": True})
        target = tf.reduce_sum(dropped)
        with v1.Session(graph=graph) as sess:
            expected_pool = sess.run(pool, {x: x_value})
            tr, layers, variables, lines, expr = _written(sess, target, [], {x.op.name: "x"}, groups, True)
    assert [(layer.attr, layer.cls, layer.arguments()) for layer in layers] == [
        ("dropout1", "keras.layers.Dropout", ["0.25", 'name="dropout1"']),
        ("pool1", "keras.layers.AveragePooling2D",
         ["pool_size=(2, 2)", "strides=(2, 2)", 'padding="same"', 'name="pool1"'])]
    assert [line.code for line in lines] == ["pool1 = self.pool1(x)", "dropout1 = self.dropout1(pool1, training=True)",
                                             "t1 = tf.reduce_sum(dropout1)"]
    written_pool = _run_written([layers[1]], {}, lines[:1], "pool1", {}, {"x": x_value})
    np.testing.assert_array_equal(written_pool, expected_pool)
    dropped = keras.layers.Dropout(0.25)(tf.ones([20000]), training=True).numpy()
    assert set(np.unique(dropped).tolist()) == {0.0, np.float32(1 / 0.75)}
    assert abs(float((dropped == 0).mean()) - 0.25) < 0.02  # 4.6 standard errors of 20000 draws at p = 0.25


def test_each_activation_a_dense_layer_takes_is_tf1s_op_exactly():
    """Every activation folded into a Dense / Conv2D (`keras_layers._ACTIVATIONS`) gives TF1's op bit for bit."""
    rng = np.random.RandomState(7)
    x, kernel, bias = 4 * rng.randn(6, 5).astype(np.float32), rng.randn(5, 4).astype(np.float32), rng.randn(4).astype(
        np.float32)
    pre = tf.matmul(x, kernel) + bias
    assert float(tf.reduce_max(pre)) > 6 and float(tf.reduce_min(pre)) < 0  # relu6 and relu differ, relu and elu too
    for op_type, name in keras_layers._ACTIVATIONS.items():
        dense = keras.layers.Dense(4, activation=name)
        dense.build((None, 5))
        dense.kernel.assign(kernel)
        dense.bias.assign(bias)
        tf1 = getattr(tf.raw_ops, op_type)(features=pre) if op_type not in ("Sigmoid", "Tanh", "Softmax") else \
            getattr(tf.raw_ops, op_type)(**{"logits" if op_type == "Softmax" else "x": pre})
        np.testing.assert_array_equal(dense(x).numpy(), tf1.numpy(), err_msg=op_type)
    assert len(keras_layers._ACTIVATIONS) == 8


def test_unknown_style_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(cli, ["convert", str(DATA / "logreg_gd.py"), "-o", str(tmp_path / "x.py"),
                                      "--style", "functional"])
    assert result.exit_code == 2 and "'functional' is not one of 'module', 'keras'" in result.output
    with pytest.raises(ValueError, match="style 'functional' is not one of module, keras"):
        convert_script(DATA / "logreg_gd.py", tmp_path / "y.py", ConvertOptions(style="functional"))


def test_keras_model_loads_a_tf1_saver_checkpoint(converted, tmp_path):
    """Each Keras-style rewrite's `restore_tf1_checkpoint` reads a checkpoint tf.compat.v1.train.Saver wrote (in a
    TF1 graph, each variable under the TF1 name the rewrite maps) into its layers' weights, value for value; a
    variable of another shape is refused naming it, before the model is half loaded."""
    out, _, _ = converted
    for name in [*SCRIPTS, CLI_SCRIPT]:
        Model, tree = written_model_class((out / f"{name}_tf2.py").read_text())
        method = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "restore_tf1_checkpoint")
        mapping = next(n.value for n in ast.walk(method) if isinstance(n, ast.Assign)
                       and getattr(n.targets[0], "id", "") == "tf1_names")
        model = Model()
        pairs = {k.value: eval(ast.unparse(v), {"self": model}) for k, v in zip(mapping.keys, mapping.values)}
        assert pairs and all(hasattr(v, "assign") for v in pairs.values())
        rng = np.random.RandomState(7)
        values = {k: rng.randn(*v.shape).astype(np.float32) for k, v in pairs.items()}
        with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
            saved = [tf.compat.v1.Variable(value, name=k) for k, value in values.items()]
            sess.run(tf.compat.v1.global_variables_initializer())
            assert [v.op.name for v in saved] == list(values)  # the names TF1 gave are the ones written
            path = tf.compat.v1.train.Saver().save(sess, str(tmp_path / name / "model.ckpt"))
        model.restore_tf1_checkpoint(path)
        for k, v in pairs.items():
            np.testing.assert_array_equal(np.asarray(v), values[k], err_msg=f"{name}: {k}")
        if len(values) > 1:
            first, *_ = values
            bad = {k: (np.zeros((2, *v.shape), np.float32) if k == first else v) for k, v in values.items()}
            with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
                saved = [tf.compat.v1.Variable(value, name=k) for k, value in bad.items()]
                sess.run(tf.compat.v1.global_variables_initializer())
                path = tf.compat.v1.train.Saver().save(sess, str(tmp_path / name / "bad.ckpt"))
            with pytest.raises(ValueError, match=f"{first} in .* has shape \\(2, "):
                model.restore_tf1_checkpoint(path)
            for k, v in pairs.items():  # nothing assigned: the good checkpoint's values are all still there
                np.testing.assert_array_equal(np.asarray(v), values[k], err_msg=f"{name}: {k} after the refusal")


def test_keras_model_is_one_a_keras_user_can_use(converted, tmp_path):
    """The Keras-style rewrite has a `call` (the forward pass the loss and metrics are computed from): `model(x)`,
    `model.predict`, `model.summary()` work; `model.save` then `keras.models.load_model` (the class found by its
    registered name, rebuilt from its config) gives a model with the same weights and outputs; and `model.export`
    (Keras 3's SavedModel) serves the same outputs."""
    out, _, _ = converted
    rng = np.random.RandomState(3)
    checked = []
    for name in [*SCRIPTS, CLI_SCRIPT]:
        Model, tree = written_model_class((out / f"{name}_tf2.py").read_text())
        call = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "call"), None)
        params = [a.arg for a in call.args.args] if call is not None else []
        if len(params) not in (2, 3) or (len(params) == 3 and (params[2] != "training" or
                                                               ast.literal_eval(call.args.defaults[-1]) is not False)):
            continue  # (self, x) or (self, x, training=False): a model of one input
        model = Model()
        first = next(layer for layer in model.layers if hasattr(layer, "kernel"))
        width = {"Dense": first.kernel.shape[0]}.get(type(first).__name__)
        if type(model.layers[0]).__name__ == "Reshape":  # the flat input a convolution's reshape takes
            width = int(np.prod(model.layers[0].target_shape))
        x = rng.rand(3, width).astype(np.float32) if width else rng.rand(3, 784).astype(np.float32)
        expected = np.asarray(model(x))
        np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-6, atol=1e-6)
        if "training" in params:  # dropout only when training, as TF1's keep_prob fed below 1.0
            np.testing.assert_array_equal(np.asarray(model(x, training=False)), expected)
            assert np.abs(np.asarray(model(x, training=True)) - expected).max() > 1e-3
        lines = []
        model.summary(print_fn=lambda line, *_, **__: lines.append(line))
        assert f"{model.layers[-1].name} ({type(model.layers[-1]).__name__})" in "\n".join(lines)
        path = tmp_path / f"{name}.keras"
        model.save(path)
        loaded = keras.models.load_model(path)
        assert type(loaded).__name__ == "Model" and loaded is not model
        np.testing.assert_allclose(np.asarray(loaded(x)), expected, rtol=1e-6, atol=1e-6)
        model.export(str(tmp_path / f"{name}_served"), verbose=False)  # Keras 3's SavedModel, its `serve` endpoint
        served = tf.saved_model.load(str(tmp_path / f"{name}_served"))
        np.testing.assert_allclose(served.serve(x).numpy(), expected, rtol=1e-6, atol=1e-6)
        checked.append(name)
    # cnn_dropout's keep_prob (0.5 to train, 1.0 elsewhere) is `call(self, x, training=False)`: it had no call
    assert checked == ["mlp_adam", "cnn_dropout", "autoencoder_rmsprop", CLI_SCRIPT]
