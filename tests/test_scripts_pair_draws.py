"""pair's random draws (child/draws.py): which TF1 draws are the script's own, and TF2's calls given them; in
process, on real TF graphs and functions. The end-to-end proof (a VAE pair that agrees, a stateless rewrite that
is no verdict) is in test_scripts_pair_truth.py."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from tfcompare.scripts.child.draws import TF2Draws, tf1_draws

_TF1 = '''
import tensorflow.compat.v1 as tf
x = tf.placeholder(tf.float32, [None, 3])
w = tf.Variable(tf.random_normal([3, 2]))  # an initializer: not the loss's draw
mu = tf.matmul(x, w)
eps = tf.random_normal(tf.shape(mu))
u = tf.random_uniform([2], minval=-1.0, maxval=1.0)
h = tf.nn.dropout(mu + eps * u, rate=0.5)  # its mask is drawn inside tf.nn.dropout
loss = tf.reduce_sum(h)
'''


def test_tf1s_draws_are_the_scripts_own_calls_the_loss_reads(tmp_path):
    script = tmp_path / "tf1_draws.py"
    script.write_text(_TF1)
    namespace: dict = {}
    with tf.Graph().as_default():
        exec(compile(_TF1, str(script), "exec"), namespace)
        found = tf1_draws(namespace["loss"], str(script))
        assert [t.op.type for t in found] == ["RandomStandardNormal", "RandomUniform"]
        assert found[0] is namespace["eps"].op.inputs[0].op.inputs[0]  # eps = rnd * stddev + mean
        assert tf1_draws(namespace["loss"], str(tmp_path / "other.py")) == []  # only the named script's calls


def test_tf2s_calls_in_a_forward_pass_take_tf1s_draws_step_by_step_eager_and_traced():
    """The i-th direct call inside a GradientTape takes TF1's i-th draw of the current step (mean and stddev
    applied by TF's own code); a doubled batch tiles it as TF1's doubled feed does; a draw inside tf.nn.dropout,
    an initializer, or a call outside any tape draws as usual; a call beyond TF1's draws is said, not given."""
    first = np.arange(6, dtype=np.float32).reshape(2, 3)
    draws = TF2Draws(["RandomStandardNormal"], [[first], [-first]])
    draws.install()
    try:
        _given_step_by_step(draws, first)
    finally:
        draws.uninstall()
    assert tf.random.normal([2, 3]).shape == (2, 3)


def _given_step_by_step(draws, first):
    w = tf.Variable(tf.random.normal([3, 3], seed=1))
    assert float(tf.math.reduce_std(w)) > 0.1  # drawn, not TF1's

    @tf.function
    def forward(x, extra=False):
        mu = tf.matmul(x, w)
        eps = tf.random.normal(tf.shape(mu), mean=1.0, stddev=2.0)
        dropped = tf.nn.dropout(mu, rate=0.5)
        if extra:
            eps += tf.random.normal(tf.shape(mu))
        return eps, dropped

    x = tf.ones([2, 3])
    for eager in (True, False):
        tf.config.run_functions_eagerly(eager)
        try:
            draws.set_step(0)
            with tf.GradientTape():
                eps, _ = forward(x)
            np.testing.assert_array_equal(eps.numpy(), first * 2.0 + 1.0)
            draws.set_step(1)
            with tf.GradientTape():
                eps, _ = forward(tf.ones([4, 3]))  # the doubled batch
            np.testing.assert_array_equal(eps.numpy(), np.concatenate([-first, -first]) * 2.0 + 1.0)
        finally:
            tf.config.run_functions_eagerly(False)
    assert draws.given == 4 and draws.unmatched == []
    outside = tf.random.normal([2, 3])  # no tape: drawn
    assert not np.array_equal(outside.numpy(), -first) and draws.given == 4
    with tf.GradientTape():
        forward(x, extra=True)
    assert draws.unmatched == ["RandomStandardNormal call 2"] and draws.given == 5

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)])
    def unknown(h):  # a shape known only when it runs, which TF1's (2, 3) cannot fill: drawn, and said
        return tf.random.normal(tf.shape(h))

    with tf.GradientTape():
        drawn = unknown(tf.ones([2, 4]))
    assert drawn.shape == (2, 4) and not np.array_equal(drawn.numpy()[:, :3], -first)
    assert draws.missing()[-1] == "1 call(s) whose shape, known when they ran, TF1's draw could not fill"


def test_two_draws_alike_are_not_given_by_order():
    """Two TF1 draws of one kind and shape: TF2's calls could make them in the other order, and an equivalent
    script given them swapped would differ (a false DIFFER), so none is given and pair says why."""
    from tfcompare.scripts.child.draws import alike

    normal, uniform = {"kind": "RandomStandardNormal", "shape": [2, 3]}, {"kind": "RandomUniform", "shape": [2, 3]}
    assert alike([normal, uniform]) == "" and alike([normal, {**normal, "shape": [3, 2]}]) == ""
    assert alike([normal, uniform, normal]) == ("TF1's step draws tf.random.normal (2, 3) 2 times, and which of "
                                                "TF2's calls is which cannot be told apart")
