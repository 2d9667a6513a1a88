"""Each TF1-exact optimizer equals tf.compat.v1.train's over 5 steps on the same problem and gradients."""

import numpy as np
import pytest
import tensorflow as tf

from tfcompare import Adagrad, Adam, Momentum, RMSProp, SGD

tf1 = tf.compat.v1
STEPS = 5


def _problem():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((32, 4)).astype(np.float32),
            rng.standard_normal((32, 3)).astype(np.float32))


def _tf1(make_optimizer):
    w0, x, y = _problem()
    with tf1.Graph().as_default():
        w = tf1.get_variable("w", initializer=w0)
        loss = tf1.reduce_mean(tf1.square(tf1.matmul(x, w) - y))
        train = make_optimizer().minimize(loss, var_list=[w])
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            losses = [sess.run([train, loss])[1] for _ in range(STEPS)]
            return np.array(losses), sess.run(w)


def _tf2(make_optimizer):
    w0, x, y = _problem()
    w = tf.Variable(w0)
    optimizer = make_optimizer([w])
    losses = []
    for _ in range(STEPS):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        optimizer.apply(tape.gradient(loss, [w]), [w])
        losses.append(loss.numpy())
    return np.array(losses), w.numpy()


PAIRS = {
    "sgd": (lambda: tf1.train.GradientDescentOptimizer(0.1), lambda v: SGD(0.1, v)),
    "momentum": (lambda: tf1.train.MomentumOptimizer(0.1, 0.9), lambda v: Momentum(0.1, v, 0.9)),
    "nesterov": (lambda: tf1.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
                 lambda v: Momentum(0.1, v, 0.9, use_nesterov=True)),
    "adam": (lambda: tf1.train.AdamOptimizer(0.05), lambda v: Adam(0.05, v)),
    "rmsprop": (lambda: tf1.train.RMSPropOptimizer(0.01), lambda v: RMSProp(0.01, v)),
    "rmsprop-momentum": (lambda: tf1.train.RMSPropOptimizer(0.01, momentum=0.9),
                         lambda v: RMSProp(0.01, v, momentum=0.9)),
    "rmsprop-centered": (lambda: tf1.train.RMSPropOptimizer(0.01, momentum=0.5, centered=True),
                         lambda v: RMSProp(0.01, v, momentum=0.5, centered=True)),
    "adagrad": (lambda: tf1.train.AdagradOptimizer(0.1), lambda v: Adagrad(0.1, v)),
}


@pytest.mark.parametrize("name", list(PAIRS))
def test_tf1_exact_optimizer_matches_tf1_over_five_steps(name):
    make_tf1, make_tf2 = PAIRS[name]
    losses1, w1 = _tf1(make_tf1)
    losses2, w2 = _tf2(make_tf2)
    assert losses1[-1] != losses1[0]  # the optimizer moved the weights
    np.testing.assert_allclose(losses2, losses1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w2, w1, rtol=1e-5, atol=1e-6)
