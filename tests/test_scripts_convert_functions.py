"""convert's use of the script's own functions (script_functions): a GAN's generator and discriminator as
methods, the forward pass's own names, and the helpers it calls (`conv2d`) as methods; read from a real TF1 graph
and checked by running the written code against TF1's value."""

from __future__ import annotations

import ast
import contextlib

import numpy as np
import tensorflow as tf

from tfcompare.scripts.convert.ops import Translator


@contextlib.contextmanager
def _built(source: str, tmp_path, name: str):
    """The TF1 graph of `source`, run from a file (its ops' tracebacks name it), and the script's calls found."""
    from tfcompare.scripts.convert.script_functions import find_calls

    script = tmp_path / name
    script.write_text(source)
    namespace: dict = {}
    with tf.Graph().as_default() as graph:
        exec(compile(source, str(script), "exec"), namespace)
        yield str(script), namespace, find_calls(graph, str(script), ast.parse(source), namespace)


_FUNCTIONS = '''
import tensorflow as tf
w = tf.Variable(tf.ones([3, 3]), name="w")
v = tf.Variable(tf.ones([3, 2]), name="v")
x = tf.compat.v1.placeholder(tf.float32, [None, 3])
scale = tf.compat.v1.placeholder(tf.float32, [])


def block(h, reuse=False):
    with tf.compat.v1.variable_scope("block", reuse=reuse):
        hidden = tf.nn.relu(tf.matmul(h, w))
        return hidden


def head(h):
    out = tf.matmul(h, v) * scale
    return out


def width(h, k):
    return tf.matmul(h, w[:, :k])


def odd(image):
    packed = tf.nn.space_to_depth(image, 2)
    return packed


a = block(x)
b = block(a, reuse=True)
c = head(b)
d = width(x, 1)
e = width(x, 2)
loss = tf.reduce_sum(c) + tf.reduce_sum(d) + tf.reduce_sum(e)
images = tf.compat.v1.placeholder(tf.float32, [None, 4, 4, 1])
f = odd(images)
g = odd(f)
'''


def test_the_scripts_own_functions_are_methods_only_where_every_call_can_be_one(tmp_path):
    """script_functions: `block(h, reuse=False)`, called twice from the script's top level, is a method with its
    own local name and the tensor parameter only (reuse changes no op); `head` reads a placeholder it is not given
    (refused: a method would need it as a parameter); `width(x, k)`'s two calls translate to other code (refused); `odd`
    holds an op with no translation (refused, and its TODOs not left in the list). The losses call
    `self.block(...)`, and the written code computes TF1's loss."""
    from tfcompare.scripts.convert.script_functions import function_methods

    with _built(_FUNCTIONS, tmp_path, "functions.py") as (script, namespace, found):
        assert sorted(found) == ["block", "odd", "width"] and [c.params for c in found["block"]] == [["h"], ["h"]]
        assert found["block"][1].args[0] is namespace["a"]
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            feeds = {"x": np.arange(6, dtype=np.float32).reshape(2, 3) / 6, "scale": np.float32(0.5)}
            expected = sess.run(namespace["loss"], {namespace[k]: v for k, v in feeds.items()})
            tr = Translator(script, _FUNCTIONS.split("\n"), sess, {}, {"w": "w", "v": "v"},
                            {"Placeholder": "x", "Placeholder_1": "scale", "Placeholder_2": "images"}, {})
            methods = function_methods(tr, found)
            # odd(): an op with no translation, so no method; its translations leave no TODO in the console's list
            assert tr.todos == [] and not any(c.function in ("odd", "width")
                                              for cs in tr.calls.values() for c in cs)
            assert "odd" not in "\n".join(methods) and "width" not in "\n".join(methods)
            lines, expr = tr.function(namespace["loss"])
    assert [m.split("  # ")[0] for m in methods] == [
        "    def block(self, h):", "        hidden = tf.nn.relu(tf.matmul(h, self.w))", "        return hidden", ""], methods
    code = "\n".join(line.code for line in lines)
    assert code.startswith("h1 = self.block(x)\nh2 = self.block(h1)\nt1 = tf.reduce_sum(tf.matmul(h2, self.v) * scale)"), code
    model = type("M", (), {})()
    model.w, model.v = tf.Variable(tf.ones([3, 3])), tf.Variable(tf.ones([3, 2]))
    scope = {"tf": tf, "x": tf.constant(feeds["x"]), "scale": tf.constant(feeds["scale"])}
    exec("\n".join(m[4:] for m in methods), scope)
    model.block = lambda h: scope["block"](model, h)
    scope["self"] = model
    exec(compile(code + f"\nresult = {expr}", "<written>", "exec"), scope)
    np.testing.assert_allclose(scope["result"].numpy(), expected, rtol=1e-6)


_NESTED = '''
import tensorflow as tf
x = tf.compat.v1.placeholder(tf.float32, [None, 4, 4, 1])
weights = {'wc1': tf.Variable(tf.random.normal([2, 2, 1, 3])), 'out': tf.Variable(tf.random.normal([12, 2]))}
biases = {'bc1': tf.Variable(tf.random.normal([3]))}


def conv2d(x, W, b, strides=1):
    x = tf.nn.conv2d(x, W, strides=[1, strides, strides, 1], padding='SAME')
    x = tf.nn.bias_add(x, b)
    return tf.nn.relu(x)


def maxpool2d(x, k=2):
    return tf.nn.max_pool(x, ksize=[1, k, k, 1], strides=[1, k, k, 1], padding='SAME')


def conv_net(x, weights, biases):
    conv1 = conv2d(x, weights['wc1'], biases['bc1'])
    conv1 = maxpool2d(conv1, k=2)
    fc1 = tf.reshape(conv1, [-1, 12])
    out = tf.matmul(fc1, weights['out'])
    fc1 = tf.reduce_mean(fc1)
    out = out + fc1
    return out


logits = conv_net(x, weights, biases)
'''


def test_the_forward_pass_keeps_its_functions_names_and_calls_its_helpers_as_methods(tmp_path):
    """Aymeric Damien's raw CNN, in small: the model's output is `conv_net(...)`'s, so the forward pass takes its
    local names, and the helpers it calls (`conv2d` with a weight of a dict, `maxpool2d`) are methods it calls,
    each provenance the call's line. A name rebound as the script rebinds it (`conv1 = maxpool2d(conv1)`), except
    where the earlier value is read after the rebinding (the first `fc1`: a generated name). Computes TF1's value."""
    from tfcompare.scripts.convert.forward import call_lines
    from tfcompare.scripts.convert.script_functions import forward_names, function_methods

    with _built(_NESTED, tmp_path, "nested.py") as (script, namespace, found):
        assert [c.params for c in found["conv2d"]] == [["x", "W", "b"]] and found["maxpool2d"][0].params == ["x"]
        w, b = namespace["weights"], namespace["biases"]
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            feed = np.random.default_rng(3).normal(size=(2, 4, 4, 1)).astype(np.float32)
            expected = sess.run(namespace["logits"], {namespace["x"]: feed})
            values = sess.run([w["wc1"], w["out"], b["bc1"]])
            attrs = {w["wc1"].op.name: "weights_wc1", w["out"].op.name: "weights_out", b["bc1"].op.name: "biases_bc1"}
            tr = Translator(script, _NESTED.split("\n"), sess, {namespace["logits"].name: "logits"}, attrs,
                            {"Placeholder": "x"}, {})
            names, helpers = forward_names(found, namespace["logits"], tr)
            assert sorted(helpers) == ["conv2d", "maxpool2d"]
            methods = function_methods(tr, helpers)
            forward = call_lines(namespace["logits"], tr, "module", [namespace["x"]], {"Placeholder": "x"}, names)
    code = [line.split("  # ")[0] for line in methods + forward]
    assert code == [
        "    def conv2d(self, x, W, b):",
        "        x = tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding='SAME')",
        "        x = x + b",
        "        return tf.nn.relu(x)",
        "",
        "    def maxpool2d(self, x):",
        "        return tf.nn.max_pool2d(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')",
        "",
        "    @tf.function(input_signature=[tf.TensorSpec([None, 4, 4, 1], tf.float32)])",
        "    def __call__(self, x):",
        '        """The forward pass: what the loss, the metrics and the predictions are computed from."""',
        "        conv1 = self.conv2d(x, self.weights_wc1, self.biases_bc1)",
        "        conv1 = self.maxpool2d(conv1)",
        "        flat1 = tf.reshape(conv1, [-1, 12])",
        "        out = tf.matmul(flat1, self.weights_out)",
        "        fc1 = tf.reduce_mean(flat1)",
        "        out = out + fc1",
        "        return out",
        ""], "\n".join(methods + forward)
    assert forward[3].endswith("  # TF1 line 19: conv1 = conv2d(x, weights['wc1'], biases['bc1'])")
    scope = {"tf": tf}
    exec("class M(tf.Module):\n" + "\n".join(methods + forward), scope)
    model = scope["M"]()
    model.weights_wc1, model.weights_out, model.biases_bc1 = (tf.Variable(v) for v in values)
    np.testing.assert_allclose(model(tf.constant(feed)).numpy(), expected, rtol=1e-5, atol=1e-6)


_FED_ITSELF = '''
import numpy as np
import tensorflow as tf

rng = np.random.RandomState(0)
data, labels = rng.rand(64, 8).astype(np.float32) * 255, rng.randint(0, 3, 64)
raw = tf.placeholder(tf.float32, [None, 8])
tf_x = raw / 255.
tf_y = tf.placeholder(tf.int64, [None])
logits = tf.layers.dense(tf_x, 3)
loss = tf.losses.sparse_softmax_cross_entropy(labels=tf_y, logits=logits)
train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
sess = tf.Session()
sess.run(tf.global_variables_initializer())
for step in range(5):
    _, loss_ = sess.run([train_op, loss], {FED: data[step * 8:step * 8 + 8] / 255., tf_y: labels[step * 8:step * 8 + 8]})
    print(step, loss_)
'''


def test_a_tensor_the_script_feeds_itself_is_the_argument_and_its_unrun_ops_are_said(tmp_path):
    """MorvanZhou's `tf_x = tf.placeholder(...) / 255.` fed `{tf_x: b_x}`: TF1 replaces the division's output by
    the fed value, so the division never runs and the rewrite, rightly, has none; a reviewer read its absence as a
    dropped `/ 255.` (a wrong training run). The rewrite says why, above the forward pass and in the console, and
    pair proves it; fed through its placeholder, the division is written and nothing is said."""
    from tfcompare.scripts.convert import AGREE, ConvertOptions, convert_script

    for fed, said in (("tf_x", True), ("raw", False)):
        script = tmp_path / f"fed_{fed}.py"
        script.write_text(_FED_ITSELF.replace("FED", fed) if said else
                          _FED_ITSELF.replace("FED", fed).replace("] / 255., tf_y", "], tf_y"))
        new = tmp_path / f"fed_{fed}_tf2.py"
        result = convert_script(script, new, ConvertOptions(levers=()))
        assert result.status == AGREE, result.lines()
        text = new.read_text()
        call = text[text.index("def __call__"):text.index("return", text.index("def __call__"))]
        notes = [n for n in result.notes if "fed this tensor itself" in n]
        if said:
            assert notes == ["tf_x: TF1 fed this tensor itself (TF1 line 8: tf_x = raw / 255.), so the ops that "
                             "computed it never ran: the TF2 code takes the fed value as it is, as TF1 did"], notes
            assert "# tf_x: TF1 fed this tensor itself (TF1 line 8: tf_x = raw / 255.)" in call and "255" in call
            assert "/ 255" not in call.replace("raw / 255.)", "")
        else:
            assert notes == [] and "fed this tensor" not in text and "/ 255" in call, call


_FED_CODE = '''
import numpy as np
import tensorflow as tf

rng = np.random.RandomState(0)
data = rng.rand(64, 6).astype(np.float32)
W1 = rng.normal(0, 0.5, (6, 8)).astype(np.float32)
W2 = rng.normal(0, 0.5, (8, 2)).astype(np.float32)
W3 = rng.normal(0, 0.5, (2, 8))
W4 = rng.normal(0, 0.5, (8, 6)).astype(np.float32)


def autoencoder():
    x = tf.placeholder(tf.float32, [None, 6])
    h = tf.nn.tanh(tf.matmul(x, tf.Variable(W1)))
    z = tf.matmul(h, tf.Variable(W2))
    y = tf.nn.sigmoid(tf.matmul(tf.nn.tanh(tf.matmul(z, tf.Variable(W3, dtype=tf.float32))), tf.Variable(W4)))
    cost = tf.reduce_mean(tf.square(y - x))
    return {'x': x, 'z': z, 'y': y, 'cost': cost, 'layers': [x, h, z]}


ae = autoencoder()
optimizer = tf.train.AdamOptimizer(0.01).minimize(ae['cost'])
sess = tf.Session()
sess.run(tf.global_variables_initializer())
grid = np.array([[a, b] for a in (-1.0, 1.0) for b in (-1.0, 1.0)], dtype=np.float32)
for step in range(4):
    cost, _ = sess.run([ae['cost'], optimizer], feed_dict={ae['x']: data[step * 16:step * 16 + 16]})
    decoded = sess.run(ae['y'], feed_dict={ae['z']: grid})
    codes = sess.run(ae['z'], feed_dict={ae['x']: data[:4]})
    layers = sess.run(ae['layers'], feed_dict={ae['x']: data[:4]})
    print(step, cost, *decoded.sum(axis=1), codes.sum(), *(layer.sum() for layer in layers))
'''

_AS_TF1 = ("import runpy, sys, tensorflow.compat.v1 as tf; tf.disable_eager_execution(); "
           "sys.modules['tensorflow'] = tf; runpy.run_path(sys.argv[1], run_name='__main__')")


def test_a_fetch_with_a_computed_tensor_fed_or_a_list_fetched_is_a_method_and_prints_what_tf1_printed(tmp_path):
    """pkmital's VAE decodes its latent grid with `sess.run(ae['y'], feed_dict={ae['z']: z})`: TF1 takes `z` as
    given and runs only the decoder. Before, that run was a TODO and its loop body `pass` (the script crashed on its
    own at `np.concatenate([])`); now a method takes `z` (`model.ae_y_from_ae_z(grid)`), in both styles. The
    weights come from the script's own arrays (`tf.Variable(W1)` in the graph's function; before: zeros and a
    TODO); a fetched list of tensors is a method returning the list (MorvanZhou's batch-norm tutorial plots its
    `layer_input` lists: before, a TODO). Both scripts, run on their own, print the same numbers, step by step."""
    import os
    import subprocess
    import sys

    from tfcompare.scripts.convert import AGREE, ConvertOptions, convert_script

    script = tmp_path / "vae_grid.py"
    script.write_text(_FED_CODE)
    # as its user runs it: not with the tf-keras switch importing tfcompare sets for itself
    user_env = {k: v for k, v in os.environ.items() if "LEGACY_KERAS" not in k}
    tf1 = subprocess.run([sys.executable, "-c", _AS_TF1, str(script)], capture_output=True, text=True, timeout=300,
                         cwd=tmp_path)
    assert tf1.returncode == 0, tf1.stderr[-2000:]
    expected = np.array([[float(v) for v in line.split()] for line in tf1.stdout.splitlines()])
    assert expected.shape == (4, 10)
    for style in ("module", "keras"):
        new = tmp_path / f"vae_grid_{style}.py"
        result = convert_script(script, new, ConvertOptions(style=style, levers=()))
        assert result.status == AGREE and result.todos == [], result.lines()
        text = new.read_text()
        assert "decoded = model.ae_y_from_ae_z(grid).numpy()" in text and "codes = model.ae_z(data[:4])" in text
        # a fetched list of tensors (MorvanZhou's `nets[0].layer_input`): one method, the list of their values
        assert "layers = [value.numpy() for value in model.ae_layers(data[:4])]" in text, text
        method = text[text.index("def ae_y_from_ae_z(self, ae_z):"):text.index("return ae_y", text.index(
            "def ae_y_from_ae_z"))]
        assert "ae_x" not in method and "Variable_1" not in method and "dense2" not in method, method
        assert "TODO" not in text and "tf.zeros" not in text, text
        if style == "module":
            assert "tf.Variable(W1, name='Variable')" in text and \
                "tf.Variable(tf.constant(W3, dtype=tf.float32), name='Variable_2')" in text, text
        else:
            assert "kernel_initializer=keras.initializers.Constant(W1)" in text, text
        alone = subprocess.run([sys.executable, str(new)], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                               env=user_env)
        assert alone.returncode == 0, alone.stderr[-2000:]
        got = np.array([[float(v) for v in line.split()] for line in alone.stdout.splitlines()])
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
