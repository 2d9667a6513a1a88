"""TF1's loss fetched in the run that trains can be read in part after that run's update wrote the weights (a fetch
and an update are ordered by their data alone; with resource variables each use reads again): the first step's
repeated read tells that race from a live random draw, in-process on a real TF1 graph, so a script whose every draw
is fed is compared on the loss of the weights before its run, not called random (wiseodd-style WGAN-GP, its alpha
fed: "could not compare" in about one run in four under load)."""

import numpy as np
import pytest
import tensorflow as tf

from tfcompare.scripts.child import noise

v1 = tf.compat.v1


class _Probe:
    """What noise.repeat reads of pair's TF1 probe: the loss, and a counted Session.run."""

    def __init__(self, loss):
        self.loss, self.reads = loss, 0

    def _run(self, sess, fetches, feed):
        self.reads += 1
        return sess.run(fetches, feed)


@pytest.mark.parametrize("draw", ["none", "fed", "live"])
def test_a_run_loss_unlike_two_alike_reads_is_a_race_and_a_live_draw_is_still_random(draw):
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [4, 2])
        w = v1.get_variable("w", [2, 1], initializer=tf.ones_initializer())
        out = tf.matmul(x, w)
        noise_op = v1.random_uniform([4, 1]) if draw != "none" else None
        loss = tf.reduce_mean(tf.square(out if noise_op is None else out * noise_op))
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            feed = {x: np.arange(8, dtype=np.float32).reshape(4, 2)}
            if draw == "fed":
                feed[noise_op] = np.full((4, 1), 0.5, np.float32)
            probe = _Probe(loss)
            pure = float(sess.run(loss, feed)) if draw != "live" else None
            assert noise.live_random(loss, feed) == (draw == "live")
            # the run's own loss agrees with a read: nothing to tell, one read
            if draw != "live":
                probe.reads = 0
                assert noise.repeat(probe, sess, feed, np.float32(pure)) == (0.0, None) and probe.reads == 1
            # the run's loss 1% off (read after its update): two reads alike give the loss before the run
            probe.reads = 0
            raced = np.float32((pure or 1.0) * 1.01)
            change, before = noise.repeat(probe, sess, feed, raced)
            if draw == "live":  # a live draw explains the gap: random, and no second read draws again
                assert change > noise.ROUNDING and before is None and probe.reads == 1
            else:
                assert change == 0.0 and float(before) == pytest.approx(pure, rel=1e-6) and probe.reads == 2
