"""`tfcompare pair`: real TF1 and TF2 scripts, each run unchanged in its own process, compared step by step."""

import json
import re
import os
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.report.server import TensorBoard
from tfcompare.scripts.pair import AGREE, DIFFER, FAILED, PairOptions, pair_scripts

PAIRS = Path(__file__).parent / "data" / "pairs"
TF1_LOGREG, TF2_LOGREG = PAIRS / "tf1_logreg.py", PAIRS / "tf2_logreg.py"
TF1_MLP, TF2_KERAS, TF2_RAW = PAIRS / "tf1_mlp.py", PAIRS / "tf2_mlp_keras.py", PAIRS / "tf2_mlp_raw.py"


def _children(script: Path) -> list[str]:
    """Processes still running the pair's child on `script`."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = (Path("/proc") / pid / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if "tfcompare.scripts.child.main" in cmd and str(script) in cmd:
                found.append(cmd)
    return found


def _own(tmp_path: Path, script: Path) -> Path:
    """A copy of a shared script at a path of this test's own: `_children` finds its processes, not those of the
    same script paired by a test on another pytest-xdist worker."""
    mine = tmp_path / script.name
    mine.write_bytes(script.read_bytes())
    return mine


def _kinds(result) -> dict[str, str]:
    return {f.kind: f.text for f in result.findings}


@pytest.fixture(scope="module")
def keras_variants():
    """The Keras fit rewrite of the MLP, as written and in its two deliberately different variants."""
    return {v: pair_scripts(TF1_MLP, TF2_KERAS, PairOptions(steps=3, args=("--variant", v)))
            for v in ("faithful", "sgd-sigmoid", "lr-sum-init", "epsilon", "rmsprop")}


def test_a_raw_variable_rewrite_with_a_tf_function_step_agrees_exactly():
    result = pair_scripts(TF1_LOGREG, TF2_LOGREG, PairOptions(steps=3))
    assert result.status == AGREE, "\n".join(result.lines())
    assert [c.step for c in result.checks] == [1, 2, 3]
    for c in result.checks:  # same ops on the same values: bit-exact
        assert c.loss_tf1 == c.loss_tf2 and c.gradients_max_abs_err == 0 and c.weights_max_abs_err == 0
    assert [(p["tf1"], p["shape"]) for p in result.pairing] == [("Variable", [784, 10]), ("Variable_1", [10])]
    assert result.sides["tf1"]["reduction"] == result.sides["tf2"]["reduction"] == "mean"
    assert result.sides["tf2"]["step_function"] == "train_step() (line 14)"
    assert any("one-hot (10,) per example in TF1, integer class ids in TF2" in n for n in result.notes)
    assert any("ran eagerly" in n for n in result.notes)
    assert result.findings == []


def test_a_keras_fit_rewrite_agrees_within_float32_tolerance(keras_variants):
    result = keras_variants["faithful"]
    assert result.status == AGREE, "\n".join(result.lines())
    assert len(result.checks) == 3
    assert all(c.gradients_max_abs_err < 1e-6 and c.weights_max_abs_err < 1e-6 for c in result.checks)
    assert all(abs(c.loss_tf1 - c.loss_tf2) <= 1e-5 + 1e-4 * abs(c.loss_tf1) for c in result.checks)
    pairs = {p["tf1"]: p["tf2"] for p in result.pairing}
    assert pairs["h2/w"] == "sequential/dense_1/kernel" and pairs["h3/b"] == "sequential/dense_2/bias"
    assert result.sides["tf2"]["step_function"] == "keras.Model.fit"
    assert result.findings == []
    # Adam's moments of every paired variable, compared after every step (test_scripts_pair_slots.py)
    assert result.slots == [{"slot": "m", "variables": 8}, {"slot": "v", "variables": 8}]


def test_an_emitted_keras_fit_case_runs_both_scripts_as_a_case(keras_variants, tmp_path):
    from tfcompare.scripts.pair.emit import emit

    out = tmp_path / "fit_case.py"
    emit(out, keras_variants["faithful"])
    with pytest.raises(FileExistsError):  # never over an existing file
        emit(out, keras_variants["faithful"])
    ran = CliRunner().invoke(cli, ["run", "--cases-file", str(out), "--mode", "tf1-graph", "--mode", "tf2-eager",
                                   "--quick", "--json", "--logdir", str(tmp_path / "logs")])
    assert ran.exit_code == 0, ran.output
    rows = {r["mode"]: r for r in json.loads(ran.stdout)["results"]}
    assert rows["tf2-eager"]["status"] == "ok" and rows["tf2-eager"]["max_abs_err"] < 1e-5


def test_an_optimizer_and_an_extra_op_are_named(keras_variants):
    result = keras_variants["sgd-sigmoid"]
    assert result.status == DIFFER
    kinds = _kinds(result)
    assert "AdamOptimizer(learning_rate=0.001" in kinds["optimizer"]
    assert "SGD(learning_rate=0.001)" in kinds["optimizer"]
    assert "TF1 Adam/RMSprop-like (update = -0.001 x sign" in kinds["optimizer"]
    assert "TF2 SGD-like (update = -0.001 x gradient)" in kinds["optimizer"]
    assert kinds["extra_op"] == "forward ops: Sigmoid x0 in TF1, x1 in TF2 (1 more in TF2)"
    assert re.match(r"the difference starts at step 1: its loss differs \(\d\.\d+ in TF1, \d\.\d+ in TF2\)",
                    kinds["where"]), kinds["where"]
    assert "reduction" not in kinds and "initialisation" not in kinds


def test_a_learning_rate_a_summed_loss_and_an_initialisation_are_named(keras_variants):
    result = keras_variants["lr-sum-init"]
    assert result.status == DIFFER
    kinds = _kinds(result)
    assert "optimizer" not in kinds and "extra_op" not in kinds
    assert kinds["learning_rate"].startswith("learning_rate: 0.001 in TF1, 0.01 in TF2 (both adam)")
    assert "TF2 Adam/RMSprop-like (update = -0.01 x sign" in kinds["learning_rate"]
    assert kinds["reduction"].startswith("loss reduction over the batch: mean in TF1, sum in TF2 (the same batch fed "
                                         "twice: loss x1 in TF1, x2 in TF2)")
    assert kinds["initialisation"].startswith("initialisation of h1/w (784, 32): TF1 normal(mean=0, stddev=0.1), "
                                              "TF2 (sequential/dense/kernel, line 30) RandomNormal(mean=0, stddev=1): "
                                              "TF2's 25088 values cannot come from TF1's scheme (Kolmogorov-Smirnov D")
    assert "TF1 mean 0.000563 std 0.1, TF2 mean" in kinds["initialisation"]
    # the summed loss is 64x the mean at step 1, from the same weights (TF1's, injected)
    first = result.checks[0]
    assert first.loss_tf2 == pytest.approx(64 * first.loss_tf1, rel=1e-4)


@pytest.mark.legacy
def test_a_tf1_layers_script_pairs_with_the_legacy_extra_and_without_it():
    import importlib.util

    result = pair_scripts(PAIRS / "tf1_layers.py", TF2_KERAS, PairOptions(steps=2))
    assert result.status == AGREE, "\n".join(result.lines())
    assert [p["tf1"] for p in result.pairing][:3] == ["dense/kernel", "dense/bias", "dense_1/kernel"]
    if importlib.util.find_spec("tf_keras") is None:  # tf.layers is the legacy runtime's, and the pair says so
        assert any(n.startswith("tf.layers came from tfcompare's legacy runtime") for n in result.notes)


def test_kerass_default_epsilon_is_named_and_replayed(keras_variants):
    result = keras_variants["epsilon"]
    assert result.status == DIFFER
    kinds = _kinds(result)
    first = result.checks[0]
    assert first.loss_ok and first.gradients_ok and not first.weights_ok
    assert kinds["setting"].startswith("epsilon: 1e-08 in TF1, 1e-07 in TF2 (both adam)")
    assert "epsilon (1e-08 in TF1, 1e-07 in TF2) accounts for it: with TF1's value the difference is" in kinds["replay"]
    assert "learning_rate" not in kinds and "optimizer" not in kinds
    assert "slots" not in kinds  # the moments after step 2 differ as the weights after step 1 left them: no cause


def test_a_formula_difference_is_named_when_every_setting_matches(keras_variants):
    result = keras_variants["rmsprop"]
    assert result.status == DIFFER
    kinds = _kinds(result)
    assert kinds["where"].startswith("the difference starts at step 1: its loss and gradients agree, the weights "
                                     "after it do not")
    assert kinds["setting"].startswith("rmsprop: every setting matches, but the formulas differ: TF1's mean-square "
                                       "slot starts at 1.0, Keras's at 0")
    # TF1's slot starts at 1: a gradient step of lr/sqrt(0.9 + 0.1 g^2) ~ 1.05 lr; Keras's at 0: lr/sqrt(0.1) x sign
    assert "TF1 SGD-like (update = -0.00105 x gradient)" in kinds["setting"]
    assert "TF2 Adam/RMSprop-like (update = -0.00316 x sign of the gradient)" in kinds["setting"]
    assert "optimizer" not in kinds and "learning_rate" not in kinds
    # TF1's gradients replayed through both optimizers: no setting closes the gap
    assert "with every setting matched the weights are still" in kinds["replay"]
    assert kinds["replay"].endswith("TF1's mean-square slot starts at 1.0, Keras's at 0")
    # the slot itself, compared: TF1's 0.9 x 1 + 0.1 g^2 against Keras's 0.1 g^2
    assert kinds["slots"].startswith("optimizer slot rms (mean square) of h1/w (TF1) vs mlp/dense_4/kernel (TF2) "
                                     "after step 1: rel err 1 (floor ")
    assert kinds["slots"].endswith("; TF1's starts at 1 before the first step")
    assert "TF1's optimizer slots with no counterpart, not compared: momentum" in result.notes
    # a subclassed model made its weights inside fit, after an unused Sequential made its own: the trained ones
    # are paired (by their Keras paths) and got TF1's initial values, as the agreeing gradients show
    assert [p["tf2"] for p in result.pairing][:2] == ["mlp/dense_4/kernel", "mlp/dense_4/bias"]
    assert all(c.gradients_max_abs_err < 1e-6 for c in result.checks[:1])


def test_an_ambiguous_pairing_is_refused_with_both_lists(tmp_path):
    tf2_raw = _own(tmp_path, TF2_RAW)
    result = pair_scripts(TF1_MLP, tf2_raw, PairOptions(steps=2, args=("swap",)))
    assert result.status == FAILED and result.failed_side == "tf2"
    assert "cannot pair the variables without guessing: 2 variables of shape (32, 32)" in result.error
    assert "  TF1 #2 h2/w (32, 32) (line 17), used #2" in result.error
    assert "  TF2 #2 Variable (32, 32) (line 19), used #4" in result.error
    assert "  TF2 #4 Variable (32, 32) (line 20), used #2" in result.error
    assert result.findings == []  # nothing else differs
    assert _children(tf2_raw) == []


def test_a_different_model_is_refused_and_what_else_differs_is_still_named():
    result = pair_scripts(TF1_MLP, TF2_RAW, PairOptions(steps=2, args=("wider",)))
    assert result.status == FAILED and result.failed_side == "tf2"
    assert result.error.startswith("cannot pair the variables without guessing: no variable of the same shape on the "
                                   "other side for: TF1 h1/w (784, 32)")
    assert "  TF2 #0 Variable (784, 48) (line 17), used #0" in result.error
    assert [f.kind for f in result.findings] == ["reduction"]
    assert result.findings[0].text.startswith("loss reduction over the batch: mean in TF1, sum in TF2")
    assert "what differs besides (each side's first step on its own):" in result.lines()


def test_a_script_that_crashes_before_training_shows_its_traceback_and_leaves_no_process(tmp_path):
    script = tmp_path / "reads_files.py"
    script.write_text("import numpy as np\nimport tensorflow.compat.v1 as tf\n\n"
                      "images = np.load('data/train_images.npy')\n")
    tf2 = _own(tmp_path, TF2_LOGREG)
    result = CliRunner().invoke(cli, ["pair", str(script), str(tf2), "--logdir", str(tmp_path / "logs")])
    assert result.exit_code == 3, result.output
    assert ("could not compare: the TF1 script failed before its first training step: FileNotFoundError:"
            in result.output)
    assert "tfcompare replaces only known loaders" in result.output
    assert f'File "{script}", line 4, in <module>' in result.output
    assert "Traceback" in result.output and "tfcompare/tools" not in result.output
    assert _children(script) == [] and _children(tf2) == []
    assert not (tmp_path / "logs").exists()  # nothing to show: no run folder


def test_scripts_given_in_the_wrong_order_are_named():
    swapped = pair_scripts(TF2_LOGREG, TF1_LOGREG, PairOptions(steps=1))
    assert swapped.status == FAILED and swapped.failed_side == "tf1"
    assert swapped.error.endswith("this script uses tf.GradientTape and no Session: is it the TF2 script? tfcompare "
                                  "pair takes the TF1 script first, then the TF2 one")
    both_tf1 = pair_scripts(TF1_LOGREG, TF1_LOGREG, PairOptions(steps=1))
    assert both_tf1.status == FAILED and both_tf1.failed_side == "tf2"
    assert "the TF2 script switches TF2 behaviour off (disable_v2_behavior / disable_eager_execution): it is a TF1 " \
           "script" in both_tf1.error


def test_a_script_that_never_trains_is_stopped_at_its_time_limit(tmp_path):
    script = tmp_path / "waits.py"
    script.write_text("import time\nwhile True:\n    time.sleep(0.1)\n")
    started = time.monotonic()
    tf2 = _own(tmp_path, TF2_LOGREG)
    result = pair_scripts(script, tf2, PairOptions(timeout_s=6))
    assert time.monotonic() - started < 15
    assert result.status == FAILED and result.failed_side == "tf1"
    assert result.error == "the TF1 script reached no training step within 6 s (no optimizer step was run)"
    assert _children(script) == [] and _children(tf2) == []


def test_a_tf2_script_without_a_gradient_step_is_named(tmp_path):
    script = tmp_path / "predicts.py"
    script.write_text("import tensorflow as tf\nw = tf.Variable(tf.zeros([784, 10]))\nprint(tf.reduce_sum(w))\n")
    result = pair_scripts(TF1_LOGREG, script, PairOptions(steps=1))
    assert result.status == FAILED and result.failed_side == "tf2"
    assert result.error == ("the TF2 script ran to its end without a training step: no GradientTape.gradient with "
                            "respect to its variables")


def test_the_cli_from_another_folder_writes_losses_tensorboard_reads_and_a_case_run_times(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tf1, tf2 = os.path.relpath(TF1_MLP), os.path.relpath(TF2_RAW)
    result = CliRunner().invoke(cli, ["pair", tf1, tf2, "--steps", "2", "--json", "--run-name", "p",
                                      "--emit-case", "mlp_case.py"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["status"] == "agree" and len(found["checks"]) == 2
    assert found["sides"]["tf2"]["step_function"] == "train_step() (line 39)"
    assert "cases file written: mlp_case.py (tfcompare run --cases-file mlp_case.py)" in found["notes"]
    text = (tmp_path / "mlp_case.py").read_text()
    assert f"_HERE / {Path(tf1).as_posix()!r}" in text and "StepInput(1, 'y', 'argmax', (), 'int64')" in text
    # the emitted case joins `tfcompare run`: both scripts loaded in-process, compared and timed
    ran = CliRunner().invoke(cli, ["run", "--cases-file", "mlp_case.py", "--mode", "tf1-graph", "--mode",
                                   "tf2-function", "--quick", "--json", "--run-name", "timed"])
    assert ran.exit_code == 0, ran.output
    rows = {r["mode"]: r for r in json.loads(ran.stdout)["results"]}
    assert rows["tf2-function"]["status"] == "ok" and rows["tf2-function"]["max_abs_err"] < 1e-5
    assert rows["tf1-graph"]["case"] == "pair-tf2_mlp_raw"
    with TensorBoard(tmp_path / "logs" / "p", reload_interval=1) as board:
        deadline, series = time.monotonic() + 60, {}
        while time.monotonic() < deadline and len(series) < 2:
            for run in ("tf1", "tf2"):
                try:
                    with urllib.request.urlopen(f"{board.url}/data/plugin/scalars/scalars?run={run}&tag=pair/loss",
                                                timeout=30) as resp:
                        series[run] = json.loads(resp.read())
                except OSError:
                    time.sleep(0.5)
    for run in ("tf1", "tf2"):
        assert [s[1] for s in series[run]] == [1, 2]
        assert [s[2] for s in series[run]] == pytest.approx([c[f"loss_{run}"] for c in found["checks"]], rel=1e-6)


@pytest.mark.parametrize("args,message", [
    (["missing.py", "{tf2}"], "'missing.py' does not exist"),
    (["{tf1}", "{tf2}", "--steps", "0"], "0 is not in the range 1<=x<=20"),
    (["{tf1}", "{tf2}", "--steps", "21"], "21 is not in the range 1<=x<=20"),
    (["{tf1}", "{tf2}", "--timeout", "0"], "0 is not in the range 1<=x<=3600"),
    (["{tf1}", "{tf2}", "--timeout", "nan"], "nan is not a number of seconds"),
    (["{tf1}", "{tf2}", "--emit-case", "{tf2}"], "exists; tfcompare does not overwrite it"),
    (["{tf1}", "{tf2}", "--emit-case", "case.txt"], "must be a .py file"),
    (["{tf1}", "{tf2}", "--emit-case", "nowhere/case.py"], "does not exist"),
    (["{tf1}", "{tf2}", "--run-name", "a/b"], "must be a plain folder name"),
    (["{tf1}"], "Missing argument 'TF2_SCRIPT'"),
    (["{dir}", "{tf2}"], "is a directory"),
])
def test_bad_input_is_a_usage_error_naming_the_value(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    names = {"tf1": str(TF1_LOGREG), "tf2": str(TF2_LOGREG), "dir": str(PAIRS)}
    result = CliRunner().invoke(cli, ["pair", *[a.format(**names) for a in args]])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "logs").exists()


def test_the_comparing_process_never_imports_tensorflow_on_an_agreeing_pair(tmp_path):
    """Only the two scripts import TensorFlow: the command compares their records with NumPy and writes the
    TensorBoard run with TensorBoard's own writer (TensorFlow's import is ~8 s of CPU the scripts would share)."""
    import subprocess
    import sys

    code = ("import json, sys\nfrom tfcompare.cli import cli\ntry:\n    cli(sys.argv[1:])\nexcept SystemExit as e:\n"
            "    print(json.dumps({'exit': e.code, 'tensorflow': 'tensorflow' in sys.modules}))")
    out = subprocess.run([sys.executable, "-c", code, "pair", os.path.relpath(TF1_LOGREG, tmp_path),
                          os.path.relpath(TF2_LOGREG, tmp_path), "--json", "--run-name", "p"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert found == {"exit": 0, "tensorflow": False}, out.stderr[-3000:]
    result = json.loads("\n".join(out.stdout.strip().splitlines()[:-1]))
    assert result["timing"]["timed"] and result["tensorboard"] == str(tmp_path / "logs" / "p")
    # what it wrote is what TensorBoard reads: the speed-up's three ends and the report, through the data API
    with TensorBoard(tmp_path / "logs" / "p", reload_interval=1) as board:
        deadline, scalars, text = time.monotonic() + 60, {}, None
        while time.monotonic() < deadline and (len(scalars) < 3 or text is None):
            try:
                for end in ("estimate", "low", "high"):
                    scalars[end] = _get_json(board.url, "/data/plugin/scalars/scalars", run=".",
                                             tag=f"pair/speedup_{end}")
                text = _get_json(board.url, "/data/plugin/text/text", run=".", tag="pair/report")
            except OSError:
                time.sleep(0.5)
    for end in ("estimate", "low", "high"):
        assert [s[1] for s in scalars[end]] == [0]
        assert scalars[end][0][2] == pytest.approx(result["timing"]["speedup"][end], rel=1e-6)
    assert "AGREE" in text[0]["text"] and "TF2 step" in text[0]["text"]


def _get_json(url, path, **params):
    with urllib.request.urlopen(f"{url}{path}?{urllib.parse.urlencode(params)}", timeout=30) as resp:
        return json.loads(resp.read())


def test_ctrl_c_stops_both_scripts_and_exits_130(tmp_path):
    """A real `tfcompare pair` process interrupted while its scripts run: exit 130, no script left running."""
    import signal
    import subprocess
    import sys

    script = tmp_path / "waits_forever.py"
    script.write_text("import time\nwhile True:\n    time.sleep(0.1)\n")
    tf2 = _own(tmp_path, TF2_LOGREG)
    proc = subprocess.Popen([sys.executable, "-m", "tfcompare", "pair", str(script), str(tf2), "--timeout",
                             "120"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (_children(script) and _children(tf2)):
            time.sleep(0.1)
        assert _children(script), "the TF1 script never started"
        proc.send_signal(signal.SIGINT)
        output, _ = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, output
    assert "Traceback" not in output
    time.sleep(0.5)  # the kernel reaps killed children asynchronously
    assert _children(script) == [] and _children(tf2) == []


def test_a_training_run_is_recognised_however_the_train_op_is_fetched():
    """The train op itself, in a MonitoredSession's dict keyed by hook objects, or inside a group."""
    import tensorflow as tf

    from tfcompare.scripts.child.probe_tf1 import runs

    with tf.compat.v1.Graph().as_default():
        w = tf.compat.v1.Variable(1.0)
        loss = tf.square(w)
        train = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        other = tf.no_op()
        assert runs(train, train) and runs([train, loss], train)
        assert runs({"caller": [train, loss], object(): loss}, train)  # tf.nest cannot sort these keys
        assert runs(tf.group(train, other), train)
        assert not runs([loss, other], train) and not runs({"a": loss}, train)


def _record(side, ops=None, ratio=1.0, std=0.1, losses=(1.0,), seed=0):
    import numpy as np

    from tfcompare.scripts.child.record import SideRecord, Variable, stats

    rec = SideRecord(side=side, script=f"{side}.py", status="ok", ops=ops or {"MatMul": 1}, reduction_ratio=ratio,
                     losses=list(losses))
    values = np.random.default_rng(seed).normal(0, std, (20, 20)).astype(np.float32)
    rec.variables = [Variable(key="w", name="w", shape=[20, 20], dtype="float32", site="line 1", created=0, used=0,
                              init=stats(values))]
    rec.arrays["init/w"] = values
    return rec


def test_diagnosis_rules_on_recorded_numbers():
    """The rules behind each finding, on hand-made records (no processes): thresholds are where they say."""
    import numpy as np

    from tfcompare.scripts.pair.diagnose import findings, fitted_update, reduction_kind
    from tfcompare.scripts.pair.steps import StepCheck

    assert [reduction_kind(r) for r in (1.0, 1.0005, 2.0, 1.9995, 1.5, 1.01, None)] == \
        ["mean", "mean", "sum", "sum", "neither a mean nor a sum (x1.5)", "neither a mean nor a sum (x1.01)", "unknown"]
    # with dropout in the step the doubled batch draws other masks: x1.01 is still a mean
    from tfcompare.scripts.pair.diagnose import reduction_of

    assert reduction_of(_record("tf2", ops={"Dropout": 1}, ratio=1.01)) == "mean"
    assert reduction_of(_record("tf2", ratio=1.01)) == "neither a mean nor a sum (x1.01)"
    pairs = [("w", "w", "the only variable of its shape")]
    failing = [StepCheck(1, 1.0, 1.2, False, 0.1, False, 0.1, False)]
    # another draw from the same scheme is not a different initialisation; a standard deviation 1.5x is
    same = findings(_record("tf1"), _record("tf2", seed=1), pairs, [])
    assert same == []
    wider = findings(_record("tf1"), _record("tf2", std=0.15, seed=1), pairs, [])
    assert [(f.kind, f.decisive) for f in wider] == [("initialisation", True)]
    # dropout by the rate each side ran it at: live on both sides, named only when the steps differ; a dropout op
    # fed keep_prob 1.0 is no finding; live on one side only is a difference whatever the steps say
    dropout = {"MatMul": 1, "Dropout": 1}

    def side(name, rate, how):
        rec = _record(name, ops=dropout)
        rec.dropout = [{"rate": rate, "how": how, "live": rate > 0}]
        return rec
    tf1_live, tf2_live = side("tf1", 0.5, "rate 0.5 (keep_prob 0.5) fed, line 9"), side("tf2", 0.5, "Dropout(0.5)")
    assert findings(tf1_live, tf2_live, pairs, []) == []
    both = findings(tf1_live, tf2_live, pairs, failing)
    assert [f.kind for f in both] == ["where", "randomness"]
    assert both[1].text.startswith("dropout: live in TF1 (rate 0.5 (keep_prob 0.5) fed, line 9), live in TF2 "
                                   "(Dropout(0.5)): each side draws its masks from its own generator")
    tf1_off = side("tf1", 0.0, "rate 0 (keep_prob 1) fed, line 9")
    assert findings(tf1_off, side("tf2", 0.0, "Dropout(0)"), pairs, failing)[1:] == []
    [one_side] = [f for f in findings(tf1_off, tf2_live, pairs, []) if f.kind == "dropout"]
    assert one_side.decisive and one_side.text == ("dropout: off in TF1 (rate 0 (keep_prob 1) fed, line 9), live in "
                                                   "TF2 (Dropout(0.5)): one side drops units and the other does not")
    # the first update fitted to the first gradient
    rec = _record("tf2")
    g = np.linspace(-1, 1, 400, dtype=np.float32).reshape(20, 20)
    rec.arrays = {"grad/0/w": g, "before/0/w": np.full((20, 20), 0.5, np.float32)}
    rec.arrays["after/0/w"] = rec.arrays["before/0/w"] - np.float32(0.01) * g
    assert fitted_update(rec) == "SGD-like (update = -0.01 x gradient)"
    rec.arrays["after/0/w"] = rec.arrays["before/0/w"] - np.float32(0.003) * np.sign(g)
    assert fitted_update(rec) == "Adam/RMSprop-like (update = -0.003 x sign of the gradient)"
    rec.arrays["after/0/w"] = rec.arrays["before/0/w"] - np.float32(0.01) * g ** 3
    assert fitted_update(rec) == "neither a multiple of the gradient nor of its sign"
