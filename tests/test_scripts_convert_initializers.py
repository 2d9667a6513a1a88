"""convert names TF1's initializers as the Keras ones that draw the same distribution (`GlorotUniform()` for
`tf.get_variable`'s and `tf.layers.dense`'s default), read from the TF1 graph; other schemes stay as read."""

import numpy as np
import pytest
import tensorflow as tf

from tfcompare.scripts.child.initialisation import tf1_scheme
from tfcompare.scripts.convert.initializers import named

v1 = tf.compat.v1


@pytest.mark.parametrize("make, shape, expected", [
    (lambda: None, [784, 256], "GlorotUniform()"),  # get_variable's default
    (v1.glorot_normal_initializer, [784, 256], "GlorotNormal()"),
    (v1.glorot_uniform_initializer, [5, 5, 3, 32], "GlorotUniform()"),  # a conv kernel: fans times the window
    (lambda: v1.variance_scaling_initializer(2.0, "fan_in", "truncated_normal"), [300, 100], "HeNormal()"),
    (lambda: v1.variance_scaling_initializer(2.0, "fan_in", "uniform"), [300, 100], "HeUniform()"),
    (lambda: v1.variance_scaling_initializer(1.0, "fan_in", "uniform"), [64, 10], "LecunUniform()"),
    (lambda: v1.random_normal_initializer(stddev=0.1), [784, 256], None),
    (lambda: v1.truncated_normal_initializer(stddev=0.05), [784, 256], None),
    (lambda: v1.random_uniform_initializer(-0.0753, 0.0753), [784, 256], None),  # near Glorot's limit, not it
    (lambda: v1.variance_scaling_initializer(2.0, "fan_avg", "truncated_normal"), [300, 100], None),
    # wiseodd's xavier_init: normal(stddev=1 / sqrt(fan_in / 2)), untruncated: no Keras class, its VarianceScaling
    (lambda: v1.random_normal_initializer(stddev=float(1 / np.sqrt(300 / 2.0))), [300, 100],
     'VarianceScaling(scale=2.0, mode="fan_in", distribution="untruncated_normal")'),
    (lambda: v1.random_normal_initializer(stddev=float(np.sqrt(1 / 200))), [300, 100],
     'VarianceScaling(scale=1.0, mode="fan_avg", distribution="untruncated_normal")'),
    # `tf.random_normal([n_hidden, n_classes])` (N(0, 1)) is VarianceScaling(2.0, fan_out) for two classes only, a
    # uniform(-1, 1) Glorot's for a [3, 3] kernel: a number the script wrote is left as written (a reviewer read the
    # fitted one as wrong, as it is for any other n_classes)
    (lambda: v1.random_normal_initializer(stddev=1.0), [64, 2], None),
    (lambda: v1.random_uniform_initializer(-1.0, 1.0), [3, 3], None),
    (lambda: v1.random_normal_initializer(stddev=0.5), [8, 4], None),
])
def test_a_variance_scaling_scheme_is_named_only_where_its_parameters_are_exactly_keras(make, shape, expected):
    graph = tf.Graph()
    with graph.as_default():
        init = make()
        w = v1.get_variable("w", shape, initializer=init)
        with v1.Session(graph=graph) as sess:
            scheme = tf1_scheme(w, sess)
    assert named(scheme, shape) == expected
    if expected:  # the Keras initializer named draws within TF1's range (uniform) / with its spread (normal)
        # seeded: unseeded, 640 values reach past 0.99 of the bound only 96% of the time (0.995^640 = 4% miss)
        seeded = expected[:-1] + ("seed=1234)" if expected.endswith("()") else ", seed=1234)")
        drawn = eval("tf.keras.initializers." + seeded)(shape).numpy()
        if scheme["scheme"] == "uniform":
            assert drawn.min() >= scheme["low"] and drawn.max() <= scheme["high"]
            assert drawn.max() > 0.99 * scheme["high"]
        else:
            truncated = scheme["scheme"] == "truncated_normal"
            assert np.std(drawn) == pytest.approx(scheme["stddev"] * (0.87962566 if truncated else 1.0), rel=0.02)
