"""A Session.run of train ops that read each other's variables (a GAN's `sess.run([train_gen, train_disc, ...])`).

TF1's graph gives the run no order: both gradients from the run's starting weights, both updates applied. pair
compares that reading (TF1's own run replayed without the race of its ref variables), and TF2 steps in any order
that compute it; a TF2 step that recomputes the second loss after the first update differs at the second step.
"""

from __future__ import annotations

import json
import types
from pathlib import Path

import numpy as np
import tensorflow as tf
from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.scripts.child import joint_runs, noise
from tfcompare.scripts.child.record import SideRecord
from tfcompare.scripts.child.train_ops import writes_apart, written

BLIND = Path(__file__).parent / "data" / "pairs" / "blind"
# the blind TF2 rewrite's step: the generator's gradient, the discriminator's, then both updates (as TensorFlow's
# DCGAN tutorial writes it)
_STEP = """    gen_grads = tape.gradient(gen_loss, gen_vars)
    disc_grads = tape.gradient(disc_loss, disc_vars)
    del tape
    optimizer_gen.apply_gradients(zip(gen_grads, gen_vars))
    optimizer_disc.apply_gradients(zip(disc_grads, disc_vars))"""
VARIANTS = {
    "as_written": _STEP,
    # the discriminator's gradient and update first: TF1's graph orders neither
    "other_order": """    disc_grads = tape.gradient(disc_loss, disc_vars)
    gen_grads = tape.gradient(gen_loss, gen_vars)
    del tape
    optimizer_disc.apply_gradients(zip(disc_grads, disc_vars))
    optimizer_gen.apply_gradients(zip(gen_grads, gen_vars))""",
    # the generator updated, then the discriminator's loss computed again from the updated generator
    "sequential": """    gen_grads = tape.gradient(gen_loss, gen_vars)
    del tape
    optimizer_gen.apply_gradients(zip(gen_grads, gen_vars))
    with tf.GradientTape() as tape2:
        disc_real = discriminator(batch_x, weights, biases)
        disc_fake = discriminator(generator(z, weights, biases), weights, biases)
        disc_loss = -tf.reduce_mean(tf.math.log(disc_real) + tf.math.log(1. - disc_fake))
    disc_grads = tape2.gradient(disc_loss, disc_vars)
    optimizer_disc.apply_gradients(zip(disc_grads, disc_vars))""",
}


def _pair(tmp_path, variant: str, steps: int):
    text = (BLIND / "gan_dict_weights_tf2.py").read_text()
    assert _STEP in text
    tf2 = tmp_path / f"{variant}.py"
    tf2.write_text(text.replace(_STEP, VARIANTS[variant]))
    result = CliRunner().invoke(cli, ["pair", str(BLIND / "gan_dict_weights.py"), str(tf2), "--no-timing", "--json",
                                      "--steps", str(steps), "--logdir", str(tmp_path / "logs")])
    return result.exit_code, json.loads(result.output[result.output.index("{"):])


def test_a_gan_run_of_both_train_ops_agrees_with_tensorflows_gan_step_in_either_order(tmp_path):
    """Blind pair (written outside the project): TF1 runs `[train_gen, train_disc, gen_loss, disc_loss]` in one
    run, TF2 takes both gradients under one tape and applies both. Before, no verdict (exit 3)."""
    code, report = _pair(tmp_path, "as_written", 3)
    assert code == 0 and report["status"] == "agree", report
    assert [c["step"] for c in report["checks"]] == [1, 2, 3]
    notes = "\n".join(report["notes"])
    assert "each writes its own variables and reads the other's" in notes, notes
    assert "TF1's own runs of several train ops (steps 1+2)" in notes, notes  # raced or not, said either way
    assert "its steps to step 2 (1 calls of its step function) ran again traced" in notes, notes
    # the discriminator's step first: each TF2 step is compared with the TF1 step that trains its variables
    code, report = _pair(tmp_path, "other_order", 4)
    assert code == 0 and [c["step"] for c in report["checks"]] == [1, 2, 3, 4], report
    notes = "\n".join(report["notes"])
    assert "TF2 takes the steps of TF1's run 1+2 in another order (2, 1)" in notes, notes
    assert "TF2 takes the steps of TF1's run 3+4 in another order (4, 3)" in notes, notes
    assert "not compared: TF2's first gradient is another train op's loss" in json.dumps(report["sides"]), report


def test_a_gan_step_written_at_the_top_of_the_loop_with_its_updates_in_the_other_order_agrees(tmp_path):
    """No step function (the tapes inline in the training loop: nothing re-reads the weights when a step
    returns), the discriminator's update applied before the generator's: each update's weights are read as it
    lands, and the K-th step waits for its own update. Before, step 1's weights after it were read before any
    update and step 3's at the next gradient: a false DIFFER (weights 'rel err 1')."""
    text = (BLIND / "gan_dict_weights_tf2.py").read_text()
    start, end = text.index("@tf.function\ndef train_step(batch_x, z):"), text.index("# Start training")
    inline = _STEP.replace("gen_loss", "gl").replace("disc_loss", "dl").split("\n")
    body = ["    with tf.GradientTape(persistent=True) as tape:",
            "        gen_sample = generator(z, weights, biases)",
            "        disc_real = discriminator(batch_x, weights, biases)",
            "        disc_fake = discriminator(gen_sample, weights, biases)",
            "        gl = -tf.reduce_mean(tf.math.log(disc_fake))",
            "        dl = -tf.reduce_mean(tf.math.log(disc_real) + tf.math.log(1. - disc_fake))",
            *inline[:3], inline[4], inline[3]]  # the discriminator's update first
    top = text[:start] + text[end:].replace("    gl, dl = train_step(batch_x, z)\n", "\n".join(body) + "\n")
    assert "train_step" not in top.split("# Start training")[1]
    script = tmp_path / "top_level.py"
    script.write_text(top)
    result = CliRunner().invoke(cli, ["pair", str(BLIND / "gan_dict_weights.py"), str(script), "--no-timing",
                                      "--json", "--logdir", str(tmp_path / "logs")])
    report = json.loads(result.output[result.output.index("{"):])
    assert result.exit_code == 0 and [c["weights_ok"] for c in report["checks"]] == [True] * 3, report["checks"]


def test_a_sequential_gan_step_differs_at_the_second_step_and_a_cut_run_is_no_verdict(tmp_path):
    """The discriminator's loss recomputed after the generator's update is another computation than TF1's run:
    step 1 (the generator's) agrees, step 2's gradients differ. With --steps 1 and the discriminator's step first,
    TF1's first step has no counterpart: no step compared, exit 3, not a verdict."""
    code, report = _pair(tmp_path, "sequential", 3)
    assert code == 1 and report["status"] == "differ", report
    first, second = report["checks"][0], report["checks"][1]
    assert first["loss_ok"] and first["gradients_ok"] and first["weights_ok"], report["checks"]
    assert not second["loss_ok"] and second["gradients_rel_err"] > 1e3 * second["gradients_floor"], second
    code, report = _pair(tmp_path, "other_order", 1)
    assert code == 3 and report["checks"] == [], report
    assert report["error"].startswith("no step could be compared: the steps stop inside TF1's run 1+2"), report


def test_a_blind_gan_with_keras_models_agrees_and_its_same_shaped_inputs_are_taken_by_name(tmp_path):
    """Written outside the project (tests/data/pairs/blind/gan_ring*.py): TF1 feeds the real points and the noise,
    both (64, 2), as `x_real` and `z`; TF2's step `train_step(x_real, z)` takes them by those names. With its
    parameters written in the other order, `train_step(z, x_real)` (as convert once wrote it), TF1's feeds still go
    by name: before, the real points went to `z` by position, a false DIFFER (its inputs 'hold different
    examples')."""
    runner = CliRunner()
    text = (BLIND / "gan_ring_tf2.py").read_text()
    swapped = tmp_path / "swapped.py"
    swapped.write_text(text.replace("def train_step(x_real, z):", "def train_step(z, x_real):").replace(
        "train_step(tf.constant(batch), tf.constant(z_batch))", "train_step(tf.constant(z_batch), tf.constant(batch))"))
    assert swapped.read_text() != text
    for tf2 in (BLIND / "gan_ring_tf2.py", swapped):
        result = runner.invoke(cli, ["pair", str(BLIND / "gan_ring.py"), str(tf2), "--no-timing", "--json",
                                     "--logdir", str(tmp_path / "logs")])
        report = json.loads(result.output[result.output.index("{"):])
        assert result.exit_code == 0 and report["status"] == "agree", report
        assert max(c["loss_rel_err"] for c in report["checks"]) < 1e-5, report["checks"]


def _gan_graph(ordered: bool = False):
    """Two one-layer networks, each its own Adam, each loss reading the other's weights."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3])
        a = tf.compat.v1.get_variable("a", [3, 3])
        b = tf.compat.v1.get_variable("b", [3, 1])
        loss_a = tf.reduce_mean(tf.square(tf.matmul(tf.matmul(x, a), b)))
        loss_b = -loss_a
        train_a = tf.compat.v1.train.AdamOptimizer(0.1).minimize(loss_a, var_list=[a])
        with tf.control_dependencies([train_a] if ordered else []):  # the second step after the first: ordered
            train_b = tf.compat.v1.train.AdamOptimizer(0.1).minimize(loss_b, var_list=[b])
    return graph, x, (a, b), (loss_a, loss_b), (train_a, train_b)


def test_what_each_train_op_writes_and_when_they_are_one_step():
    graph, _, (a, b), _, (train_a, train_b) = _gan_graph()
    with graph.as_default():
        mine = {op.name for op in written(train_a)}
    assert "a" in mine and "b" not in mine and {"a/Adam", "a/Adam_1", "beta1_power", "beta2_power"} <= mine, mine
    assert writes_apart([train_a, train_b])
    assert not writes_apart([train_a, train_a])  # the same variables written twice: no order between the writes
    graph, *_, (train_a, train_b) = _gan_graph(ordered=True)
    assert not writes_apart([train_a, train_b])  # one runs the other (built under its control dependency)


def test_units_group_a_run_s_steps_and_cut_the_last_run_at_the_steps_recorded():
    record = SideRecord(side="tf1", script="s.py", joint=[[0, 1], [2, 3]], losses=[1.0, 2.0, 3.0])
    assert noise.units(record) == [[0, 1], [2]]


def test_a_raced_run_is_replaced_by_the_run_from_its_starting_weights_and_said():
    """`reference` replays the recorded run from the start without the race: a gradient recorded from weights the
    other update had already changed (planted here) is put back to the one from the run's starting weights, and
    the note names the step."""
    graph, x, (a, b), (loss_a, loss_b), (train_a, train_b) = _gan_graph()
    with graph.as_default():
        entries = []
        for loss, train, var in ((loss_a, train_a, a), (loss_b, train_b, b)):
            grad = next(op for op in graph.get_operations() if op.type.startswith("ResourceApplyAdam")
                        and op.inputs[0].op is var.op).inputs[-1]
            entries.append({"loss": loss, "train_op": train, "raw_grads": [grad], "grads_and_vars": [(grad, var)]})
        sess = tf.compat.v1.Session(graph=graph)
        sess.run(tf.compat.v1.global_variables_initializer())
        every = graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
        start = list(zip(every, sess.run(every)))
        feed = {x: np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)}
        # what a race-free run records: both gradients first, then both updates
        before = sess.run([a, b])
        (la, ga), (lb, gb) = sess.run([[loss_a, entries[0]["raw_grads"]], [loss_b, entries[1]["raw_grads"]]], feed)
        sess.run([train_a, train_b], {**feed, entries[0]["raw_grads"][0]: ga[0], entries[1]["raw_grads"][0]: gb[0]})
        after = sess.run([a, b])
        record = SideRecord(side="tf1", script="s.py", joint=[[0, 1]], losses=[float(la), float(lb)])
        record.variables = [types.SimpleNamespace(key="a"), types.SimpleNamespace(key="b")]
        record.arrays.update({"grad/0/a": ga[0], "grad/1/b": gb[0] * 1.01,  # the race: b's gradient moved
                              "before/0/a": before[0], "before/0/b": before[1], "before/1/a": after[0],
                              "before/1/b": before[1], "after/0/a": after[0], "after/0/b": before[1],
                              "after/1/a": after[0], "after/1/b": after[1]})
        probe = types.SimpleNamespace(record=record, _start=start, _fed=[feed, feed], slots=[], all_variables=[a, b],
                                      _counter=None, _run=lambda s, fetches, feed=None: s.run(fetches, feed))
        assert joint_runs.reference(probe, sess, entries) == ""
    np.testing.assert_allclose(record.arrays["grad/1/b"], gb[0], rtol=1e-6)
    np.testing.assert_allclose(record.arrays["after/1/b"], after[1], rtol=1e-6)
    np.testing.assert_array_equal(record.arrays["after/0/b"], before[1])  # b's update is the second step's
    assert any(n.startswith("TF1's own runs of several train ops (steps 1+2) raced at step 2: ")
               for n in record.notes), record.notes
