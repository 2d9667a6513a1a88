"""`pair --dropout off` and `convert`'s proof of a script whose training step has a live dropout, with real
children: tests/data/convert/cnn_dropout.py feeds keep_prob 0.75 (`--dropout KEEP_PROB`), and its `convert`
rewrite keeps `tf.nn.dropout`. Live on both sides the masks differ (not compared, naming dropout); off, the pair agrees
with the replaced calls counted, TF1's noise floor is measured, and a planted bug is still a DIFFER."""

import json
import os
from pathlib import Path

import pytest
import tensorflow as tf
from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.scripts.pair import AGREE, DIFFER, DROPOUT_MODES, FAILED, PairOptions, pair_scripts
from tfcompare.scripts.convert import WRITTEN_AGREES, ConvertOptions, convert_script

DATA = Path(__file__).parent / "data"
CNN = DATA / "convert" / "cnn_dropout.py"
OFF_TEXT = ("off on both sides (tfcompare replaced 1 dropout call(s) in the TF1 script and 1 in the TF2 script by the "
            "identity, --dropout off): the masks are the one thing not compared")


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """cnn_dropout.py (keep_prob 0.75 fed) converted; convert runs its own pair, with dropout off."""
    out = tmp_path_factory.mktemp("dropout") / "cnn_tf2.py"
    return out, convert_script(CNN, out, ConvertOptions(steps=2, levers=()))


def test_convert_proves_a_live_dropout_with_dropout_off_and_keeps_it_in_the_script(converted):
    out, result = converted
    assert result.status == WRITTEN_AGREES, "\n".join(result.lines())
    assert result.proof == (f"pair runs with dropout off on both sides (--dropout off), because the TF1 training step "
                            f"has a live dropout (rate 0.25 (keep_prob 0.75) fed, line 53): two processes draw "
                            f"different masks, so live dropout cannot agree step by step; {out} keeps its dropout")
    assert f"proof: {result.proof}" in result.lines()
    # the written script keeps its dropout (keep_prob a switch: the `training` argument, dropout when training)
    assert "tf.cond(training, lambda: tf.nn.dropout(fc1, rate=1 - args.dropout), lambda: fc1)" in out.read_text()
    pair = result.pair
    assert pair.status == AGREE and pair.dropout == OFF_TEXT
    assert f"dropout: {OFF_TEXT}" in pair.lines()
    # the step no longer draws random numbers: TF1's floor is measured, not "cannot be measured"
    assert pair.noise_floor.startswith("TF1's 2 steps replayed from the same initial weights")
    assert all(c.weights_floor is not None for c in pair.checks)
    assert [f for f in pair.findings if f.kind in ("dropout", "randomness")] == []


def test_as_written_the_same_pair_is_not_compared_naming_dropout(converted):
    """Live dropout on both sides: the steps differ by the masks each process draws, not by the scripts, so that
    is no DIFFER (exit 1 would say the rewrite is wrong): not compared, exit 3, naming why and the way out."""
    out, _ = converted
    result = pair_scripts(CNN, out, PairOptions(steps=2))
    assert result.status == FAILED, "\n".join(result.lines())
    assert result.error.startswith("the steps cannot be compared number for number: TF1's loss of the same batch")
    assert result.error.endswith("With dropout: tfcompare pair --dropout off")
    assert result.dropout == ""
    randomness = [f.text for f in result.findings if f.kind == "randomness"]
    assert len(randomness) == 1 and randomness[0].startswith(
        "dropout: live in TF1 (rate 0.25 (keep_prob 0.75) fed, line 53), live in TF2 (tf.nn.dropout(rate=0.25)): each "
        "side draws its masks from its own generator"), randomness


def test_dropout_off_does_not_hide_a_planted_learning_rate_in_text_json_and_tensorboard(converted, tmp_path,
                                                                                         monkeypatch):
    out, _ = converted
    text = out.read_text()
    planted = tmp_path / "cnn_tf2_lr.py"
    assert text.count("learning_rate=learning_rate") == 1  # the script's own constant, on the optimizer only
    planted.write_text(text.replace("learning_rate=learning_rate", "learning_rate=2 * learning_rate"))
    monkeypatch.chdir(tmp_path)
    ran = CliRunner().invoke(cli, ["pair", os.path.relpath(CNN), planted.name, "--steps", "2", "--dropout", "off",
                                   "--json"])
    assert ran.exit_code == 1, ran.output
    found = json.loads(ran.stdout)
    assert found["status"] == "differ" and found["dropout"] == OFF_TEXT
    assert [f["kind"] for f in found["findings"]][:2] == ["where", "learning_rate"], found["findings"]
    assert found["findings"][1]["text"].startswith("learning_rate: 0.001 in TF1, 0.002 in TF2 (both adam)")
    board = Path(found["tensorboard"])
    texts = [tf.make_ndarray(v.tensor).item().decode()
             for path in board.glob("events.out.tfevents.*") for e in tf.compat.v1.train.summary_iterator(str(path))
             for v in e.summary.value if v.tag.startswith("pair/report")]
    assert len(texts) == 1 and f"dropout: {OFF_TEXT}" in texts[0]


def test_dropout_off_on_scripts_without_dropout_says_so_and_changes_nothing_else():
    result = pair_scripts(DATA / "pairs" / "tf1_logreg.py", DATA / "pairs" / "tf2_logreg.py",
                          PairOptions(steps=1, dropout="off"))
    assert result.status == AGREE, "\n".join(result.lines())
    assert result.dropout == ("off (--dropout off): neither script calls a dropout tfcompare replaces (0 in the TF1 "
                              "script, 0 in the TF2 script): nothing was changed")


def test_a_bad_dropout_value_is_a_usage_error_naming_the_choices(tmp_path):
    script = tmp_path / "a.py"
    script.write_text("")
    ran = CliRunner().invoke(cli, ["pair", str(script), str(script), "--dropout", "none"])
    assert ran.exit_code == 2
    assert "'none' is not one of 'as-written', 'off'" in ran.output and "Traceback" not in ran.output
    assert DROPOUT_MODES == ("as-written", "off")  # the CLI's choices are the library's modes
    with pytest.raises(ValueError, match="dropout must be one of as-written, off, got 'none'"):
        PairOptions(dropout="none")
