"""The proof runs what was written: after the eager comparison, TF2's steps run again as the script runs them (its
`tf.function` traced) from the same start on TF1's batches, and their weights are compared too. A step that fails
only when traced, or that a trace freezes (Python state read at trace time), is DIFFER, not AGREE."""

from pathlib import Path

from tfcompare.scripts.pair import AGREE, DIFFER, PairOptions, pair_scripts

PAIRS = Path(__file__).parent / "data" / "pairs"
_STEP_END = "    optimizer.apply_gradients(zip(grads, [W, b]))\n    return loss\n"


def _variant(tmp_path: Path, name: str, step_end: str, head: str = "") -> Path:
    source = (PAIRS / "tf2_logreg.py").read_text()
    assert _STEP_END in source
    path = tmp_path / name
    path.write_text(source.replace(_STEP_END, step_end).replace("@tf.function\n", head + "@tf.function\n"))
    return path


def _warm_up_tf1(tmp_path: Path) -> Path:
    """TF1's logistic regression with a learning rate of 0.5 for its first step, 0.1 after."""
    source = (PAIRS / "tf1_logreg.py").read_text()
    old = "train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)"
    assert old in source
    path = tmp_path / "warm_tf1.py"
    path.write_text(source.replace(old, "step_no = tf.train.get_or_create_global_step()\n"
                                        "rate = tf.train.piecewise_constant(step_no, [0], [0.5, 0.1])\n"
                                        "train = tf.train.GradientDescentOptimizer(rate).minimize(loss, "
                                        "global_step=step_no)"))
    return path


def test_the_faithful_step_agrees_traced_and_says_so():
    result = pair_scripts(PAIRS / "tf1_logreg.py", PAIRS / "tf2_logreg.py", PairOptions(steps=3))
    assert result.status == AGREE, "\n".join(result.lines())
    assert any("then the 3 steps ran again traced" in n for n in result.notes)


def test_a_step_that_fails_only_when_traced_differs(tmp_path):
    script = _variant(tmp_path, "numpy_in_step.py", "    print('loss', loss.numpy())\n" + _STEP_END)
    result = pair_scripts(PAIRS / "tf1_logreg.py", script, PairOptions(steps=2))
    assert all(c.ok for c in result.checks)  # eagerly, every step agrees
    assert result.status == DIFFER
    [traced] = [f for f in result.findings if f.kind == "traced"]
    assert traced.decisive and "fails when traced" in traced.text and "AttributeError" in traced.text


def test_python_state_a_trace_freezes_differs_at_the_step_it_changes(tmp_path):
    """A warm-up written with a Python counter inside the tf.function: eagerly 0.5 then 0.1, as TF1's schedule;
    traced, the first trace's 0.5 is frozen into the graph for every step."""
    script = _variant(tmp_path, "counter_tf2.py",
                      "    calls[0] += 1\n    optimizer.learning_rate.assign(0.5 if calls[0] == 1 else 0.1)\n"
                      + _STEP_END, head="calls = [0]\n\n\n")
    result = pair_scripts(_warm_up_tf1(tmp_path), script, PairOptions(steps=3))
    assert all(c.ok for c in result.checks), "\n".join(result.lines())
    assert result.status == DIFFER
    [traced] = [f for f in result.findings if f.kind == "traced"]
    assert traced.decisive and "while the eager step agrees" in traced.text


def test_an_input_signature_still_casts_when_the_bodies_run_eagerly():
    """pair's TF2 child runs tf.function bodies eagerly; a float64 NumPy batch must still reach the body as the
    signature's float32, as it does traced (MorvanZhou's regression: float64 `np.linspace` data, float32 weights)."""
    import numpy as np
    import tensorflow as tf

    from tfcompare.scripts.child import signatures

    saved = tf.function
    signatures.install()
    try:
        w = tf.Variable([[2.0]])

        @tf.function(input_signature=[tf.TensorSpec([None, 1], tf.float32)])
        def predict(x):
            return tf.matmul(x, w)

        class M:
            @tf.function(input_signature=[tf.TensorSpec([None, 1], tf.float32)])
            def predict(self, x):
                return tf.matmul(x, w)

        w0 = tf.Variable(2.0)

        @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
        def scaled(x):  # pkmital's polynomial regression: one float64 example at a time, `zip(xs, ys)`
            return tf.pow(x, 1.0) * w0

        tf.config.run_functions_eagerly(True)
        try:
            data = np.linspace(-1, 1, 3)[:, None]  # float64
            assert predict(data).numpy().ravel().tolist() == [-2.0, 0.0, 2.0]
            assert M().predict(data).dtype == tf.float32
            assert scaled(np.float64(1.5)).numpy() == 3.0 and scaled(1.5).dtype == tf.float32
        finally:
            tf.config.run_functions_eagerly(False)
        assert predict(data).numpy().ravel().tolist() == [-2.0, 0.0, 2.0]  # traced: TensorFlow's own cast
    finally:
        tf.function = saved
