"""Reliability: bad input is a clear usage error that leaves nothing behind; nothing finished is lost.

The bad-input table goes through click's in-process runner (one TensorFlow import for all of it). Where a
process matters (a hang, signals, a kill, two runs at once, a killed export) the tests start real ones.
"""

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.report.server import TensorBoard

DATA = Path(__file__).resolve().parent / "data"
TROUBLE = str(DATA / "trouble_cases.py")
USER = str(DATA / "user_cases.py")
LONG = "n" * 300
QUICK = ["--quick", "--repeats", "3", "--steps", "2"]

# Broken cases files, each a different way a user's file can be wrong.
BROKEN_FILES = {
    "syntax.py": "def broken(:\n",
    "sysexit.py": "import sys\nsys.exit(3)\n",
    "int_cases.py": "CASES = 5\n",
    "list_int.py": "CASES = [1, 2]\n",
    "empty.py": "",
    "badname.py": ("from tfcompare import Case, InputSpec\n"
                   "CASES = [Case('Bad Name', 'd', (InputSpec('x', (1,)),), dict, dict, dict, dict)]\n"),
    "baddtype.py": "from tfcompare import InputSpec\nX = InputSpec('x', (1,), 'float16')\n",
    "badshape.py": "from tfcompare import InputSpec\nX = InputSpec('x', (0, -1))\n",
    "notcallable.py": ("from tfcompare import Case, InputSpec\n"
                       "CASES = [Case('c', 'd', (InputSpec('x', (1,)),), 1, 2, 3, 4)]\n"),
    "notpy.txt": "CASES = []\n",
}


def _bad(args, needle):
    return pytest.param(args, needle, id=" ".join(args)[:60])


BAD_INPUTS = [
    # run: names
    _bad(["run", "--case", "nope"], "unknown case 'nope'; choose from linear"),
    _bad(["run", "--case", ""], "unknown case ''"),
    _bad(["run", "--case", "café"], "unknown case 'café'"),
    _bad(["run", "--case", "LINEAR"], "unknown case 'LINEAR'"),
    _bad(["run", "--case", "linear "], "unknown case 'linear '"),
    _bad(["run", "--case", "linear", "--case", "nope"], "unknown case 'nope'"),
    _bad(["run", "--mode", "nope"], "'nope' is not one of 'tf1-graph'"),
    _bad(["run", "--mode", ""], "'' is not one of"),
    _bad(["run", "--mode", "TF1-GRAPH"], "'TF1-GRAPH' is not one of"),
    _bad(["run", "--mode", "tf2-xla", "--cases-file", USER, "--case", "user-no-xla"],
         "case 'user-no-xla' does not support mode 'tf2-xla'"),
    # run: counts
    _bad(["run", "--case", "mlp", "--batch-size", "0"], "0 is not in the range x>=1"),
    _bad(["run", "--case", "mlp", "--batch-size", "-1"], "-1 is not in the range x>=1"),
    _bad(["run", "--case", "mlp", "--batch-size", "abc"], "'abc' is not a valid integer"),
    _bad(["run", "--case", "mlp", "--batch-size", "1.5"], "'1.5' is not a valid integer"),
    _bad(["run", "--case", "mlp", "--batch-size", ""], "'' is not a valid integer"),
    _bad(["run", "--case", "mlp", "--batch-size", str(2**70)], "at batch size 1180591620717411303424"),
    _bad(["run", "--case", "mlp", "--batch-size", "100000000"], "needs at least"),
    _bad(["run", "--case", "mlp", "--steps", "0"], "0 is not in the range x>=1"),
    _bad(["run", "--case", "mlp", "--steps", "-5"], "-5 is not in the range x>=1"),
    _bad(["run", "--case", "mlp", "--steps", "x"], "'x' is not a valid integer"),
    _bad(["run", "--case", "mlp", "--steps", "1e9"], "'1e9' is not a valid integer"),
    _bad(["run", "--case", "mlp", "--steps", "1000000000"], "with 1000000000 steps needs at least"),
    _bad(["run", "--case", "mlp", "--repeats", "0"], "0 is not in the range x>=1"),
    _bad(["run", "--case", "mlp", "--repeats", "-1"], "-1 is not in the range x>=1"),
    _bad(["run", "--case", "mlp", "--repeats", "ten"], "'ten' is not a valid integer"),
    _bad(["run", "--case", "mlp", "--repeats", "2.5"], "'2.5' is not a valid integer"),
    _bad(["run", "--case", "mlp", "--loop-steps", "0"], "0 is not in the range x>=1"),
    _bad(["run", "--case", "mlp", "--loop-steps", "-2"], "-2 is not in the range x>=1"),
    _bad(["run", "--case", "mlp", "--loop-steps", "x"], "'x' is not a valid integer"),
    _bad(["run", "--case", "mlp", "--levers", "--loop-steps", "100000000"], "100000000 loop steps needs at least"),
    _bad(["run", "--case", "mlp", "--threads", "0"], "0 is not in the range x>=1"),
    _bad(["run", "--case", "mlp", "--threads", "-1"], "-1 is not in the range x>=1"),
    _bad(["run", "--case", "mlp", "--threads", "many"], "'many' is not a valid integer"),
    _bad(["run", "--case", "mlp", "--threads", "1.0"], "'1.0' is not a valid integer"),
    _bad(["run", "--case", "mlp", "--seed", "-1"], "-1 is not in the range 0<=x<=4294967295"),
    _bad(["run", "--case", "mlp", "--seed", str(2**32)], "4294967296 is not in the range"),
    _bad(["run", "--case", "mlp", "--seed", "abc"], "'abc' is not a valid integer"),
    _bad(["run", "--case", "mlp", "--seed", "1.5"], "'1.5' is not a valid integer"),
    _bad(["run", "--case", "mlp", "--mode-timeout", "0"], "0 is not in the range x>0"),
    _bad(["run", "--case", "mlp", "--mode-timeout", "-1"], "-1.0 is not in the range x>0"),
    _bad(["run", "--case", "mlp", "--mode-timeout", "abc"], "'abc' is not a valid float"),
    _bad(["run", "--case", "mlp", "--mode-timeout", "nan"], "nan is not a number of seconds"),
    # run: paths and names
    _bad(["run", "--case", "mlp", "--logdir", ""], "the log directory name is empty"),
    _bad(["run", "--case", "mlp", "--logdir", " "], "the log directory name is empty"),
    _bad(["run", "--case", "mlp", "--logdir", "blocker"], "cannot write to 'blocker'"),
    _bad(["run", "--case", "mlp", "--logdir", "blocker/sub"], "cannot write to 'blocker/sub'"),
    _bad(["run", "--case", "mlp", "--run-name", ""], "'' must be a plain folder name"),
    _bad(["run", "--case", "mlp", "--run-name", " "], "' ' must be a plain folder name"),
    _bad(["run", "--case", "mlp", "--run-name", "a/b"], "'a/b' must be a plain folder name"),
    _bad(["run", "--case", "mlp", "--run-name", "a\\b"], "must be a plain folder name"),
    _bad(["run", "--case", "mlp", "--run-name", "."], "'.' must be a plain folder name"),
    _bad(["run", "--case", "mlp", "--run-name", ".."], "'..' must be a plain folder name"),
    _bad(["run", "--case", "mlp", "--run-name", LONG], "is 300 characters; a run name has at most 200"),
    _bad(["run", "--case", "mlp", "--logdir", "runs", "--run-name", "taken"], "already holds a run"),
    _bad(["run", "--case", "mlp", "--logdir", "runs", "--run-name", "foreign", "--overwrite"],
         "holds no results.json: not a tfcompare run"),
    _bad(["run", "--case", "mlp", "--logdir", "runs", "--run-name", "blocked"], "exists and is not a folder"),
    # run: cases files
    _bad(["run", "--cases-file", "missing.py"], "cases file 'missing.py' does not exist"),
    _bad(["run", "--cases-file", ""], "the cases file name is empty"),
    _bad(["run", "--cases-file", "{broken}/notpy.txt"], "is not a .py file"),
    _bad(["run", "--cases-file", "{broken}/syntax.py"], "failed to import: SyntaxError"),
    _bad(["run", "--cases-file", "{broken}/sysexit.py"], "called sys.exit(3) while being imported"),
    _bad(["run", "--cases-file", "{broken}/int_cases.py"], "CASES must be a list of Case, got int"),
    _bad(["run", "--cases-file", "{broken}/list_int.py"], "CASES holds int, not Case"),
    _bad(["run", "--cases-file", "{broken}/empty.py"], "defines no Case"),
    _bad(["run", "--cases-file", "{broken}/badname.py"], "case name 'Bad Name' must match"),
    _bad(["run", "--cases-file", "{broken}/baddtype.py"], "dtype 'float16' is not one of"),
    _bad(["run", "--cases-file", "{broken}/badshape.py"], "shape (0, -1) must hold positive integers"),
    _bad(["run", "--cases-file", "{broken}/notcallable.py"], "init_weights must be callable"),
    _bad(["run", "--cases-file", str(DATA / "no_cases.py")], "defines no Case"),
    _bad(["run", "--cases-file", str(DATA / "bad_import.py")], "ModuleNotFoundError"),
    # run: case options and lengths
    _bad(["run", "--case", "resnet", "--option", "depth"], "'depth' is not KEY=VALUE"),
    _bad(["run", "--case", "resnet", "--option", "=3"], "'=3' is not KEY=VALUE"),
    _bad(["run", "--case", "resnet", "--option", "depth=0"], "depth='0': the value must be a positive integer"),
    _bad(["run", "--case", "resnet", "--option", "depth=-1"], "depth='-1': the value must be a positive integer"),
    _bad(["run", "--case", "resnet", "--option", "depth=x"], "depth='x': the value must be a positive integer"),
    _bad(["run", "--case", "resnet", "--option", "nope=3"], "no chosen case has option 'nope'"),
    _bad(["run", "--case", "resnet", "--option", "depth=100000000"], "option depth=100000000 is above its limit 64"),
    _bad(["run", "--case", "linear", "--option", "depth=3"], "no chosen case has option 'depth'"),
    _bad(["run", "--case", "rnn", "--seq-lens", ""], "'' must be comma-separated positive integers"),
    _bad(["run", "--case", "rnn", "--seq-lens", "a,b"], "'a,b' must be comma-separated positive integers"),
    _bad(["run", "--case", "rnn", "--seq-lens", "0"], "'0' must be comma-separated positive integers"),
    _bad(["run", "--case", "rnn", "--seq-lens", "-1,5"], "'-1,5' must be comma-separated positive integers"),
    _bad(["run", "--case", "rnn", "--seq-lens", "7,,9"], "'7,,9' must be comma-separated positive integers"),
    _bad(["run", "--case", "linear", "--seq-lens", "7"], "none of the chosen cases has a varying dim"),
    _bad(["run", "--case", "rnn", "--seq-lens", "100000000"], "needs at least"),
    # autograph, inspect
    _bad(["autograph", "nope"], "unknown case 'nope'"),
    _bad(["autograph", ""], "unknown case ''"),
    _bad(["autograph", "linear", "--cases-file", "missing.py"], "cases file 'missing.py' does not exist"),
    _bad(["inspect", "nope"], "unknown case 'nope'"),
    _bad(["inspect", "linear", "--mode", "tf2-eager"], "'tf2-eager' is not one of"),
    _bad(["inspect", "linear", "--grappler", "remap=off"], "unknown Grappler option 'remap'"),
    _bad(["inspect", "linear", "--grappler", "remapping=maybe"], "remapping='maybe': the value must be on, off"),
    _bad(["inspect", "linear", "--grappler", "remapping"], "'remapping' is not KEY=VALUE"),
    _bad(["inspect", "linear", "--repeats", "0"], "0 is not in the range x>=1"),
    _bad(["inspect", "linear", "--logdir", "blocker"], "cannot write to 'blocker'"),
    # export
    _bad(["export", "nope"], "unknown case 'nope'"),
    _bad(["export", "linear", "--to", "."], "is the current folder, one that contains it, or a root"),
    _bad(["export", "linear", "--to", ".", "--overwrite"], "is the current folder"),
    _bad(["export", "linear", "--to", "..", "--overwrite"], "is the current folder, one that contains it"),
    _bad(["export", "linear", "--to", ""], "is the current folder"),
    _bad(["export", "linear", "--to", "blocker"], "exists and is not a folder"),
    _bad(["export", "linear", "--to", LONG], "is 300 characters; at most 200"),
    _bad(["export", "linear", "--to", "precious"], "exists and is not empty; pass --overwrite"),
    _bad(["export", "linear", "--to", "precious", "--overwrite"], "is not a tfcompare export"),
    _bad(["export", "linear", "--to", "blocker/sub/out"], "cannot write to"),
    # claims, pitfalls
    _bad(["claims", "--claim", "0"], "no claim 0; valid claims: 1, 2"),
    _bad(["claims", "--claim", "13"], "no claim 13"),
    _bad(["claims", "--claim", "x"], "'x' is not a valid integer"),
    _bad(["claims", "--run-name", "a/b"], "'a/b' must be a plain folder name"),
    _bad(["claims", "--logdir", "blocker"], "cannot write to 'blocker'"),
    _bad(["claims", "--logdir", "runs", "--run-name", "taken"], "already holds a run"),
    _bad(["pitfalls", "--only", "nope"], "unknown demonstration 'nope'"),
    _bad(["pitfalls", "--only", ""], "unknown demonstration ''"),
    # audit
    _bad(["audit"], "give exactly one of TARGET, --scenario NAME or --static PATH"),
    _bad(["audit", "x.py", "--scenario", "none-signature"], "give exactly one of"),
    _bad(["audit", "--scenario", "nope"], "unknown scenario 'nope'"),
    _bad(["audit", "--static", "missing.py"], "'missing.py' does not exist"),
    _bad(["audit", ":main"], "':main' is neither a script nor package.module:function"),
    _bad(["audit", "module:"], "'module:' is neither a script nor package.module:function"),
    _bad(["audit", "--overhead", "x.py"], "--overhead goes with --scenario"),
    _bad(["audit", "--scenario", "none-signature", "--max-traces", "0"], "0 is not in the range x>=1"),
    # tensorboard, list, the group
    _bad(["tensorboard", "--logdir", "missing"], "log directory 'missing' does not exist"),
    _bad(["tensorboard", "--logdir", "emptydir"], "holds no TensorBoard event files"),
    _bad(["tensorboard", "--port", "-1"], "-1 is not in the range 0<=x<=65535"),
    _bad(["tensorboard", "--port", "70000"], "70000 is not in the range 0<=x<=65535"),
    _bad(["tensorboard", "--port", "abc"], "'abc' is not a valid integer"),
    _bad(["list", "--cases-file", "missing.py"], "cases file 'missing.py' does not exist"),
    _bad(["list", "--cases-file", "{broken}/int_cases.py"], "CASES must be a list of Case"),
    _bad(["frobnicate"], "No such command 'frobnicate'"),
    _bad(["run", "--frobnicate"], "No such option '--frobnicate'"),
]


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """An empty working folder with the things the table points at: a file, folders of someone else's."""
    (tmp_path / "blocker").write_text("a file, not a folder")
    (tmp_path / "precious").mkdir()
    (tmp_path / "precious" / "precious.txt").write_text("the user's own file")
    (tmp_path / "emptydir").mkdir()
    runs = tmp_path / "runs"
    (runs / "taken").mkdir(parents=True)
    (runs / "taken" / "results.json").write_text("{}")
    (runs / "foreign").mkdir()
    (runs / "foreign" / "notes.txt").write_text("not a run")
    (runs / "blocked").write_text("a file where a run folder would go")
    broken = tmp_path / "broken"
    broken.mkdir()
    for name, text in BROKEN_FILES.items():
        (broken / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("args,needle", BAD_INPUTS)
def test_bad_input_is_a_usage_error_naming_the_value_that_leaves_nothing(workdir, args, needle):
    args = [a.replace("{broken}", str(workdir / "broken")) for a in args]
    before = _tree(workdir)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert needle in result.output, result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    assert _tree(workdir) == before  # refused before writing anything


def test_the_table_covers_every_command_with_over_100_inputs():
    commands = {p.values[0][0] for p in BAD_INPUTS}
    assert len(BAD_INPUTS) >= 100
    assert {"run", "autograph", "inspect", "export", "claims", "pitfalls", "audit", "tensorboard", "list"} <= commands


def test_oversized_inputs_are_refused_fast_and_allocate_almost_nothing(workdir):
    for args in (["--batch-size", "100000000"], ["--steps", "1000000000"], ["--levers", "--loop-steps", "100000000"]):
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        t0 = time.perf_counter()
        result = CliRunner().invoke(cli, ["run", "--case", "mlp", *args])
        elapsed = time.perf_counter() - t0
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - rss_before
        assert result.exit_code == 2 and "needs at least" in result.output
        assert elapsed < 5 and grown < 2**30, (elapsed, grown)


def test_failed_rows_are_written_with_their_causes_and_the_rest_still_runs(tmp_path):
    result = CliRunner().invoke(cli, ["run", "--cases-file", TROUBLE, "--case", "trouble-nan", "--case", "trouble-wide",
                                      "--case", "trouble-setup", "--case", "trouble-raises", "--case", "trouble-ok",
                                      "--mode", "tf1-graph", "--mode", "tf2-eager", "--mode", "tf2-function",
                                      "--logdir", str(tmp_path), "--run-name", "r", *QUICK])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    doc = json.loads((tmp_path / "r" / "results.json").read_text())
    assert doc["complete"] is True and doc["ok"] is False
    rows = {(r["case"], r["mode"]): r for r in doc["results"]}
    assert len(rows) == 15
    nan, wide = rows[("trouble-nan", "tf2-function")], rows[("trouble-wide", "tf2-function")]
    assert nan["status"] == "mismatch" and nan["max_abs_err"] == "nan" and "8 NaN/inf values" in nan["error"]
    assert wide["status"] == "mismatch" and wide["max_abs_err"] == "inf" and "shape (8, 2) vs (8, 1)" in wide["error"]
    for m in ("tf1-graph", "tf2-eager", "tf2-function"):  # the cause, and the user's line that raised it
        error = rows[("trouble-setup", m)]["error"]
        assert error.startswith("case set-up failed: RuntimeError: init_weights broke (in _broken_weights at ")
        assert error.endswith("trouble_cases.py:58)")
    raised = rows[("trouble-raises", "tf2-function")]["error"]
    assert raised.startswith("ValueError: the user's own error (in train_step at ")
    assert raised.endswith("trouble_cases.py:45, inside tf.function)")
    assert "trouble_cases.py:45" in rows[("trouble-raises", "tf2-eager")]["error"]
    assert all(rows[("trouble-ok", m)]["status"] == "ok" for m in ("tf1-graph", "tf2-eager", "tf2-function"))


# --- real processes ------------------------------------------------------------------------------------------

def _tfcompare(*args, cwd=None):
    env = dict(os.environ, PYTHONUNBUFFERED="1", TF_CPP_MIN_LOG_LEVEL="3")
    return subprocess.Popen([sys.executable, "-m", "tfcompare", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)


def _results(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _wait(predicate, proc, seconds=120):
    deadline = time.time() + seconds
    while time.time() < deadline and proc.poll() is None:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def test_a_hanging_mode_times_out_and_the_next_case_runs(tmp_path):
    proc = _tfcompare("run", "--cases-file", TROUBLE, "--case", "trouble-hang", "--case", "trouble-ok",
                      "--mode", "tf1-graph", "--mode", "tf2-eager", "--mode", "tf2-function", "--mode-timeout", "3",
                      "--logdir", str(tmp_path), "--run-name", "hang", *QUICK)
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 1, err
    doc = _results(tmp_path / "hang" / "results.json")
    rows = {(r["case"], r["mode"]): r for r in doc["results"]}
    for mode in ("tf2-eager", "tf2-function"):
        assert rows[("trouble-hang", mode)]["error"] == (f"timed out after 3 s (trouble-hang/{mode}: build and "
                                                         "first call)")
    assert rows[("trouble-hang", "tf1-graph")]["status"] == "ok"
    assert all(rows[("trouble-ok", m)]["status"] == "ok" for m in ("tf1-graph", "tf2-eager", "tf2-function"))
    assert doc["complete"] is True and doc["abandoned_threads"] == 2


@pytest.mark.parametrize("phase", ["building", "equivalence", "timing"])
def test_ctrl_c_in_each_phase_inside_user_code_exits_130_and_keeps_the_finished_case(tmp_path, phase):
    # trouble-slow sleeps in Python inside every TF2 step, so the interrupt lands while user code runs
    proc = _tfcompare("run", "--cases-file", TROUBLE, "--case", "trouble-ok", "--case", "trouble-slow",
                      "--mode", "tf1-graph", "--mode", "tf2-eager", "--mode", "tf2-function",
                      "--logdir", str(tmp_path), "--run-name", "int", *QUICK)
    for line in proc.stderr:
        if f"trouble-slow: {phase}" in line:
            time.sleep(0.7)
            proc.send_signal(signal.SIGINT)
            break
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    doc = _results(tmp_path / "int" / "results.json")
    assert doc["interrupted"] is True and doc["complete"] is False and doc["ok"] is False
    assert [(r["case"], r["status"]) for r in doc["results"]] == [("trouble-ok", "ok")] * 3


def test_a_killed_run_is_marked_incomplete_and_its_event_files_load_in_tensorboard(tmp_path):
    proc = _tfcompare("run", "--cases-file", TROUBLE, "--case", "trouble-ok", "--case", "trouble-slow",
                      "--mode", "tf1-graph", "--mode", "tf2-function", "--logdir", str(tmp_path), "--run-name", "k",
                      *QUICK)
    path = tmp_path / "k" / "results.json"
    assert _wait(lambda: bool((_results(path) or {}).get("results")), proc)
    proc.kill()
    proc.wait(timeout=30)
    doc = _results(path)
    assert doc["complete"] is False and doc["interrupted"] is False and doc["ok"] is False
    assert [r["case"] for r in doc["results"]] == ["trouble-ok", "trouble-ok"]
    import urllib.request

    with TensorBoard(tmp_path / "k", reload_interval=1) as board:
        deadline = time.time() + 60
        tags = {}
        while time.time() < deadline and "trouble-ok/timing/step_median_s" not in tags.get("tf2-function", {}):
            with urllib.request.urlopen(f"{board.url}/data/plugin/scalars/tags", timeout=30) as resp:
                tags = json.loads(resp.read().decode())
            time.sleep(0.5)
    assert "trouble-ok/timing/step_median_s" in tags["tf2-function"]


def test_two_runs_started_together_get_their_own_folders(tmp_path):
    args = ("run", "--case", "linear", "--mode", "tf1-graph", "--mode", "tf2-function", "--logdir", str(tmp_path),
            *QUICK)
    procs = [_tfcompare(*args), _tfcompare(*args)]
    for p in procs:
        p.communicate(timeout=180)
        assert p.returncode == 0
    runs = sorted(p for p in tmp_path.iterdir() if p.is_dir())
    assert len(runs) == 2
    for run in runs:
        doc = _results(run / "results.json")
        assert doc["complete"] is True and doc["run_name"] == run.name and len(doc["results"]) == 2
        for mode in ("tf1-graph", "tf2-function"):
            # the case's file and the run's HParams session, nothing mixed in from the other run
            assert len(list((run / mode).glob("events.out.tfevents.*"))) == 2


def test_a_killed_export_leaves_the_destination_intact_and_the_next_export_cleans_up(tmp_path):
    dest = tmp_path / "out"
    first = CliRunner().invoke(cli, ["export", "linear", "--to", str(dest), "--no-tflite"])
    assert first.exit_code == 0, first.output
    report = (dest / "report.json").read_text()
    proc = _tfcompare("export", "linear", "--to", str(dest), "--overwrite")
    assert _wait(lambda: list(tmp_path.glob(".out.tmp-*/savedmodel-tf1")), proc)
    proc.kill()
    proc.wait(timeout=30)
    assert (dest / "report.json").read_text() == report  # the old export, untouched
    assert list(tmp_path.glob(".out.tmp-*"))  # what the killed export was writing
    time.sleep(1)  # the reload child, if it had started, dies with its parent
    children = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True).stdout.split()
    assert children == []
    again = CliRunner().invoke(cli, ["export", "linear", "--to", str(dest), "--no-tflite", "--overwrite"])
    assert again.exit_code == 0, again.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no temporary folder left behind


def test_contract_errors_say_what_to_do_and_a_cases_file_alone_runs_its_own_cases(tmp_path):
    result = CliRunner().invoke(cli, ["run", "--cases-file", str(DATA / "keras_cases.py"), "--mode", "tf1-graph",
                                      "--logdir", str(tmp_path), "--run-name", "own", *QUICK])
    doc = json.loads((tmp_path / "own" / "results.json").read_text())
    assert sorted({r["case"] for r in doc["results"]}) == ["keras-adam", "keras-adam-default", "keras-adam-small",
                                                            "keras-ambiguous", "keras-layer-differs", "keras-rate",
                                                            "keras-sgd", "keras-step", "leak-lazy", "leak-python",
                                                            "plain-step"]
    result = CliRunner().invoke(cli, ["run", "--cases-file", TROUBLE, "--case", "trouble-none", "--case",
                                      "trouble-label", "--mode", "tf1-graph", "--mode", "tf2-function",
                                      "--logdir", str(tmp_path), "--run-name", "contract", *QUICK])
    assert result.exit_code == 1
    rows = {(r["case"], r["mode"]): r for r in json.loads((tmp_path / "contract" / "results.json").read_text())["results"]}
    assert rows[("trouble-none", "tf2-function")]["error"] == ("ValueError: the TF2 model's train_step returned None: "
                                                              "it must return the loss (a scalar tensor)")
    assert rows[("trouble-label", "tf1-graph")]["status"] == rows[("trouble-label", "tf2-function")]["status"] == "ok"
