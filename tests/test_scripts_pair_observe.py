"""`pair` observes TF1's training without disturbing it and compares the whole state a step changes: a script
without `feed_dict` (a `tf.data` iterator, an Estimator's `input_fn`) trains on the batches it would have trained on
alone, and TF2 gets exactly those; batch-norm moving statistics are paired and compared like the weights.

The scripts in tests/data/pairs/blind/ were written by someone who had not seen tfcompare.
"""

from pathlib import Path

import numpy as np
import tensorflow as tf

from tfcompare.scripts.child.probe_tf1 import pipeline_outputs
from tfcompare.scripts.child.record import SideRecord
from tfcompare.scripts.pair import AGREE, DIFFER, PairOptions, pair_scripts
from tfcompare.scripts.pair.state import pair_state, state_findings

BLIND = Path(__file__).parent / "data" / "pairs" / "blind"


def _copy(src: Path, dst: Path, **replace: str) -> Path:
    text = src.read_text()
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    dst.write_text(text)
    return dst


def _three_batches(tmp_path: Path, lr2: str = "0.001"):
    """The pipeline pair cut to 96 examples, one epoch: exactly the 3 batches of 32 that 3 steps consume, so one
    batch pulled by anything but the script's own step ends its dataset early (OutOfRangeError)."""
    small = {"N, D, H, C = 640": "N, D, H, C = 96", "EPOCHS = 2": "EPOCHS = 1"}
    tf1 = _copy(BLIND / "data_pipeline_tf1.py", tmp_path / "pipe_tf1.py", **small)
    tf2 = _copy(BLIND / "data_pipeline_tf2.py", tmp_path / "pipe_tf2.py", **small,
                **{"LEARNING_RATE = 0.001": f"LEARNING_RATE = {lr2}"})
    return tf1, tf2


def test_the_loss_reads_an_iterators_outputs_and_nothing_a_placeholder_graph_feeds():
    with tf.Graph().as_default():
        x, y = tf.compat.v1.data.make_one_shot_iterator(
            tf.data.Dataset.from_tensor_slices((np.ones((4, 3), np.float32), np.ones(4, np.int64))).batch(2)).get_next()
        loss = tf.reduce_sum(x) + tf.cast(tf.reduce_sum(y), tf.float32)
        assert [t.name for t in pipeline_outputs(loss)] == [x.name, y.name] == ["IteratorGetNext:0", "IteratorGetNext:1"]
        p = tf.compat.v1.placeholder(tf.float32, (None, 3))
        assert pipeline_outputs(tf.reduce_sum(p * 2.0)) == []


def test_a_pipeline_script_without_feeds_trains_on_its_own_batches_and_agrees(tmp_path):
    result = pair_scripts(*_three_batches(tmp_path), PairOptions(steps=3))
    assert result.status == AGREE, "\n".join(result.lines())
    assert [c.step for c in result.checks] == [1, 2, 3]
    assert all(c.loss_rel_err < 1e-6 for c in result.checks)
    assert result.sides["tf1"]["reduction"] == "mean"  # the reduction check fed the batch: no "no batch in the feed"
    assert result.noise_floor.startswith("TF1's 3 steps replayed")  # the replays fed the recorded batches
    assert any("were replaced by TF1's batches" in n for n in result.notes)


def test_a_planted_learning_rate_in_a_pipeline_pair_still_differs(tmp_path):
    result = pair_scripts(*_three_batches(tmp_path, lr2="0.002"), PairOptions(steps=3))
    assert result.status == DIFFER, "\n".join(result.lines())
    assert result.checks[0].loss_rel_err < 1e-6 and not result.checks[0].ok  # same batch, same loss; the update differs
    assert any("learning_rate=0.001" in f.text and "learning_rate=0.002" in f.text for f in result.findings)


def test_an_estimator_with_an_input_fn_agrees_with_its_keras_rewrite():
    result = pair_scripts(BLIND / "estimator_tf1.py", BLIND / "estimator_tf2.py", PairOptions(steps=3))
    assert result.status == AGREE, "\n".join(result.lines())
    assert [c.step for c in result.checks] == [1, 2, 3] and all(c.ok for c in result.checks)
    assert any("tf.estimator came from tfcompare's legacy runtime" in n for n in result.notes)


def test_state_pairs_by_shape_then_by_what_the_names_say_then_by_order():
    one, two = SideRecord("tf1", "a.py"), SideRecord("tf2", "b.py")
    one.state = [{"key": "s0", "name": "bn/moving_variance", "shape": [4]}, {"key": "s1", "name": "bn/moving_mean",
                 "shape": [4]}, {"key": "s2", "name": "ema/w", "shape": [3, 2]}, {"key": "s3", "name": "x", "shape": [7]}]
    two.state = [{"key": "s0", "name": "bn/moving_mean", "shape": [4]}, {"key": "s1", "name": "bn/moving_variance",
                 "shape": [4]}, {"key": "s2", "name": "average", "shape": [3, 2]}]
    paired, left1, left2 = pair_state(one, two)
    assert [(a["name"], b["name"]) for a, b in paired] == [
        ("bn/moving_mean", "bn/moving_mean"), ("bn/moving_variance", "bn/moving_variance"), ("ema/w", "average")]
    assert [s["name"] for s in left1] == ["x"] and left2 == []


def test_state_is_compared_after_every_step_and_a_difference_that_builds_up_names_its_first_step():
    """Step 1 the same on both sides, step 3 apart by 1e-3 relative (over the 1e-4 tolerance): one finding, at 3."""
    one, two = SideRecord("tf1", "a.py"), SideRecord("tf2", "b.py")
    for rec in (one, two):
        rec.state = [{"key": "s0", "name": "bn/moving_mean", "shape": [4], "momentum": None}]
    values = [np.full(4, v, np.float32) for v in (0.0, 0.1, 0.19, 0.271)]
    for rec, drift in ((one, 1.0), (two, 1.001)):
        rec.arrays["state/init/s0"] = values[0]
        for step, v in enumerate(values[1:]):
            rec.arrays[f"state/{step}/s0"] = v * (drift if step == 2 else 1.0)
    found = state_findings(one, two)
    assert len(found) == 1 and found[0].decisive, found
    assert "after step 3: rel err 0.001 " in found[0].text and "step 1 agreed" in found[0].text, found[0].text
    two.arrays["state/2/s0"] = values[3] * 1.00005  # within 1e-4: agrees at every step
    assert state_findings(one, two) == []


def test_batch_norm_moving_statistics_agree_when_the_rewrite_is_faithful():
    result = pair_scripts(BLIND / "batchnorm_tf1.py", BLIND / "batchnorm_tf2.py", PairOptions(steps=3))
    assert result.status == AGREE, "\n".join(result.lines())
    assert [(s["tf1"], s["tf2"]) for s in result.state] == [
        ("bn1/moving_mean", "sequential/bn1/moving_mean"), ("bn1/moving_variance", "sequential/bn1/moving_variance")]
    assert not any(f.kind == "state" for f in result.findings)
    # TF1's MomentumOptimizer accumulator carried into Keras SGD's form, for the 5 trained variables
    assert result.slots == [{"slot": "momentum", "variables": 5}]


def test_a_keras_momentum_left_at_its_default_differs_and_names_both_decays():
    result = pair_scripts(BLIND / "batchnorm_tf1.py", BLIND / "batchnorm_tf2_bug.py", PairOptions(steps=3))
    assert result.status == DIFFER and all(c.ok for c in result.checks), "\n".join(result.lines())
    state = [f.text for f in result.findings if f.kind == "state" and f.decisive]
    assert len(state) == 2 and all("Keras momentum 0.99 against a TF1 decay of 0.9 " in t for t in state), state
    assert "moved it 0.1x as far as TF1" in state[0]


def test_a_tf1_train_op_without_its_update_ops_differs_and_says_so():
    result = pair_scripts(BLIND / "batchnorm_tf1_noupdate.py", BLIND / "batchnorm_tf2.py", PairOptions(steps=3))
    assert result.status == DIFFER and all(c.ok for c in result.checks), "\n".join(result.lines())
    texts = [f.text for f in result.findings if f.kind == "state"]
    assert len(texts) == 2 and all("TF1 never updates bn1/moving_" in t and "UPDATE_OPS" in t for t in texts), texts


def test_inference_mode_is_compared_after_the_first_step_and_a_tf1_eval_branch_mistake_differs(tmp_path):
    """The blind batch-norm pair in inference mode (TF1's is_training fed False, Keras's outermost call
    training=False): the same loss; a TF1 eval branch that takes the batch statistics too differs, though
    every training step agrees."""
    faithful = pair_scripts(BLIND / "batchnorm_tf1.py", BLIND / "batchnorm_tf2.py", PairOptions(steps=1))
    assert faithful.status == AGREE
    [note] = [n for n in faithful.notes if n.startswith("inference mode compared")]
    assert "fed False" in note and "TF2: its outermost Keras call with training=False)" in note  # no bool argument
    bug = _copy(BLIND / "batchnorm_tf1.py", tmp_path / "bn_eval_tf1.py", **{
        "lambda: (moving_mean, moving_var))": "lambda: (batch_mean, batch_var))"})
    result = pair_scripts(bug, BLIND / "batchnorm_tf2.py", PairOptions(steps=1))
    assert result.status == DIFFER and all(c.ok for c in result.checks)
    [found] = [f for f in result.findings if f.kind == "inference"]
    assert found.decisive and "in inference mode" in found.text


def test_a_rewrites_own_bool_flag_is_turned_false_where_tf1_turned_as_many_is_training_placeholders_false():
    """A module rewrite takes TF1's `is_training` as its own argument (`train_step(x, y, True)`), which no Keras
    call sets: read as True in inference mode, its batch norms used the batch's statistics against TF1's moving
    ones, a false DIFFER (the blind bn_is_training.py). Only as many True scalars as TF1 switched, else none."""
    import numpy as np
    import tensorflow as tf

    from tfcompare.scripts.child.inference_mode import _switched

    args = ((np.ones((2, 3), np.float32), True, np.bool_(True), tf.constant(True), tf.constant([True])), {})
    out, n = _switched(args, 3)
    assert n == 3 and out[0][1] is False and out[0][2] is np.False_ and not bool(out[0][3].numpy())
    assert out[0][3].dtype == tf.bool and out[0][4].numpy().tolist() == [True]  # a bool tensor of rank 1: data
    np.testing.assert_array_equal(out[0][0], args[0][0])
    assert _switched(args, 1) == (args, 0) and _switched(args, 0) == (args, 0)
    assert _switched(((1.0, False, np.asarray(True)), {"training": True}), 2)[1] == 2  # a keyword, a 0-d array
