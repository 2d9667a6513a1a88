"""`tfcompare pair` end to end on real script pairs written the way their authors write them (tests/data/pairs/):
a faithful pair at loss scale 1e4 agrees with its noise floor reported everywhere; the planted input and
initialisation bugs that used to pass are DIFFER with their cause; a crash tfcompare caused names tfcompare."""

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.scripts.pair import AGREE, DIFFER, FAILED, PairOptions, pair_scripts

PAIRS = Path(__file__).parent / "data" / "pairs"
TF1_DEEP, TF2_DEEP, TF2_DEEP_FIT = PAIRS / "tf1_deep.py", PAIRS / "tf2_deep_raw.py", PAIRS / "tf2_deep_keras.py"


def _kinds(result) -> dict[str, str]:
    """The first finding of each kind."""
    out: dict[str, str] = {}
    for f in result.findings:
        out.setdefault(f.kind, f.text)
    return out


def _scalars(folder: Path) -> dict[str, list[float]]:
    """Every scalar in a TensorBoard run's event files, read with TensorFlow's own reader."""
    import tensorflow as tf

    out: dict[str, list[float]] = {}
    for path in sorted(folder.glob("events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            for value in event.summary.value:
                if value.metadata.plugin_data.plugin_name != "scalars":
                    continue
                number = tf.make_ndarray(value.tensor) if value.HasField("tensor") else value.simple_value
                out.setdefault(value.tag, []).append(float(number))
    return out


def test_a_faithful_pair_at_loss_1e4_agrees_from_another_folder_with_its_floor_in_text_json_and_tensorboard(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tf1, tf2 = os.path.relpath(TF1_DEEP), os.path.relpath(TF2_DEEP)
    ran = CliRunner().invoke(cli, ["pair", tf1, tf2, "--json", "--", "--std", "4"])
    assert ran.exit_code == 0, ran.output
    found = json.loads(ran.stdout)
    assert found["status"] == "agree"
    assert all(1e4 < c["loss_tf1"] < 1e6 for c in found["checks"])
    assert found["noise_floor"].startswith("TF1's 3 steps replayed from the same initial weights with each batch's "
                                           "examples permuted (twice), the initial weights moved by one float32 "
                                           "ulp (twice), the optimizer's scalar settings moved by one float32 ulp "
                                           "(twice); the largest gap")
    for c in found["checks"]:
        assert c["weights_floor"] is not None and 0 < c["weights_floor"] < 1e-5
        assert c["weights_rel_err"] <= found["floor_factor"] * max(c["weights_floor"], 1.2e-7)
    assert found["findings"] == []  # the same random_normal scheme: no initialisation finding
    board = Path(found["tensorboard"])
    assert board.parent == tmp_path / "logs"
    scalars = _scalars(board)
    assert scalars["pair/weights_floor"] == pytest.approx([c["weights_floor"] for c in found["checks"]], rel=1e-6)
    assert scalars["pair/weights_rel_err"] == pytest.approx([c["weights_rel_err"] for c in found["checks"]],
                                                            rel=1e-6, abs=1e-12)


@pytest.mark.parametrize("bug,kind,text", [
    ("scale", "inputs", "inputs (Placeholder in TF1, the step's argument #0 in TF2): scale: TF2's values are TF1's "
                        "x 255 (TF1 range [0, 1], TF2 [0, 255]; TF1 divides by 255, TF2 does not)"),
    ("transpose", "inputs", "inputs (Placeholder in TF1, the step's argument #0 in TF2): layout: TF2's examples are "
                            "TF1's read as (28, 28) and transposed"),
    ("init", "initialisation", "initialisation of Variable (784, 64): TF1 normal(mean=0, stddev=1), TF2 (Variable, "
                               "line 34) unread: TF2's 50176 values cannot come from TF1's scheme"),
])
def test_a_bug_the_steps_cannot_show_is_a_differ_with_its_cause(bug, kind, text):
    result = pair_scripts(TF1_DEEP, TF2_DEEP, PairOptions(steps=2, args=("--bug", bug)))
    assert result.status == DIFFER, "\n".join(result.lines())
    assert all(c.ok for c in result.checks)  # TF1's values and batches went in: the models agree
    assert "DIFFER: every step agrees within the noise, but the scripts are not the same:" in result.lines()
    assert _kinds(result)[kind].startswith(text)
    assert [f.decisive for f in result.findings] == [True] * len(result.findings)


def test_a_keras_fit_on_a_tf_data_pipeline_is_compared_at_its_own_batch_size():
    result = pair_scripts(TF1_DEEP, TF2_DEEP_FIT, PairOptions(steps=2, args=("--bug", "batch64", "--std", "0.1")))
    assert result.status == DIFFER, "\n".join(result.lines())
    assert _kinds(result)["inputs"].startswith("inputs: batch size: 100 in TF1, 64 in TF2")
    assert "fit was given a dataset; it was replaced by arrays of TF1's batches" in result.notes
    assert "TF2's batch of 64 replaced by TF1's batch of 100" in result.notes


def test_float_class_ids_are_replaced_with_the_features_and_a_batch_size_dependent_step_blames_tfcompare():
    floats = pair_scripts(PAIRS / "tf1_binary.py", PAIRS / "tf2_binary.py", PairOptions(steps=2))
    assert floats.status == AGREE, "\n".join(floats.lines())
    assert floats.case["inputs"] == [
        {"feed": "Placeholder", "convert": "same", "shape": [2], "dtype": "float32", "leaf": 0},
        {"feed": "Placeholder_1", "convert": "same", "shape": [], "dtype": "float32", "leaf": 1}]
    sized = pair_scripts(PAIRS / "tf1_binary.py", PAIRS / "tf2_binary.py",
                         PairOptions(steps=2, args=("--case", "global-batch")))
    assert sized.status == FAILED and sized.failed_side == "tf2"
    assert sized.error.startswith("tfcompare's substitution broke the TF2 step, not the script: given TF1's batch "
                                  "(shapes [(32, 2), (32,)]) it fails with InvalidArgumentError")
    assert sized.error.endswith("run again with its own batch (shapes [(64, 2), (64,)]) it works: the step depends "
                                "on its own batch size (64 in TF2, 32 in TF1), so give both scripts the same batch "
                                "size to compare them")
    assert sized.traceback == ""


def test_dropout_is_named_by_the_rate_each_side_ran_it_at():
    off = pair_scripts(PAIRS / "tf1_cnn.py", PAIRS / "tf2_cnn.py", PairOptions(steps=1))
    assert off.status == AGREE, "\n".join(off.lines())  # keep_prob 1.0 fed, Dropout(0.0): no finding
    assert off.findings == []
    one_side = pair_scripts(PAIRS / "tf1_cnn.py", PAIRS / "tf2_cnn.py", PairOptions(steps=1, args=("--rate", "0.25")))
    assert one_side.status == DIFFER
    assert _kinds(one_side)["dropout"] == (
        "dropout: off in TF1 (rate 0 (keep_prob 1) fed, line 43), live in TF2 (keras Dropout(rate=0.25) called with "
        "training=True): one side drops units and the other does not")


def test_an_emitted_case_with_a_hand_written_optimizer_runs_in_every_mode(tmp_path, monkeypatch):
    """tf2_deep_raw.py's RMSProp keeps its mean-square slots in a module-level list: the case restores them too."""
    monkeypatch.chdir(tmp_path)
    ran = CliRunner().invoke(cli, ["pair", os.path.relpath(TF1_DEEP), os.path.relpath(TF2_DEEP), "--steps", "2",
                                   "--emit-case", "rms_case.py", "--json", "--", "--optimizer", "rmsprop", "--std",
                                   "0.1"])
    assert ran.exit_code == 0, ran.output
    found = json.loads(ran.stdout)
    assert found["tensorboard"] and "cases file written: rms_case.py (tfcompare run --cases-file rms_case.py)" in \
        found["notes"]
    timed = CliRunner().invoke(cli, ["run", "--cases-file", "rms_case.py", "--quick", "--json"])
    assert timed.exit_code == 0, timed.output
    rows = {r["mode"]: r for r in json.loads(timed.stdout)["results"]}
    assert set(rows) == {"tf1-graph", "tf2-eager", "tf2-function", "tf2-xla"}
    assert all(r["status"] == "ok" and r["max_abs_err"] < 1e-5 for r in rows.values()), rows


def test_a_public_style_mlp_at_loss_1e4_with_adam_lr_01_agrees_with_its_rewrite_through_the_settings_replays():
    """Keras's Adam rounds 1 - beta_2 from float64, TF1's ApplyAdam in float32: a systematic gap that reordering
    alone does not reproduce; the floor's settings replays (each optimizer scalar moved by one ulp) cover it."""
    result = pair_scripts(PAIRS / "tf1_mlp_public.py", PAIRS / "tf2_mlp_public.py", PairOptions())
    assert result.status == AGREE, "\n".join(result.lines())
    assert "the optimizer's scalar settings moved by one float32 ulp (twice)" in result.noise_floor
    assert max(c.loss_tf1 for c in result.checks) > 1e4
