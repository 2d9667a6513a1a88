"""The train step `convert` writes clips its gradients as TF1's train op did between computing and applying them
(`tf.clip_by_global_norm`, `tf.clip_by_norm`, `tf.clip_by_value`); any other transform is marked, never dropped."""

import types

import pytest
import tensorflow as tf

from tfcompare.scripts.convert.train_step import clip_lines

v1 = tf.compat.v1


@pytest.mark.parametrize("make, line", [
    (lambda g: tf.clip_by_global_norm(g, 1.5)[0], "gradients, _ = tf.clip_by_global_norm(gradients, 1.5)"),
    (lambda g: [tf.clip_by_norm(x, 2.5) for x in g], "gradients = [tf.clip_by_norm(g, 2.5) for g in gradients]"),
    (lambda g: [tf.clip_by_value(x, -0.7, 0.7) for x in g],
     "gradients = [tf.clip_by_value(g, -0.7, 0.7) for g in gradients]"),
    # a constant factor per gradient (a learning rate per layer): written since stop 64, in TF1's variable order
    (lambda g: [x * 0.5 for x in g], "gradients = [g * factor for g, factor in zip(gradients, [0.5])]"),
    (lambda g: [x + tf.random.normal(tf.shape(x)) for x in g], "# TODO(tfcompare): TF1 transformed the gradients here"),
    (lambda g: [x * tf.reduce_mean(x) for x in g], "# TODO(tfcompare): TF1 transformed the gradients here"),
    (lambda g: g, None),
], ids=["global", "per-tensor", "value", "scaled", "noise", "factor-at-run-time", "none"])
def test_the_steps_clip_is_the_tf1_train_ops_and_any_other_transform_is_marked(make, line):
    """convert's step clips (or scales by constants) as TF1's train op did between its gradients and
    apply_gradients; a transform with no such translation (noise, a factor computed at run time) is a TODO in the
    step and in the console's list, never dropped."""
    with tf.Graph().as_default():
        w = v1.get_variable("w", [3], initializer=tf.compat.v1.ones_initializer())
        loss = tf.reduce_sum(w * w)
        raw = tf.gradients(loss, [w])
        entry = {"raw_grads": raw, "grads_and_vars": list(zip(make(raw), [w]))}
        tr = types.SimpleNamespace(todos=[])
        lines = clip_lines(entry, tr)
    if line is None:
        assert lines == [] and tr.todos == []
        return
    assert len(lines) == (2 if "factor" in line else 1) and lines[-1].lstrip().startswith(line), lines
    assert len(tr.todos) == (1 if "TODO" in line else 0)


def test_a_fetched_global_norm_is_the_steps_to_return_and_only_that_one():
    """`grads, gn = tf.clip_by_global_norm(tf.gradients(loss, tvars), 5.0)` then `sess.run([train_op, gn])`: the
    step's clip binds `gn` and returns it after the loss; a norm the script does not fetch, or another train op's,
    is not; a `tf.global_norm` of its own (not the clip's) is no fetch of the step's either."""
    from tfcompare.scripts.convert.train_step import fetched_norm

    with tf.Graph().as_default():
        w = v1.get_variable("w", [3], initializer=tf.compat.v1.ones_initializer())
        loss = tf.reduce_sum(w * w)
        raw = tf.gradients(loss, [w])
        clipped, gn = tf.clip_by_global_norm(raw, 1.5)
        entry = {"raw_grads": raw, "grads_and_vars": list(zip(clipped, [w]))}
        other_norm = tf.linalg.global_norm(raw)
        names = {"gn": gn, "loss": loss, "other_norm": other_norm}
        assert fetched_norm(entry, names, {"gn", "loss"}) == "gn"
        assert fetched_norm(entry, names, {"loss"}) == ""
        assert fetched_norm(entry, names, {"other_norm"}) == ""
        unclipped = {"raw_grads": raw, "grads_and_vars": list(zip(raw, [w]))}
        assert fetched_norm(unclipped, names, {"gn"}) == ""
        tr = types.SimpleNamespace(todos=[])
        line = clip_lines(entry, tr, "gn")[0].lstrip()
        assert line.startswith("gradients, gn = tf.clip_by_global_norm(gradients, 1.5)"), line
