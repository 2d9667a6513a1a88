"""Per-side inputs and weight layouts: a Keras 3 LSTM against a TF1 LSTMCell-layout graph, and the errors a
transform that is wrong gets."""

import dataclasses

import numpy as np

import eager_models.keras_lstm as keras_lstm
from tfcompare.registry import CASES
from tfcompare.run import harness

from conftest import QUICK_TEST

LSTM = CASES["keras-lstm"]


def test_the_lstm_layouts_convert_both_ways_exactly():
    w = LSTM.init_weights(np.random.default_rng(0))
    keras_side = keras_lstm.to_keras(w)
    assert {k: v.shape for k, v in keras_side.items()} == {
        "lstm/kernel": (6, 32), "lstm/recurrent_kernel": (8, 32), "lstm/bias": (32,), "out/kernel": (8, 4),
        "out/bias": (4,)}
    assert np.all(keras_side["lstm/bias"][8:16] == 1.0) and np.all(keras_side["lstm/bias"][16:] == 0.0)  # forget bias
    assert np.array_equal(keras_side["lstm/kernel"][:, 8:16], w["lstm/kernel"][:6, 16:24])  # TF1's f -> Keras's f
    back = keras_lstm.to_tf1(keras_side)
    assert all(np.array_equal(back[k], w[k]) for k in w)
    batch = LSTM.make_batch(np.random.default_rng(1), 5)
    assert sorted(LSTM.tf1_inputs(batch)) == ["keep_prob", "label", "x"]
    tf2 = LSTM.tf2_inputs(batch)
    assert sorted(tf2) == ["onehot", "x"] and np.array_equal(tf2["onehot"].argmax(1), batch["label"])


def test_a_keras_lstm_agrees_with_the_tf1_lstm_in_every_mode(full_run):
    rows = {r.mode: r for r in full_run.results if r.case == "keras-lstm"}
    assert "a KerasStep brings its own train_step" in rows["tf2-partial"].error  # nothing to split
    for mode in ("tf1-graph", "tf2-eager", "tf2-function", "tf2-xla"):  # the lever modes: by hand (README figures)
        row = rows[mode]
        assert row.status == "ok", (mode, row.error)
        assert row.max_abs_err < 1e-5 and row.equivalence["checks"][1]["name"] == "gradients['lstm/kernel']"


def test_wrong_transforms_are_error_rows_that_name_them(tmp_path):
    from tfcompare.core.cases import InputSpec

    short = dataclasses.replace(LSTM, inputs=(InputSpec("x", (3, 6)), InputSpec("label", (), "int32", high=4)),
                                make_batch=None)  # 3 time steps: a smaller TF1 unroll, the same layouts
    not_inverse = dataclasses.replace(short, name="lstm-not-inverse", tf2_layout=dataclasses.replace(
        LSTM.tf2_layout, to_tf1=lambda w: {**keras_lstm.to_tf1(w), "lstm/bias": np.asarray(w["lstm/bias"])}))
    not_a_dict = dataclasses.replace(short, name="lstm-list-batch", tf2_batch=lambda b: [b["x"]])
    wrong_shape = dataclasses.replace(short, name="lstm-wrong-shape",
                                      tf1_batch=lambda b: {**b, "keep_prob": np.ones(3, np.float32)})
    cases = {c.name: c for c in (not_inverse, not_a_dict, wrong_shape)}
    config = harness.RunConfig(cases=tuple(cases), modes=("tf1-graph", "tf2-eager"), **QUICK_TEST)
    rows = {(r.case, r.mode): r for r in harness.run(config, cases, tmp_path, "lstm").results}
    bad = rows[("lstm-not-inverse", "tf2-eager")]
    assert bad.status == "error" and bad.error == (
        "ValueError: the weight-layout transform does not invert: tf2_layout.to_tf1(to_tf2(w)) gives (32,) values "
        "that differ from 'lstm/bias' (32,) of init_weights")
    listed = rows[("lstm-list-batch", "tf2-eager")]
    assert listed.status == "error" and "tf2_batch returned list, not a dict of arrays" in listed.error
    assert rows[("lstm-list-batch", "tf1-graph")].status == "ok"  # the other side still runs
    shaped = rows[("lstm-wrong-shape", "tf1-graph")]
    assert shaped.status == "error" and "keep_prob" in shaped.error and "(3,)" in shaped.error


def test_a_trained_tf1_checkpoint_starts_both_sides_and_bad_paths_and_names_are_error_rows(tmp_path):
    from tfcompare import checkpoint_weights, tf1, weight_loader

    linear = CASES["linear"]
    trained = {k: v + 0.5 for k, v in linear.init_weights(np.random.default_rng(3)).items()}
    with tf1.Graph().as_default():
        parts = linear.build_graph(linear.inputs)
        load, feeds = weight_loader(parts.variables)
        saver = tf1.train.Saver({f"model/{n}": v for n, v in parts.variables.items()})
        with tf1.Session() as session:
            session.run(tf1.global_variables_initializer())
            session.run(load, {feeds[n]: trained[n] for n in feeds})
            prefix = saver.save(session, str(tmp_path / "ckpt" / "model.ckpt"), global_step=7)
    names = {"w": "model/w", "b": "model/b"}
    for where in (prefix, tmp_path / "ckpt"):  # the prefix, or the folder with its `checkpoint` file
        loaded = checkpoint_weights(where, names)
        assert all(np.array_equal(loaded[n], trained[n]) for n in trained)
    model = linear.tf2_model(checkpoint_weights(prefix, names))
    assert np.array_equal(model.variables_by_name["w"].numpy(), trained["w"])
    cases = {
        "from-ckpt": dataclasses.replace(linear, name="from-ckpt", init_weights=lambda rng: checkpoint_weights(
            prefix, names)),
        "no-ckpt": dataclasses.replace(linear, name="no-ckpt", init_weights=lambda rng: checkpoint_weights(
            tmp_path / "nope.ckpt", names)),
        "bad-name": dataclasses.replace(linear, name="bad-name", init_weights=lambda rng: checkpoint_weights(
            prefix, {"w": "model/kernel", "b": "model/b"})),
    }
    config = harness.RunConfig(cases=tuple(cases), modes=("tf1-graph", "tf2-function"), **QUICK_TEST)
    rows = {(r.case, r.mode): r for r in harness.run(config, cases, tmp_path, "run").results}
    assert rows[("from-ckpt", "tf2-function")].status == "ok"
    missing = rows[("no-ckpt", "tf2-function")]
    assert missing.status == "error" and f"checkpoint {str(tmp_path / 'nope.ckpt')!r} does not exist" in missing.error
    unknown = rows[("bad-name", "tf1-graph")]
    assert unknown.status == "error" and ("has no variable 'model/kernel' (mapped from 'w'); it holds: model/b (1,), "
                                          "model/w (20, 1)") in unknown.error


def test_the_readme_pair_tf1_adam_against_a_compiled_keras_model(tmp_path):
    """The worked example: ok in eager, function and XLA with epsilon matched; Keras's default epsilon is a
    mismatch whose diagnosis names the optimizer and epsilon; the adapter is at most half the model code."""
    import re
    from pathlib import Path

    from tfcompare.core.cases import load_cases_file

    path = Path("tests/data/adam_pair.py")
    cases = {c.name: c for c in load_cases_file(path)}
    rows = {}
    for name, modes in (("adam-pair", ("tf1-graph", "tf2-eager", "tf2-function", "tf2-xla")),
                        ("adam-pair-default", ("tf1-graph", "tf2-function"))):
        config = harness.RunConfig(cases=(name,), modes=modes, **QUICK_TEST)
        rows.update({(r.case, r.mode): r for r in harness.run(config, cases, tmp_path, name).results})
    for mode in ("tf2-eager", "tf2-function", "tf2-xla"):
        assert rows[("adam-pair", mode)].status == "ok", rows[("adam-pair", mode)].error
    default = rows[("adam-pair-default", "tf2-function")]
    assert default.status == "mismatch"
    assert ("TF2 keras.optimizers.Adam(learning_rate=0.1, beta1=0.9, beta2=0.999, epsilon=1e-07)" in default.error
            and "epsilon (1e-08 in TF1, 1e-07 in TF2) accounts for it" in default.error)
    sections = dict(zip(*[iter(re.split(r"^# --- (.*?) ---$", path.read_text(), flags=re.M)[1:])] * 2))
    lines = {k.split(" (")[0]: sum(1 for s in v.splitlines() if s.strip() and not s.strip().startswith("#"))
             for k, v in sections.items()}
    assert lines["TF1 model"] == 12 and lines["TF2 model"] == 12 and lines["adapter"] == 11
    assert lines["adapter"] / (lines["TF1 model"] + lines["TF2 model"]) <= 0.5
