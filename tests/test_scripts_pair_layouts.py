"""Fused RNN layouts are paired by transformation: a TF1 GRUCell / LSTMCell / BasicLSTMCell seen in the layout of
the Keras GRU / LSTM that computes the same (`layouts`), proven here by running both on the same weights; and
on real pairs written by someone who had not seen tfcompare (tests/data/pairs/blind/gru_*, lstm_*).
"""

from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

from tfcompare.scripts.child.layouts import KERAS, RESET_AFTER, find_cells, variant_for, virtualise
from tfcompare.scripts.child.record import SideRecord, Variable
from tfcompare.scripts.legacy import rnn
from tfcompare.scripts.pair import AGREE, DIFFER, PairOptions, pair_scripts

BLIND = Path(__file__).parent / "data" / "pairs" / "blind"
_X = np.random.default_rng(7).normal(size=(3, 4, 5)).astype(np.float32)


def _tf1_cell(make):
    """TF1's outputs of `dynamic_rnn` over _X and the record of its variables (as the TF1 probe makes it)."""
    with tf.Graph().as_default() as graph:
        tf.compat.v1.set_random_seed(3)
        outputs, _ = tf.compat.v1.nn.dynamic_rnn(make(), tf.constant(_X), dtype=tf.float32)
        trained = tf.compat.v1.trainable_variables()
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            # the bias is drawn too: a zero bias would hide a gate order or forget-bias mistake
            for v in trained:
                if "bias" in v.op.name:
                    sess.run(v.assign(tf.random.uniform(v.shape, -0.5, 0.5, seed=1)))
            values, out = sess.run([trained, outputs])
        record = SideRecord("tf1", "x.py")
        for n, (v, value) in enumerate(zip(trained, values)):
            record.variables.append(Variable(v.op.name, v.op.name, list(value.shape), "float32", "?", n, n))
            record.arrays[f"init/{v.op.name}"] = value
            record.arrays[f"grad/0/{v.op.name}"] = value * 0 + 1
        record.floor = [{"loss": 0.0, "gradients": {v.op.name: 1e-7 * (n + 1) for n, v in enumerate(trained)},
                         "weights": {v.op.name: 0.0 for v in trained}}]
        record.cells = find_cells(record.variables, graph)
    return out, record


def _keras_outputs(layer, record, prefix):
    layer.build((None, _X.shape[1], _X.shape[2]))
    layer.set_weights([record.arrays[f"init/{prefix}:{part}"] for part in ("kernel", "recurrent_kernel", "bias")])
    return np.asarray(layer(_X))


@pytest.mark.parametrize("make, forget_bias", [
    (lambda: rnn.LSTMCell(6), 1.0),
    (lambda: rnn.LSTMCell(6, forget_bias=0.0), 0.0),
    (lambda: rnn.BasicLSTMCell(6, forget_bias=0.3), 0.3),
], ids=["lstm", "lstm-forget0", "basic-lstm-0.3"])
def test_a_tf1_lstm_cell_in_the_keras_layout_computes_what_keras_lstm_computes(make, forget_bias):
    want, record = _tf1_cell(make)
    [cell] = record.cells
    assert (cell["kind"], cell["input"], cell["units"]) == ("lstm", 5, 6)
    assert cell["forget_bias"] == pytest.approx(forget_bias)
    assert variant_for(record, [5, 24], {}, {}) == (cell["prefix"], KERAS)
    seen = virtualise(record, {cell["prefix"]: KERAS})
    assert [(v.name, v.shape) for v in seen.variables] == [
        (f"{cell['prefix']}:kernel", [5, 24]), (f"{cell['prefix']}:recurrent_kernel", [6, 24]),
        (f"{cell['prefix']}:bias", [24])]
    got = _keras_outputs(tf.keras.layers.LSTM(6, return_sequences=True), seen, cell["prefix"])
    np.testing.assert_allclose(got, want, atol=2e-6)
    # the gradients are permuted, never shifted by the forget bias; the floor is the members' largest
    np.testing.assert_array_equal(seen.arrays[f"grad/0/{cell['prefix']}:bias"], np.ones(24, np.float32))
    assert seen.floor[0]["gradients"] == {f"{cell['prefix']}:{p}": pytest.approx(2e-7)
                                          for p in ("kernel", "recurrent_kernel", "bias")}


def test_a_tf1_gru_cell_in_the_keras_layout_computes_what_keras_gru_with_reset_after_false_computes():
    want, record = _tf1_cell(lambda: rnn.GRUCell(6))
    [cell] = record.cells
    assert (cell["kind"], cell["input"], cell["units"]) == ("gru", 5, 6)
    assert virtualise(record) is record  # a cell no TF2 variable asked for stays as TF1 wrote it
    seen = virtualise(record, {cell["prefix"]: KERAS})
    got = _keras_outputs(tf.keras.layers.GRU(6, reset_after=False, return_sequences=True), seen, cell["prefix"])
    np.testing.assert_allclose(got, want, atol=2e-6)
    # Keras's default reset_after=True: its bias has two rows; with TF1's in the input row it computes another thing
    assert variant_for(record, [2, 18], {cell["prefix"]: KERAS}, {}) == (cell["prefix"], RESET_AFTER)
    assert variant_for(record, [2, 18], {}, {(18,): 1}) is None  # the one GRU of that size has its bias
    other = virtualise(record, {cell["prefix"]: RESET_AFTER})
    assert other.arrays[f"init/{cell['prefix']}:bias"].shape == (2, 18)
    assert not np.any(other.arrays[f"init/{cell['prefix']}:bias"][1])
    differs = _keras_outputs(tf.keras.layers.GRU(6, return_sequences=True), other, cell["prefix"])
    assert np.abs(differs - want).max() > 1e-3


def test_variables_that_only_look_like_a_cell_are_left_alone():
    record = [Variable("lstm_out/kernel", "lstm_out/kernel", [4, 8], "float32", "?", 0),  # 8 = 4 x 2: units 2 < 4
              Variable("dense/kernel", "dense/kernel", [10, 8], "float32", "?", 1),
              Variable("g/gates/kernel", "g/gates/kernel", [7, 6], "float32", "?", 2)]  # no candidate: not a GRU
    assert find_cells(record) == []


def test_blind_gru_and_lstm_pairs_agree_and_reset_after_is_named():
    gru = pair_scripts(BLIND / "gru_tf1.py", BLIND / "gru_tf2.py", PairOptions(steps=2))
    assert gru.status == AGREE, "\n".join(gru.lines())
    assert [p["tf1"] for p in gru.pairing[:3]] == ["rnn/gru_cell:kernel", "rnn/gru_cell:recurrent_kernel",
                                                   "rnn/gru_cell:bias"]
    assert all("layout: TF1 GRUCell" in p["how"] for p in gru.pairing[:3])
    assert all(c.loss_rel_err < 1e-5 for c in gru.checks)
    # Adam's moments of the cell's variables, permuted into Keras's layout like its gradients
    assert gru.slots == [{"slot": "m", "variables": 5}, {"slot": "v", "variables": 5}]

    bug = pair_scripts(BLIND / "gru_tf1.py", BLIND / "gru_tf2_bug.py", PairOptions(steps=2))
    assert bug.status == DIFFER
    assert bug.checks[0].loss_rel_err > 1e-4
    assert any(f.kind == "layout" and f.decisive and "reset_after=False computes what TF1 does" in f.text
               for f in bug.findings)

    lstm = pair_scripts(BLIND / "lstm_tf1.py", BLIND / "lstm_tf2.py", PairOptions(steps=2))
    assert lstm.status == AGREE, "\n".join(lstm.lines())
    assert "forget_bias 1 moved into the bias" in lstm.pairing[0]["how"]


RNN = BLIND / "rnn"


def test_a_stack_of_gru_cells_pairs_layer_by_layer_and_the_second_layers_reset_after_is_named(tmp_path):
    """MultiRNNCell([GRUCell(16), GRUCell(16)]): the second layer's kernel has the recurrent kernels' shape (16, 48),
    so the order of use separates them; only the second Keras layer is left at reset_after=True."""
    tf1 = tmp_path / "stacked_gru_tf1.py"  # tf.layers.dense needs tf-keras: contrib's layer, which the runtime has
    tf1.write_text((RNN / "stacked_gru_tf1.py").read_text().replace(
        "tf.layers.dense(last_output, 1)", "tf.contrib.layers.fully_connected(last_output, 1, activation_fn=None)"))
    bug = pair_scripts(tf1, RNN / "stacked_gru_tf2_bug.py", PairOptions(steps=1))
    assert bug.status == DIFFER
    assert [(p["tf1"], tuple(p["shape"])) for p in bug.pairing[3:6]] == [
        ("rnn/multi_rnn_cell/cell_1/gru_cell:kernel", (16, 48)),
        ("rnn/multi_rnn_cell/cell_1/gru_cell:recurrent_kernel", (16, 48)),
        ("rnn/multi_rnn_cell/cell_1/gru_cell:bias", (2, 48))]
    [named] = [f for f in bug.findings if f.kind == "layout"]
    assert "(rnn/multi_rnn_cell/cell_1/gru_cell)" in named.text


@pytest.mark.parametrize("tf1, tf2, words", [
    ("basic_lstm_tf1.py", "basic_lstm_tf2_bug.py", "starts at bias 1 in TF1 (its cell's forget_bias, added when it "
                                                   "runs), at 0 in TF2: unit_forget_bias=True"),
    ("lstm_forget0_tf1.py", "lstm_forget0_tf2_bug.py", "starts at bias 0 in TF1 (its cell's forget_bias, added when "
                                                       "it runs), at 1 in TF2: unit_forget_bias=False is TF1's"),
], ids=["unit-forget-bias-off", "forget-bias-0"])
def test_a_forget_bias_that_starts_elsewhere_is_named_though_every_step_agrees(tf1, tf2, words):
    result = pair_scripts(RNN / tf1, RNN / tf2, PairOptions(steps=1))
    assert result.status == DIFFER and all(c.ok for c in result.checks)
    assert any(f.decisive and words in f.text for f in result.findings), "\n".join(result.lines())


def test_a_bidirectional_lstm_pairs_both_directions():
    result = pair_scripts(RNN / "bilstm_tf1.py", RNN / "bilstm_tf2.py", PairOptions(steps=2))
    assert result.status == AGREE, "\n".join(result.lines())
    assert sum("layout: TF1 LSTMCell" in p["how"] for p in result.pairing) == 6


def test_a_two_feature_kernel_is_not_taken_for_a_reset_after_bias():
    _, record = _tf1_cell(lambda: rnn.BasicLSTMCell(32))  # input 5: a (5, 128) kernel
    [cell] = record.cells
    two = dict(cell, input=2)  # the same cell over 2 features: its Keras kernel is (2, 128)
    record.cells = [two]
    assert variant_for(record, [2, 128], {}, {}) == (cell["prefix"], KERAS)
