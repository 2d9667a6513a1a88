"""The legacy runtime's `tf.layers` (tf_layers: TF 1.15's functional layers on tf.compat.v1), without tf-keras:
names, shapes and collections as TF 1.15 gave them, batch normalisation's updates computed by hand with NumPy,
the runtime serving it, and one TF1 tf.layers CNN trained under `tfcompare run-tf1`.

(Against the real tf.compat.v1.layers of tf-keras 2.21, every function, its gradients and its updates agree
exactly: `python tests/data/legacy_layers_check.py` with tf-keras on the path; see the README.)"""

import importlib
import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

from tfcompare.scripts.legacy import coverage, tf_layers as layers
from tfcompare.scripts.legacy.runtime import install

pytestmark = pytest.mark.legacy  # its results depend on whether tf-keras is installed: CI runs it both ways

v1 = tf.compat.v1
SCRIPTS = Path(__file__).resolve().parent / "data" / "legacy_scripts"
HAVE_TF_KERAS = importlib.util.find_spec("tf_keras") is not None


def _names(collection=v1.GraphKeys.GLOBAL_VARIABLES):
    return [v.op.name for v in v1.get_collection(collection)]


def test_unnamed_calls_are_numbered_and_each_layer_has_tf1s_variables_shapes_and_collections():
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 28, 28, 1])
        conv = layers.conv2d(x, 8, 5, strides=2, activation=tf.nn.relu,
                             kernel_regularizer=lambda w: 0.5 * tf.reduce_sum(w))
        same = layers.conv2d(conv, 4, (3, 2), padding="SAME")
        pool = layers.max_pooling2d(same, 2, 2)
        up = layers.conv2d_transpose(pool, 3, 3, strides=2)
        norm = layers.batch_normalization(pool, training=True)
        flat = layers.flatten(norm)
        a, b = layers.dense(flat, 10), layers.dense(flat, 10, use_bias=False, trainable=False)
        seq = layers.dense(tf.zeros([2, 7, 5]), 3, name="fc")
        out = layers.dropout(a, 0.5, training=False)
        shapes = [t.shape.as_list() for t in (conv, same, pool, up, flat, a, seq)]
        assert shapes == [[None, 12, 12, 8], [None, 12, 12, 4], [None, 6, 6, 4], [None, 13, 13, 3], [None, 144],
                          [None, 10], [2, 7, 3]]
        assert [(v.op.name, v.shape.as_list()) for v in v1.global_variables()] == [
            ("conv2d/kernel", [5, 5, 1, 8]), ("conv2d/bias", [8]), ("conv2d_1/kernel", [3, 2, 8, 4]),
            ("conv2d_1/bias", [4]), ("conv2d_transpose/kernel", [3, 3, 3, 4]), ("conv2d_transpose/bias", [3]),
            ("batch_normalization/gamma", [4]), ("batch_normalization/beta", [4]),
            ("batch_normalization/moving_mean", [4]), ("batch_normalization/moving_variance", [4]),
            ("dense/kernel", [144, 10]), ("dense/bias", [10]), ("dense_1/kernel", [144, 10]),
            ("fc/kernel", [5, 3]), ("fc/bias", [3])]
        trainable = set(_names(v1.GraphKeys.TRAINABLE_VARIABLES))
        assert {"batch_normalization/moving_mean", "batch_normalization/moving_variance",
                "dense_1/kernel"}.isdisjoint(trainable) and len(trainable) == 12
        assert _names(v1.GraphKeys.MOVING_AVERAGE_VARIABLES) == []  # TF 1.15's tf.layers put none there
        assert len(v1.get_collection(v1.GraphKeys.UPDATE_OPS)) == 2
        assert len(v1.losses.get_regularization_losses()) == 1
        assert out.op.type == "Identity" and a.name == "dense/BiasAdd:0" and pool.name == "max_pooling2d/MaxPool:0"
        with pytest.raises(ValueError, match="fc/kernel already exists"):
            layers.dense(tf.zeros([2, 5]), 3, name="fc")
        assert layers.dense(tf.zeros([2, 5]), 3, name="fc", reuse=True).name == "fc_2/BiasAdd:0"  # fc_1: the failed
        assert len(v1.global_variables()) == 15


def test_a_dense_of_a_rank_3_input_and_a_pool_and_a_layer_object_compute_their_formulas():
    x_value = np.random.default_rng(0).normal(size=(2, 3, 4)).astype(np.float32)
    with tf.Graph().as_default(), v1.Session() as sess:
        x = tf.constant(x_value)
        y = layers.dense(x, 2, activation=tf.nn.relu, kernel_initializer=tf.constant_initializer(0.5),
                         bias_initializer=tf.constant_initializer(-1.0))
        pooled = layers.average_pooling1d(x, 2, 1)
        layer = layers.Dense(3, kernel_initializer=tf.ones_initializer())
        twice = layer(x), layer(x)
        sess.run(v1.global_variables_initializer())
        got, pool_value, (first, second) = sess.run([y, pooled, twice])
    np.testing.assert_allclose(got, np.maximum(x_value.sum(-1, keepdims=True) * 0.5 - 1.0, 0) * np.ones(2),
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(pool_value, (x_value[:, 1:] + x_value[:, :-1]) / 2, rtol=1e-6)
    np.testing.assert_array_equal(first, second)
    assert layer.name == "dense_1" and layer.kernel.op.name == "dense_1/kernel" and len(layer.variables) == 2


def _batch_norm_run(x_value, training, momentum=0.5, **kwargs):
    with tf.Graph().as_default(), v1.Session() as sess:
        x = tf.constant(x_value)
        flag = v1.placeholder_with_default(False, []) if training == "placeholder" else training
        out = layers.batch_normalization(x, momentum=momentum, training=flag, **kwargs)
        sess.run(v1.global_variables_initializer())
        got = sess.run(out)
        for update in v1.get_collection(v1.GraphKeys.UPDATE_OPS):
            sess.run(update)
        moving = {v.op.name.split("/")[-1]: sess.run(v) for v in v1.global_variables() if "moving" in v.op.name}
    return got, moving


def test_batch_norm_of_an_image_batch_is_fused_and_moves_its_variance_towards_the_unbiased_one():
    x_value = np.arange(16, dtype=np.float32).reshape(2, 2, 2, 2) ** 1.5  # 8 values per channel
    got, moving = _batch_norm_run(x_value, True)
    flat = x_value.reshape(-1, 2)
    mean, biased, unbiased = flat.mean(0), flat.var(0), flat.var(0, ddof=1)
    np.testing.assert_allclose(got, (x_value - mean) / np.sqrt(biased + 1e-3), rtol=1e-5, atol=1e-5)
    # moving -= (moving - batch) * (1 - momentum), from 0 and 1, with fused_batch_norm's n / (n - 1) variance
    np.testing.assert_allclose(moving["moving_mean"], 0.5 * mean, rtol=1e-6)
    np.testing.assert_allclose(moving["moving_variance"], 0.5 + 0.5 * unbiased, rtol=1e-6)


def test_batch_norm_of_a_feature_batch_uses_the_biased_variance_and_a_false_placeholder_changes_nothing():
    x_value = np.array([[1.0, -2.0], [2.0, 0.0], [4.0, 5.0]], np.float32)
    got, moving = _batch_norm_run(x_value, True, momentum=0.9)
    mean, biased = x_value.mean(0), x_value.var(0)
    np.testing.assert_allclose(got, (x_value - mean) / np.sqrt(biased + 1e-3), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(moving["moving_mean"], 0.1 * mean, rtol=1e-5)
    np.testing.assert_allclose(moving["moving_variance"], 0.9 + 0.1 * biased, rtol=1e-5)
    for x in (x_value, x_value.reshape(3, 2, 1, 1).transpose(0, 2, 3, 1)):  # non-fused and fused
        inferred, unmoved = _batch_norm_run(x, "placeholder" if x.ndim == 2 else False)
        np.testing.assert_allclose(inferred, x / np.sqrt(1 + 1e-3), rtol=1e-6)
        assert [v.tolist() for v in unmoved.values()] == [[0.0, 0.0], [1.0, 1.0]]


def test_dropout_is_the_identity_unless_training_and_then_drops_and_rescales():
    with tf.Graph().as_default(), v1.Session() as sess:
        x = tf.ones([100, 100])
        flag = v1.placeholder(tf.bool, [])
        off, live = layers.dropout(x, 0.3), layers.dropout(x, rate=0.3, training=flag)
        off_value, dropped = sess.run([off, live], {flag: True})
        kept = sess.run(live, {flag: False})
    assert (off_value == 1).all() and (kept == 1).all()
    assert 0.25 < (dropped == 0).mean() < 0.35
    np.testing.assert_allclose(np.unique(dropped), [0.0, 1 / 0.7], rtol=1e-6)  # the kept are scaled by 1 / (1 - rate)


@pytest.mark.skipif(HAVE_TF_KERAS, reason="tf-keras is installed: tf.layers is TensorFlow's own")
def test_without_tf_keras_the_runtime_serves_tf_layers_and_undo_puts_back_tensorflows():
    tf1 = importlib.import_module("tensorflow.compat.v1")
    before = tf1.layers
    notes = []
    undo = install("s.py", notes)
    try:
        assert tf1.layers.dense is layers.dense and tf.compat.v1.layers.BatchNormalization is layers.BatchNormalization
        assert notes == ["tf.layers came from tfcompare's legacy runtime (TF 1.15's definitions on tf.compat.v1), "
                         "not from TensorFlow 1.x"]
        with pytest.raises(AttributeError, match=r"^tf.layers.Layer is not provided"):
            tf1.layers.Layer  # noqa: B018
    finally:
        undo()
    assert tf1.layers is before
    assert coverage.is_provided("tf.layers.conv2d") and not coverage.is_provided("tf.layers.Layer")


def test_a_tf1_tf_layers_cnn_trains_under_run_tf1():
    from tfcompare.scripts.run_tf1 import TRAINED, run_tf1

    result = run_tf1(SCRIPTS / "tf_layers_cnn.py", 3, 240)
    assert result.status == TRAINED and len(result.losses) == 3, result.lines()
    assert all(math.isfinite(x) and 1.5 < x < 4.0 for x in result.losses)
    assert ("variables: conv2d/kernel[5, 5, 1, 8] conv2d/bias[8] batch_normalization/gamma[8] "
            "batch_normalization/beta[8] batch_normalization/moving_mean[8] batch_normalization/moving_variance[8] "
            "conv2d_1/kernel[3, 3, 8, 16] conv2d_1/bias[16] dense/kernel[576, 32] dense/bias[32] "
            "dense_1/kernel[32, 10] dense_1/bias[10]") in result.output
    assert HAVE_TF_KERAS or any(n.startswith("tf.layers came from tfcompare's legacy runtime") for n in result.notes)
