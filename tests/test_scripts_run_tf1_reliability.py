"""`tfcompare run-tf1` when things go wrong (issue 34): an interrupt keeps the steps seen so far; a loss gone inf or
NaN is no TRAINED; a taken --run-name is refused before the script runs; a script that ends its process itself is
said to have done so; and the legacy runtime's truth (tf.gradients + apply_gradients, ops pinned to a GPU, a
refused contrib module in one line, no advice to use TensorFlow Addons)."""

import concurrent.futures
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tensorflow as tf
from click.testing import CliRunner

from tfcompare.cli import cli

DATA = Path(__file__).resolve().parent / "data"
SCRIPTS = DATA / "legacy_scripts"


def _tfcompare(*args, **kwargs) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED="1", TF_CPP_MIN_LOG_LEVEL="3")
    return subprocess.Popen([sys.executable, "-m", "tfcompare", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, **kwargs)


def _events(folder: Path) -> list[tuple[int, float]]:
    """(step, loss) of run-tf1's TensorBoard run in `folder`."""
    events = [e for f in folder.glob("events.out.tfevents*") for e in tf.compat.v1.train.summary_iterator(str(f))]
    return [(e.step, float(tf.make_ndarray(v.tensor))) for e in events for v in e.summary.value
            if v.tag == "run-tf1/loss"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each script through the real command at once (each run is two processes that mostly import TensorFlow):
    {name: (exit code, stdout, stderr)}."""
    logs = tmp_path_factory.mktemp("logs")
    jobs = {"nan": ["run-tf1", str(SCRIPTS / "nan_loss.py"), "--steps", "5"],
            "exits": ["run-tf1", str(SCRIPTS / "exits_3.py")],
            "gradients": ["run-tf1", str(SCRIPTS / "tf_gradients.py"), "--json"],
            "gpu": ["run-tf1", str(SCRIPTS / "gpu_pinned.py"), "--steps", "3"],
            "seq2seq": ["run-tf1", str(SCRIPTS / "refused_seq2seq.py")],
            "convert-exits": ["convert", str(SCRIPTS / "exits_3.py"), "-o", str(logs / "exits_3_tf2.py")]}

    def run(args):
        proc = _tfcompare(*args, "--logdir", str(logs)) if args[0] == "run-tf1" else _tfcompare(*args)
        out, err = proc.communicate(timeout=600)
        return proc.returncode, out, err

    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
        futures = {k: pool.submit(run, args) for k, args in jobs.items()}
        return {k: f.result() for k, f in futures.items()}


# --- 1. an interrupt keeps what ran --------------------------------------------------------------------------

def test_an_interrupted_run_tf1_prints_and_writes_the_steps_it_saw_and_exits_130(tmp_path):
    marks = tmp_path / "marks"
    proc = _tfcompare("run-tf1", str(SCRIPTS / "slow_steps.py"), "--steps", "20", "--json", "--logdir",
                      str(tmp_path / "logs"), "--run-name", "r", "--", str(marks))
    deadline = time.monotonic() + 300
    while not (marks.exists() and len(marks.read_text().split()) >= 2):  # two steps done, 18 to go (0.5 s each)
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    seen = len(marks.read_text().split())
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    result = json.loads(out)
    assert result["interrupted"] is True and result["status"] == "interrupted"
    losses = result["losses"]
    assert seen <= len(losses) < 20 and all(math.isfinite(x) for x in losses)
    assert result["error"] == f"stopped after {len(losses)} training step(s); the steps so far are kept"
    assert _events(tmp_path / "logs" / "r") == [(i, pytest.approx(x, rel=1e-6)) for i, x in enumerate(losses, 1)]
    assert "Interrupted: the steps seen until then are above and in TensorBoard." in err


# --- 2. a non-finite loss ------------------------------------------------------------------------------------

def test_a_loss_that_goes_inf_is_non_finite_exit_1_naming_its_step_without_tfcompare_warnings(runs):
    code, out, err = runs["nan"]
    assert code == 1, (out, err)
    assert "NON-FINITE: the loss of step 2 is inf (the first non-finite one, of 5 step(s) observed): the script " \
           "ran, but it does not train" in out
    assert "TRAINED" not in out and "RuntimeWarning" not in out + err
    assert [line.split("loss ")[1] for line in out.splitlines() if line.startswith("  step ")][1:] == \
        ["inf", "inf", "nan", "nan"]


# --- 3. a taken --run-name -----------------------------------------------------------------------------------

def test_a_taken_run_name_is_refused_before_the_script_runs(tmp_path):
    (tmp_path / "logs" / "taken").mkdir(parents=True)
    (tmp_path / "logs" / "taken" / "mine.txt").write_text("a run")
    ran = tmp_path / "ran"
    out = CliRunner().invoke(cli, ["run-tf1", str(SCRIPTS / "marks_then_trains.py"), "--logdir",
                                   str(tmp_path / "logs"), "--run-name", "taken", "--", str(ran)])
    assert out.exit_code == 2, out.output
    assert f"Invalid value for '--run-name': '{tmp_path / 'logs' / 'taken'}' already holds a run; choose another " \
           "name" in out.output
    assert "Traceback" not in out.output and not ran.exists()  # the script never started
    assert sorted(p.name for p in (tmp_path / "logs" / "taken").iterdir()) == ["mine.txt"]


# --- 4. a script that ends its own process -------------------------------------------------------------------

def test_a_script_calling_os_exit_is_said_to_have_exited_before_its_first_step(runs):
    code, out, err = runs["exits"]
    assert code == 3, (out, err)
    assert "FAILED: the TF1 script exited with code 3 before its first training step" in out
    assert "child" not in out and "without a record" not in out


def test_convert_says_the_same_of_a_script_calling_os_exit(runs):
    code, out, err = runs["convert-exits"]
    assert code == 3, (out, err)
    assert "FAILED: the TF1 script exited with code 3 before its first training step" in out
    assert "child" not in out


def test_one_wording_for_how_a_script_ended_after_steps_or_by_a_signal(tmp_path):
    from tfcompare.scripts.child.processes import ended_text
    from tfcompare.scripts.child.record import SideRecord, save_progress
    from tfcompare.scripts.pair import PairResult, _failure

    assert ended_text("the TF1 script", 3, 2) == "the TF1 script exited with code 3 after training step 2"
    assert ended_text("the TF2 script", -9, None) == "the TF2 script's process was ended by SIGKILL"
    save_progress(SideRecord("tf1", "a.py", losses=[1.0, 0.5]), tmp_path)  # what the child wrote before it ended
    result = PairResult("a.py", "b.py", 3)
    assert _failure(result, "tf1", None, 3, tmp_path, 120.0)
    assert result.error == "the TF1 script exited with code 3 after training step 2"
    result = PairResult("a.py", "b.py", 3)
    assert _failure(result, "tf2", None, 3, tmp_path / "none", 120.0)  # no progress: the script never started
    assert result.error == "tfcompare's TF2 child ended (3) before the script started: tfcompare failed"


# --- 5. the legacy runtime -----------------------------------------------------------------------------------

def test_tf_gradients_then_apply_gradients_is_a_training_step(runs):
    code, out, err = runs["gradients"]
    assert code == 0, (out, err)
    result = json.loads(out)
    assert result["status"] == "trained" and len(result["losses"]) == 5, result
    losses = result["losses"]
    assert all(math.isfinite(x) for x in losses) and losses == sorted(losses, reverse=True)  # it learns
    assert losses[0] == pytest.approx(0.3138815, rel=1e-5)  # mean((0 - y)^2) of the data, before the first update
    assert "KeyError" not in out


def test_pair_compares_a_tf_gradients_script_with_its_tape_rewrite():
    from tfcompare.scripts.pair import AGREE, PairOptions, pair_scripts

    result = pair_scripts(SCRIPTS / "tf_gradients.py", DATA / "pairs" / "tf2_gradients_clipped.py",
                          PairOptions(steps=3))
    assert result.status == AGREE, result.lines()
    assert [p["tf1"] for p in result.pairing] == ["Variable", "Variable_1"]


def test_ops_pinned_to_a_gpu_run_on_this_cpu_with_one_note(runs):
    code, out, err = runs["gpu"]
    assert code == 0, (out, err)
    assert "TRAINED: 3 training step(s) observed, then the script was stopped" in out
    notes = [line for line in out.splitlines() if "GPU" in line]
    assert notes == ["note: the script pins ops to a GPU (/device:GPU:0 at line 8) and this machine has none: those "
                     "ops ran on the CPU (allow_soft_placement in the script's sessions, as TF1 users set it)"]


def test_a_refused_contrib_module_is_one_line_without_a_traceback(runs):
    code, out, err = runs["seq2seq"]
    assert code == 3, (out, err)
    failed = [line for line in out.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 1 and failed[0].startswith("FAILED: tf.contrib.seq2seq is not provided: TensorFlow 2 "
                                                     "removed it")
    assert failed[0].endswith("with its replacement (refused_seq2seq.py line 5)")
    assert "keras.layers.Attention" in failed[0]
    assert "Traceback" not in out and "NotProvided" not in out


def test_the_seq2seq_and_crf_advice_names_no_tensorflow_addons():
    from tfcompare.scripts.legacy.coverage import refusal

    for module in ("contrib.seq2seq", "contrib.crf", "contrib.nonexistent"):
        assert "Addons" not in refusal(module) and "tfa." not in refusal(module), refusal(module)
    assert "MultiHeadAttention" in refusal("contrib.seq2seq") and "KerasHub" in refusal("contrib.seq2seq")
