"""Gradient clipping is a setting both sides have: TF1's ops between `compute_gradients` and `apply_gradients`,
Keras's `global_clipnorm` / `clipnorm` / `clipvalue`, or a TF2 script's own clipping between the tape and
`apply_gradients`. The gradients are compared before the transform on both sides, the update after it.

The clipped pair in tests/data/pairs/blind/ was written by someone who had not seen tfcompare.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

import tfcompare

from tfcompare.core import gradient_transforms as gt
from tfcompare.scripts.pair import AGREE, DIFFER, PairOptions, pair_scripts

BLIND = Path(__file__).parent / "data" / "pairs" / "blind"


def _tf1_graph_transform(make):
    with tf.Graph().as_default():
        w = tf.compat.v1.get_variable("w", [3], initializer=tf.compat.v1.ones_initializer())
        v = tf.compat.v1.get_variable("v", [2], initializer=tf.compat.v1.ones_initializer())
        raw = [g for g, _ in tf.compat.v1.train.GradientDescentOptimizer(0.1).compute_gradients(
            tf.reduce_sum(w * w) + tf.reduce_sum(v))]
        return gt.tf1_transform(raw, make(raw))


@pytest.mark.parametrize("make, kind, value", [
    (lambda g: tf.clip_by_global_norm(g, 1.5)[0], gt.GLOBAL_NORM, 1.5),
    (lambda g: tf.clip_by_global_norm(g, 1.0)[0], gt.GLOBAL_NORM, 1.0),
    (lambda g: [tf.clip_by_norm(x, 2.5) for x in g], gt.NORM, 2.5),
    (lambda g: [tf.clip_by_value(x, -0.7, 0.7) for x in g], gt.VALUE, 0.7),
    (lambda g: [x * 0.5 for x in g], gt.OTHER, None),
    (lambda g: g, gt.NONE, None),
], ids=["global", "global-1.0", "per-tensor", "value", "scaled", "none"])
def test_the_tf1_graph_names_its_clipping_and_its_constant(make, kind, value):
    found = _tf1_graph_transform(make)
    assert found["kind"] == kind
    assert found["value"] == (pytest.approx(value) if value is not None else None)


def test_clipping_done_by_hand_is_inferred_from_the_first_steps_numbers():
    g = {"a": np.array([3.0, 4.0], np.float32), "b": np.array([0.0, 12.0], np.float32)}  # norms 5 and 12, global 13
    for kind, c in ((gt.GLOBAL_NORM, 6.5), (gt.NORM, 6.0), (gt.VALUE, 3.5)):
        applied = gt.apply({"kind": kind, "value": c}, g)
        found = gt.inferred_transform(list(g.values()), list(applied.values()))
        assert (found["kind"], round(found["value"], 5)) == (kind, c)
    assert gt.apply({"kind": gt.GLOBAL_NORM, "value": 6.5}, g)["b"][1] == pytest.approx(6.0)
    assert gt.inferred_transform(list(g.values()), list(g.values()))["kind"] == gt.NONE
    # a clip that cut nothing this step cannot be told from none
    assert gt.inferred_transform(list(g.values()), list(gt.apply({"kind": gt.NORM, "value": 50.0}, g).values()))[
        "kind"] == gt.NONE


def test_the_same_clipping_is_no_difference_and_another_is_named_with_its_keras_setting():
    tf1 = {"kind": gt.GLOBAL_NORM, "value": 1.0, "source": "tf.clip_by_global_norm(..., 1)"}
    assert gt.difference(tf1, gt.keras_transform({"global_clipnorm": 1.0})) is None
    said = gt.difference(tf1, gt.keras_transform({"clipnorm": 1.0}))
    assert "clipnorm=1" in said and "global_clipnorm=1 is what TF1 does" in said
    assert "global norm of 1" in gt.difference(tf1, gt.keras_transform({"global_clipnorm": 5.0}))
    assert "drop clipvalue" in gt.difference(gt.none(), gt.keras_transform({"clipvalue": 0.5}))


def test_tf1_clip_by_global_norm_and_keras_global_clipnorm_agree_and_clipnorm_differs(tmp_path):
    tf1 = BLIND / "clipped_mlp_tf1.py"
    faithful = pair_scripts(tf1, BLIND / "clipped_mlp_tf2.py", PairOptions(steps=3))
    assert faithful.status == AGREE, "\n".join(faithful.lines())
    assert all(c.gradients_rel_err < 1e-5 for c in faithful.checks)  # compared before the clip on both sides
    assert faithful.sides["tf1"]["clipping"].startswith("all gradients together clipped to a global norm of 1 ")
    assert faithful.sides["tf2"]["clipping"].endswith("(global_clipnorm=1)")
    assert not any("Keras-only" in f.text for f in faithful.findings)

    bug = pair_scripts(tf1, BLIND / "clipped_mlp_tf2_bug.py", PairOptions(steps=3))
    assert bug.status == DIFFER
    assert bug.checks[0].gradients_rel_err < 1e-5 and bug.checks[0].weights_rel_err > 1e-3
    named = [f for f in bug.findings if f.kind == "gradient transform"]
    assert len(named) == 1 and named[0].decisive
    assert "each gradient clipped to a norm of 1 (clipnorm=1)" in named[0].text
    assert "global_clipnorm=1 is what TF1 does" in named[0].text


def test_a_tf2_script_that_clips_by_hand_between_tape_and_apply_is_read_too(tmp_path):
    source = (BLIND / "clipped_mlp_tf2.py").read_text()
    old = "    optimizer.apply_gradients(zip(grads, model.trainable_variables))"
    assert old in source and "global_clipnorm=CLIP_NORM" in source
    by_hand = source.replace("global_clipnorm=CLIP_NORM", "").replace(
        old, "    grads = [tf.clip_by_norm(g, CLIP_NORM) for g in grads]\n" + old)
    script = tmp_path / "by_hand_tf2.py"
    script.write_text(by_hand)
    result = pair_scripts(BLIND / "clipped_mlp_tf1.py", script, PairOptions(steps=2))
    assert result.status == DIFFER
    assert result.sides["tf2"]["clipping"].startswith("each gradient clipped to a norm of 1 (tf.clip_by_norm (by hand))")
    assert any(f.kind == "gradient transform" and f.decisive for f in result.findings)


@pytest.mark.legacy
@pytest.mark.skipif(importlib.util.find_spec("tf_keras") is None, reason="needs the legacy extra (tf-keras)")
@pytest.mark.parametrize("optimizer, status", [
    ("tf.keras.optimizers.Adam(learning_rate=LEARNING_RATE, epsilon=1e-8)", AGREE),
    ("tf.keras.optimizers.legacy.Adam(learning_rate=LEARNING_RATE, epsilon=1e-8)", AGREE),
    ("tf.keras.optimizers.legacy.Adam(learning_rate=LEARNING_RATE)", DIFFER),  # planted: Keras's epsilon 1e-7
], ids=["tf-keras-adam", "tf-keras-legacy-adam", "tf-keras-legacy-adam-epsilon"])
def test_a_tf_keras_2x_rewrite_pairs_like_keras_3(tmp_path, monkeypatch, optimizer, status):
    """tf.keras 2.x (`TF_USE_LEGACY_KERAS=1`, the TF2 code of 2020-2023): its variables, its optimizers (current
    and legacy) and `fit` are seen; the optimizer's slots are not taken for the model's state."""
    monkeypatch.setenv("TF_USE_LEGACY_KERAS", "1")  # as the user sets it: tfcompare's own setting then stays out
    monkeypatch.setattr(tfcompare, "LEGACY_KERAS_SET_HERE", False)
    source = (BLIND / "tfkeras2x_tf2.py").read_text()
    old = "tf.keras.optimizers.Adam(learning_rate=LEARNING_RATE, epsilon=1e-8)"
    assert old in source
    script = tmp_path / "tfkeras_tf2.py"
    script.write_text(source.replace(old, optimizer))
    result = pair_scripts(BLIND / "tfkeras2x_tf1.py", script, PairOptions(steps=2))
    assert result.status == status, "\n".join(result.lines())
    assert result.sides["tf2"]["optimizer"].startswith(
        "tf_keras.optimizers.legacy.Adam(" if "legacy" in optimizer else "tf_keras.optimizers.Adam(")
    assert len(result.pairing) == 4 and not any("non-trainable state" in n for n in result.notes)
    assert any("fit's inputs were replaced by TF1's batches" in n for n in result.notes)
    # and compared as the optimizer's state: tf.keras 2.x's lists (current) and get_slot (legacy)
    assert result.slots == [{"slot": "m", "variables": 4}, {"slot": "v", "variables": 4}]
    if status == DIFFER:
        assert any("epsilon: 1e-08 in TF1, 1e-07 in TF2" in f.text for f in result.findings)


def test_a_tf2_clip_that_cut_nothing_is_not_called_missing_when_tf1s_cut_nothing_either():
    from tfcompare.scripts.child.record import SideRecord
    from tfcompare.scripts.pair.diagnose import _gradient_transform

    tf1 = SideRecord("tf1", "a.py", losses=[1.0], gradient_transform={"kind": gt.GLOBAL_NORM, "value": 5.0,
                                                                      "source": "tf.clip_by_global_norm(..., 5)"})
    tf1.arrays = {"grad/0/w": np.array([0.3, 0.4], np.float32)}  # global norm 0.5: a bound of 5 cuts nothing
    seen = SideRecord("tf2", "b.py", gradient_transform=gt.inferred_transform([np.ones(2)], [np.ones(2)]))
    [said] = _gradient_transform(tf1, seen)
    assert not said.decisive and "cannot be seen: not judged" in said.text
    tf1.arrays["grad/0/w"] = np.array([30.0, 40.0], np.float32)  # norm 50: TF1's clip cut, TF2's step did not
    [said] = _gradient_transform(tf1, seen)
    assert said.decisive and "global_clipnorm=5 is what TF1 does" in said.text
    keras = SideRecord("tf2", "b.py", gradient_transform=gt.none())  # no Keras clip setting: known, not inferred
    tf1.arrays["grad/0/w"] = np.array([0.3, 0.4], np.float32)
    assert _gradient_transform(tf1, keras)[0].decisive


@pytest.mark.parametrize("tf2_clip, status", [(1000.0, AGREE), (500.0, DIFFER)], ids=["same", "planted-half"])
def test_a_clip_by_hand_that_cuts_nothing_is_read_from_its_call_and_judged(tmp_path, tf2_clip, status):
    """Both sides clip at a norm no gradient reaches: nothing is cut, so the numbers cannot show the TF2 clip;
    the script's own `tf.clip_by_global_norm` call does (before: "cannot be seen: not judged" either way)."""
    tf1 = _copy(BLIND / "clipped_mlp_tf1.py", tmp_path / "clip_tf1.py", {"CLIP_NORM = 1.0": "CLIP_NORM = 1000.0"})
    old = "    optimizer.apply_gradients(zip(grads, model.trainable_variables))"
    tf2 = _copy(BLIND / "clipped_mlp_tf2.py", tmp_path / "clip_tf2.py", {
        "CLIP_NORM = 1.0": f"CLIP_NORM = {tf2_clip}", "global_clipnorm=CLIP_NORM": "",
        old: "    grads, _ = tf.clip_by_global_norm(grads, CLIP_NORM)\n" + old})
    result = pair_scripts(tf1, tf2, PairOptions(steps=1))
    assert result.status == status, "\n".join(result.lines())
    assert result.sides["tf2"]["clipping"] == (f"all gradients together clipped to a global norm of {tf2_clip:g} "
                                               f"(tf.clip_by_global_norm(..., {tf2_clip:g}) (by hand))")
    named = [f for f in result.findings if f.kind == "gradient transform"]
    assert (status == DIFFER) == any(f.decisive for f in named), [f.text for f in named]


def _copy(src, dst, replace: dict):
    text = src.read_text()
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    dst.write_text(text)
    return dst


@pytest.mark.legacy
@pytest.mark.skipif(importlib.util.find_spec("tf_keras") is None, reason="needs the legacy extra (tf-keras)")
def test_the_blind_clipped_rnn_pair_agrees_and_its_clipnorm_mistake_differs():
    """Written by a helper who had not seen tfcompare: TF1 LSTMCell + dynamic_rnn + tf.layers.dense (tf-keras),
    clip_by_global_norm(5); TF2 Keras LSTM clipping by hand; planted `Adam(clipnorm=5.0)`. No gradient reaches 5."""
    tf1 = BLIND / "rnn_clip_tf1.py"
    faithful = pair_scripts(tf1, BLIND / "rnn_clip_tf2.py", PairOptions(steps=2))
    assert faithful.status == AGREE, "\n".join(faithful.lines())
    assert faithful.sides["tf2"]["clipping"].endswith("(tf.clip_by_global_norm(..., 5) (by hand))")
    bug = pair_scripts(tf1, BLIND / "rnn_clip_tf2_bug.py", PairOptions(steps=2))
    assert bug.status == DIFFER and all(c.ok for c in bug.checks), "\n".join(bug.lines())
    assert any("clipnorm=5" in f.text and "global_clipnorm=5 is what TF1 does" in f.text and f.decisive
               for f in bug.findings)
