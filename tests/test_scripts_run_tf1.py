"""`tfcompare run-tf1` on TF1 scripts written in the style of public TF1 examples (tests/data/legacy_scripts),
each run unchanged in pair's TF1 child with the legacy runtime; and `pair` of a tf.contrib script against a
Keras 3 rewrite."""

import concurrent.futures
import json
import math
from pathlib import Path

import pytest
import tensorflow as tf
from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.scripts.pair import AGREE, PairOptions, pair_scripts
from tfcompare.scripts.run_tf1 import FAILED, RAN, TRAINED, run_tf1

DATA = Path(__file__).resolve().parent / "data"
SCRIPTS = DATA / "legacy_scripts"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The scripts run at once (each in its own child; they mostly wait for TensorFlow's import)."""
    folder = tmp_path_factory.mktemp("run-tf1")
    sleeper = folder / "sleeps.py"
    sleeper.write_text("import time\nimport tensorflow as tf\ntime.sleep(600)\n")
    jobs = {"estimator": (SCRIPTS / "estimator_cnn.py", 20, ()),
            "tfe": (SCRIPTS / "tfe_eager.py", 3, ()),
            "summaries": (SCRIPTS / "summaries.py", 20, (str(folder / "summaries"),)),
            "refused": (SCRIPTS / "refused_kmeans.py", 3, ()),
            "sleeps": (sleeper, 3, ())}
    timeouts = {"sleeps": 10}
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
        futures = {k: pool.submit(run_tf1, script, steps, timeouts.get(k, 240), args)
                   for k, (script, steps, args) in jobs.items()}
        return {k: f.result() for k, f in futures.items()}, folder


def test_an_estimator_cnn_with_numpy_input_fn_trains_evaluates_and_predicts(runs):
    result = runs[0]["estimator"]
    assert result.status == TRAINED, result.lines()
    assert len(result.losses) == 5 and all(math.isfinite(x) and 1.5 < x < 3.5 for x in result.losses)
    assert "after 5 steps" in result.output and "Predictions: [" in result.output
    assert result.optimizer["kind"] == "sgd" and result.optimizer["settings"]["learning_rate"] == pytest.approx(0.01)


def test_a_tfe_eager_script_runs_to_its_end_and_says_no_session_step_was_seen(runs):
    result = runs[0]["tfe"]
    assert result.status == RAN and result.losses == [], result.lines()
    assert "batches=2" in result.output
    assert "RAN to its end without a training step" in "\n".join(result.lines())


def test_tf1_summaries_keep_their_v1_meaning_and_are_written_by_the_script(runs):
    result, folder = runs[0]["summaries"], runs[1]
    assert result.status == TRAINED and len(result.losses) == 10, result.lines()
    events = [e for f in (folder / "summaries").iterdir() for e in tf.compat.v1.train.summary_iterator(str(f))]
    # TF1's tags are name scopes, unique regardless of case: the script's "Loss" scope and "W" variable come first
    scalars = [(e.step, v.simple_value) for e in events for v in e.summary.value if v.tag == "loss_1"]
    histograms = [e.step for e in events for v in e.summary.value if v.tag == "W_1" and v.HasField("histo")]
    assert [s for s, _ in scalars] == list(range(10)) and histograms == list(range(10))
    assert scalars[0][1] == pytest.approx(result.losses[0], rel=1e-6)  # the loss before the first update
    assert any(e.graph_def for e in events)


def test_a_contrib_module_not_provided_fails_with_its_replacement_and_the_migrate_line(runs):
    result = runs[0]["refused"]
    assert result.status == FAILED
    assert result.error.startswith("ModuleNotFoundError: tf.contrib.factorization is not provided")
    assert "keras / scikit-learn for KMeans" in result.error
    assert f"`tfcompare migrate {SCRIPTS / 'refused_kmeans.py'}`" in result.error
    assert "refused_kmeans.py\", line 3" in result.traceback


def test_a_script_over_its_time_limit_is_stopped_and_failed(runs):
    result = runs[0]["sleeps"]
    assert result.status == FAILED and result.wall_s < 60
    if result.traceback.startswith("Traceback"):  # the script was already running: where it was is shown
        assert result.error == "the script reached no end within 10 s and was stopped, after 0 training step(s)"
        assert 'sleeps.py", line 3' in result.traceback
    else:  # a busy machine: still importing TensorFlow at the limit
        assert result.error == "the script reached no end within 10 s and was stopped"


def test_the_cli_runs_a_contrib_rnn_mnist_script_from_another_folder_and_writes_its_losses(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "rnn.py").write_text((SCRIPTS / "contrib_rnn_mnist.py").read_text())
    out = CliRunner().invoke(cli, ["run-tf1", "models/rnn.py", "--steps", "3", "--run-name", "r"])
    assert out.exit_code == 0, out.output
    printed = [float(line.split("loss ")[1]) for line in out.output.splitlines() if line.startswith("  step ")]
    assert len(printed) == 3 and "TRAINED: 3 training step(s) observed, then the script was stopped" in out.output
    assert "tf.contrib.rnn came from tfcompare's legacy runtime" in out.output
    events = [e for f in (tmp_path / "logs" / "r").glob("events.out.tfevents*") for e in tf.compat.v1.train.summary_iterator(str(f))]
    written = [(e.step, float(tf.make_ndarray(v.tensor))) for e in events for v in e.summary.value
               if v.tag == "run-tf1/loss"]
    assert written == [(i + 1, pytest.approx(x, rel=1e-6)) for i, x in enumerate(printed)]


@pytest.mark.parametrize("args, message", [
    (["missing.py"], "'missing.py' does not exist"),
    (["{script}", "--steps", "0"], "0 is not in the range 1<=x<=20"),
    (["{script}", "--steps", "21"], "21 is not in the range 1<=x<=20"),
    (["{script}", "--timeout", "nan"], "nan is not a number of seconds"),
    (["{script}", "--run-name", "a/b"], "'a/b' must be a plain folder name"),
])
def test_bad_input_is_a_usage_error_naming_the_value(args, message):
    args = [a.format(script=SCRIPTS / "tfe_eager.py") for a in args]
    out = CliRunner().invoke(cli, ["run-tf1", *args])
    assert out.exit_code == 2 and message in out.output and "Traceback" not in out.output, out.output


def test_pair_of_a_contrib_layers_script_and_its_keras_3_rewrite_agrees():
    result = pair_scripts(SCRIPTS / "contrib_layers_mlp.py", DATA / "pairs" / "tf2_mlp_keras.py", PairOptions(steps=3))
    assert result.status == AGREE, result.lines()
    assert [p["tf1"] for p in result.pairing][:2] == ["fully_connected/weights", "fully_connected/biases"]
    assert any("tf.contrib.layers came from tfcompare's legacy runtime" in n for n in result.notes)


def test_migrate_says_which_removed_apis_still_run_under_run_tf1_and_pair():
    from tfcompare.tools.migrate import migrate

    report = migrate([SCRIPTS / "contrib_rnn_mnist.py", SCRIPTS / "refused_kmeans.py"], upgrade=False)
    notes = {(Path(r.path).name, f.symbol): f.note for r in report.files for f in r.findings if f.klass == "removed"}
    assert "`tfcompare run-tf1 FILE`" in notes[("contrib_rnn_mnist.py", "from tensorflow.contrib import rnn")]
    assert "run-tf1" not in notes[("refused_kmeans.py", "from tensorflow.contrib.factorization import KMeans")]


def test_an_emitted_case_loads_a_contrib_script_in_process_and_leaves_tensorflow_as_it_was():
    import importlib

    from tfcompare.scripts.pair.scripted import _tf1_parts

    with tf.Graph().as_default():
        found = _tf1_parts(str(SCRIPTS / "contrib_layers_mlp.py"), ())
        assert [v.op.name for _, v in found["grads_and_vars"]][:2] == ["fully_connected/weights",
                                                                       "fully_connected/biases"]
    assert not hasattr(importlib.import_module("tensorflow.compat.v1"), "contrib")


def test_a_nan_loss_is_written_as_valid_json():
    from tfcompare.scripts.run_tf1 import RunTF1Result

    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")
    doc = json.loads(RunTF1Result("s.py", 2, losses=[1.5, float("nan")]).json_text(), parse_constant=refuse)
    assert doc["losses"] == [1.5, "nan"]
