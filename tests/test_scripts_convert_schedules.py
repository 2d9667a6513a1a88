"""A TF1 learning-rate schedule and optimizer as the rewrite writes them, checked against TF1's own values where the
three steps pair compares cannot reach (a schedule's boundaries at steps 100 and 200)."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from tfcompare.core import optimizers as exact


def test_keras_piecewise_constant_decay_takes_tf1s_value_at_every_step_through_its_boundaries():
    """TF1's piecewise_constant(x, [100, 200], ...) gives values[0] while x <= 100; Keras's schedule on the optimizer's
    iteration count (read before the step, as TF1's rate is read from the global step before minimize adds 1) the
    same, boundaries included."""
    import keras

    boundaries, values = [100, 200], [0.1, 0.05, 0.01]
    schedule = keras.optimizers.schedules.PiecewiseConstantDecay(boundaries=boundaries, values=values)
    with tf.compat.v1.Graph().as_default():
        step = tf.compat.v1.placeholder(tf.int64, [])
        rate = tf.compat.v1.train.piecewise_constant(step, boundaries, values)
        with tf.compat.v1.Session() as sess:
            tf1 = [sess.run(rate, {step: k}) for k in range(0, 251)]
    tf2 = [float(schedule(k)) for k in range(0, 251)]
    np.testing.assert_array_equal(np.float32(tf1), np.float32(tf2))
    assert (tf1[100], tf1[101], tf1[200], tf1[201]) == (np.float32(0.1), np.float32(0.05), np.float32(0.05),
                                                         np.float32(0.01))


def test_tf1s_adadelta_keras_adadelta_and_tfcompares_exact_one_take_the_same_five_steps():
    """pair's replay uses `exact.Adadelta` for TF1; convert writes Keras's Adadelta: all three update alike."""
    import keras

    rng = np.random.default_rng(0)
    start, grads = rng.normal(size=(4, 3)).astype(np.float32), rng.normal(size=(5, 4, 3)).astype(np.float32)
    with tf.compat.v1.Graph().as_default():
        w = tf.compat.v1.Variable(start)
        g = tf.compat.v1.placeholder(tf.float32, [4, 3])
        step = tf.compat.v1.train.AdadeltaOptimizer(1.0, rho=0.95, epsilon=1e-6).apply_gradients([(g, w)])
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            for k in range(5):
                sess.run(step, {g: grads[k]})
            tf1 = sess.run(w)
    w2, w3 = tf.Variable(start), tf.Variable(start)
    optimizer = keras.optimizers.Adadelta(learning_rate=1.0, rho=0.95, epsilon=1e-6)
    mine = exact.Adadelta(1.0, [w3], rho=0.95, epsilon=1e-6)
    for k in range(5):
        optimizer.apply_gradients([(tf.constant(grads[k]), w2)])
        mine.apply([tf.constant(grads[k])], [w3])
    assert not np.allclose(tf1, start, atol=1e-4)  # it moved
    np.testing.assert_allclose(w2.numpy(), tf1, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(w3.numpy(), tf1, rtol=1e-5, atol=1e-7)


def test_per_variable_gradient_factors_are_read_in_tf1s_order_and_anything_else_is_none():
    """`[(g * lr_multiplier(v), v) for g, v in grads_and_vars]` (a learning rate per layer, written by a helper who
    had not seen tfcompare): the step scales its gradients by TF1's constants; a clip or a factor computed at run
    time is not this."""
    from tfcompare.scripts.convert.train_step import clip_lines, gradient_factors

    with tf.compat.v1.Graph().as_default():
        v1 = tf.compat.v1
        x = v1.placeholder(tf.float32, [None, 2])
        w, b = v1.Variable(tf.ones([2, 1]), name="w"), v1.Variable(tf.zeros([1]), name="out/bias")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b))
        pairs = v1.train.GradientDescentOptimizer(0.1).compute_gradients(loss)
        raw = [g for g, _ in pairs]
        scaled = [(g * (0.2 if "bias" in v.name else 1.0), v) for g, v in pairs]
        assert gradient_factors({"raw_grads": raw, "grads_and_vars": scaled}) == [1.0, np.float32(0.2)]

        class _Tr:
            todos: list = []
        lines = clip_lines({"raw_grads": raw, "grads_and_vars": scaled}, _Tr())
        assert lines[-1].strip() == "gradients = [g * factor for g, factor in zip(gradients, [1.0, 0.2])]"
        assert _Tr.todos == []
        clipped = [(tf.clip_by_value(g, -1.0, 1.0), v) for g, v in pairs]
        assert gradient_factors({"raw_grads": raw, "grads_and_vars": clipped}) is None
        by_tensor = [(g * tf.reduce_mean(g), v) for g, v in pairs]  # a factor computed at run time
        assert gradient_factors({"raw_grads": raw, "grads_and_vars": by_tensor}) is None
        assert gradient_factors({"raw_grads": raw, "grads_and_vars": pairs}) is None  # nothing scaled
