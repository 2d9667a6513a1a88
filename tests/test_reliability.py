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

import numpy as np
import pytest
from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.report.server import TensorBoard

DATA = Path(__file__).resolve().parent / "data"
TROUBLE = str(DATA / "trouble_cases.py")
USER = str(DATA / "user_cases.py")
LONG = "n" * 300
QUICK = ["--quick", "--repeats", "3", "--steps", "2"]
PAIR_TF1, PAIR_TF2 = str(DATA / "pairs" / "tf1_logreg.py"), str(DATA / "pairs" / "tf2_logreg.py")

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
    _bad(["run", "--case", "mlp", "--logdir", ""], "the folder name is empty"),
    _bad(["run", "--case", "mlp", "--logdir", " "], "the folder name is empty"),
    _bad(["run", "--case", "mlp", "--logdir", "blocker"], "'blocker' is a file, not a folder"),
    _bad(["run", "--case", "mlp", "--logdir", "blocker/sub"],
         "cannot write to 'blocker/sub': 'blocker' is a file, not a folder"),
    _bad(["run", "--case", "mlp", "--run-name", ""], "'' must be a plain folder name"),
    _bad(["run", "--case", "mlp", "--run-name", " "], "' ' must be a plain folder name"),
    _bad(["run", "--case", "mlp", "--run-name", "a/b"], "'a/b' must be a plain folder name"),
    _bad(["run", "--case", "mlp", "--run-name", "a\\b"], "must be a plain folder name"),
    _bad(["run", "--case", "mlp", "--run-name", "."], "'.' must be a plain folder name"),
    _bad(["run", "--case", "mlp", "--run-name", ".."], "'..' must be a plain folder name"),
    _bad(["run", "--case", "mlp", "--run-name", LONG], "is 300 characters; a run name has at most 200"),
    _bad(["run", "--case", "mlp", "--logdir", "runs", "--run-name", "taken"], "already holds a run"),
    _bad(["run", "--case", "mlp", "--logdir", "runs", "--run-name", "foreign", "--overwrite"],
         "has no .tfcompare-run file: not a folder tfcompare made"),
    _bad(["run", "--case", "mlp", "--logdir", "runs", "--run-name", "thesis", "--overwrite"],
         "has no .tfcompare-run file: not a folder tfcompare made"),
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
    _bad(["run", "--case", "rnn", "--seq-lens", "100000000"],
         "Invalid value for '--seq-lens': case 'rnn' at batch size 16 with 5 steps and lengths up to 100000000 needs"),
    # autograph, inspect
    _bad(["autograph", "nope"], "unknown case 'nope'"),
    _bad(["autograph", ""], "unknown case ''"),
    _bad(["autograph", "linear", "--cases-file", "missing.py"], "cases file 'missing.py' does not exist"),
    _bad(["inspect", "nope"], "unknown case 'nope'"),
    _bad(["inspect", "linear", "--mode", "tf2-eager"], "'tf2-eager' is not one of"),
    _bad(["inspect", "linear", "--grappler", "remap=off"], "unknown Grappler option 'remap'"),
    _bad(["inspect", "linear", "--grappler", "remapping=maybe"], "remapping='maybe': the value must be on, off"),
    _bad(["inspect", "linear", "--grappler", "remapping"], "'remapping' is not KEY=VALUE"),
    _bad(["inspect", "linear", "--repeats", "0"], "0 is not in the range 1<=x<=1000"),
    _bad(["inspect", "linear", "--repeats", "1000000000"], "1000000000 is not in the range 1<=x<=1000"),
    _bad(["inspect", "linear", "--logdir", "blocker"], "'blocker' is a file, not a folder"),
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
    _bad(["claims", "--logdir", "blocker"], "'blocker' is a file, not a folder"),
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
    # paths, checked in one place for every command: too long, a link that points nowhere or loops, a file
    *[_bad([*cmd, "--logdir", LONG], "is 300 bytes; a file or folder name has at most 255")
      for cmd in (["run", "--case", "mlp"], ["pair", PAIR_TF1, PAIR_TF2], ["debug", "linear"], ["audit", "--scenario",
                  "none-signature"], ["claims"], ["inspect", "linear"], ["tensorboard"])],
    _bad(["run", "--case", "mlp", "--logdir", "/".join(["d" * 200] * 25)], "as a full path; at most 4096"),
    _bad(["run", "--case", "mlp", "--logdir", "dangling"], "'dangling' is a symbolic link that points to 'nowhere', "
                                                           "which does not exist"),
    _bad(["run", "--case", "mlp", "--logdir", "dangling/sub"], "is a symbolic link that points to 'nowhere'"),
    _bad(["claims", "--logdir", "loop1"], "is a symbolic link that loops"),
    _bad(["audit", "--scenario", "none-signature", "--logdir", "blocker"], "'blocker' is a file, not a folder"),
    _bad(["inspect", "linear", "--logdir", "blocker/sub"], "'blocker' is a file, not a folder"),
    _bad(["run", "--case", "mlp", "--logdir", "runs", "--run-name", "linked", "--overwrite"],
         "is a symbolic link (to 'taken'); a run folder is never written or replaced through a link"),
    _bad(["run", "--case", "mlp", "--logdir", "runs", "--run-name", "linked"], "is a symbolic link (to 'taken')"),
    _bad(["pair", PAIR_TF1, PAIR_TF2, "--logdir", "runs", "--run-name", "taken"], "already holds a run"),
    _bad(["pair", PAIR_TF1, PAIR_TF2, "--emit-case", "dangling.py"],
         "'dangling.py' exists (a symbolic link to 'nowhere.py'); tfcompare does not overwrite it"),
    _bad(["pair", PAIR_TF1, PAIR_TF2, "--emit-case", LONG + ".py"], "is 303 bytes; a file or folder name has at most"),
    _bad(["tensorboard", "--logdir", "dangling"], "'dangling' is a symbolic link that points to 'nowhere'"),
    _bad(["tensorboard", "--logdir", "loop1"], "is a symbolic link that loops"),
    _bad(["tensorboard", "--logdir", "blocker"], "'blocker' is a file, not a folder"),
    # tensorboard, list, the group
    _bad(["tensorboard", "--logdir", "missing"], "'missing' does not exist"),
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
    (runs / "linked").symlink_to("taken")
    (tmp_path / "dangling").symlink_to("nowhere")
    (tmp_path / "dangling.py").symlink_to("nowhere.py")
    (tmp_path / "loop1").symlink_to("loop2")
    (tmp_path / "loop2").symlink_to("loop1")
    (runs / "thesis").mkdir()  # a user's folder that happens to hold a results.json
    (runs / "thesis" / "results.json").write_text("{}")
    (runs / "thesis" / "thesis.tex").write_text("three years of work")
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
    assert {"run", "autograph", "inspect", "export", "claims", "pitfalls", "audit", "tensorboard", "list", "pair",
            "debug"} <= commands


def test_oversized_inputs_are_refused_fast_and_allocate_almost_nothing(workdir):
    for args in (["--batch-size", "100000000"], ["--steps", "1000000000"], ["--levers", "--loop-steps", "100000000"]):
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        t0 = time.perf_counter()
        result = CliRunner().invoke(cli, ["run", "--case", "mlp", *args])
        elapsed = time.perf_counter() - t0
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - rss_before
        assert result.exit_code == 2 and "needs at least" in result.output
        assert elapsed < 5 and grown < 2**30, (elapsed, grown)


def test_a_case_that_is_nan_in_every_mode_alike_is_non_finite_not_ok(tmp_path):
    modes = ("tf1-graph", "tf2-eager", "tf2-function", "tf2-partial")
    result = CliRunner().invoke(cli, ["run", "--cases-file", TROUBLE, "--case", "trouble-diverges", "--case",
                                      "trouble-ok", *[a for m in modes for a in ("--mode", m)],
                                      "--logdir", str(tmp_path), "--run-name", "r", *QUICK])
    assert result.exit_code == 1, result.output
    rows = {(r["case"], r["mode"]): r for r in json.loads((tmp_path / "r" / "results.json").read_text())["results"]}
    for mode in modes:
        row = rows[("trouble-diverges", mode)]
        assert row["status"] == "non-finite", row
        assert row["error"].startswith("the loss is inf from step 2 of 2"), row["error"]
        assert row["error"].endswith(f"; the first op that produces it: tfcompare debug trouble-diverges --cases-file "
                                     f"{TROUBLE}")
        assert rows[("trouble-ok", mode)]["status"] == "ok"
    assert "; tf1-graph too;" in rows[("trouble-diverges", "tf2-function")]["error"]
    assert "trouble-diverges/tf2-partial: non-finite: the loss is inf from step 2 of 2" in result.output


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
    assert nan["status"] == "non-finite" and nan["max_abs_err"] == "nan"
    assert nan["error"] == ("the forward output is not finite before any update (8 NaN); tf1-graph stays finite; the "
                            f"first op that produces it: tfcompare debug trouble-nan --cases-file {TROUBLE}")
    assert nan["equivalence"]["checks"][0]["detail"] == "8 NaN/inf values where tf1-graph has finite ones"
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


def _within(predicate, seconds) -> bool:
    """`predicate` comes true within `seconds` (for what follows a process's end: `_wait` stops when it ends)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
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
    assert _within(lambda: subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True,
                                          text=True).stdout.split() == [], 10)  # its reload child dies with it
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


# --- nothing of the user's is ever deleted ------------------------------------------------------------------

def test_overwrite_replaces_only_a_folder_tfcompare_made_and_never_through_a_link(tmp_path):
    from tfcompare.core.files import RUN_MARKER, FolderTaken, claim_folder

    ours = claim_folder(tmp_path, "ours", "x")
    assert (ours / RUN_MARKER).is_file()
    (ours / "results.json").write_text("{}")
    again = claim_folder(tmp_path, "ours", "x", overwrite=True)
    assert sorted(p.name for p in again.iterdir()) == [RUN_MARKER]  # replaced, and marked again
    thesis = tmp_path / "thesis"
    thesis.mkdir()
    (thesis / "results.json").write_text("{}")
    (thesis / "thesis.tex").write_text("three years of work")
    with pytest.raises(FolderTaken, match="has no .tfcompare-run file"):
        claim_folder(tmp_path, "thesis", "x", overwrite=True)
    (tmp_path / "link").symlink_to(ours)
    with pytest.raises(FolderTaken, match="is a symbolic link"):
        claim_folder(tmp_path, "link", "x", overwrite=True)
    assert (thesis / "thesis.tex").read_text() == "three years of work" and (ours / RUN_MARKER).is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "ours", "thesis"]  # no temporary folder left


def test_only_marked_temporary_folders_of_ended_processes_are_removed(tmp_path):
    from tfcompare.core.files import TEMP_MARKER, pid_temp_dir, remove_dead_temp_dirs

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    mine = tmp_path / ".out.tmp-999999-mine"  # the user's own folder, named like a temporary one
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    leftover = tmp_path / f".out.tmp-{dead_pid}-abcd1234"  # what a killed export left (its pid has ended)
    leftover.mkdir()
    (leftover / TEMP_MARKER).write_text(f"{dead_pid} 1\n")
    (leftover / "savedmodel").mkdir()
    empty = tmp_path / f".out.tmp-{dead_pid}-zz_9zz99"  # killed between mkdtemp and the marker
    empty.mkdir()
    foreign = tmp_path / f".out.tmp-{dead_pid}-other"  # the same pid in the name, but not marked as ours
    foreign.mkdir()
    (foreign / "data.csv").write_text("1,2")
    live = pid_temp_dir(tmp_path, ".out.tmp-")  # this process's own: still in use
    removed = remove_dead_temp_dirs(tmp_path, ".out.tmp-")
    assert sorted(p.name for p in removed) == sorted([leftover.name, empty.name])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([mine.name, foreign.name, live.name])
    assert (mine / "notes.txt").read_text() == "keep"
    (live / TEMP_MARKER).write_text(f"{os.getpid()} 1\n")  # this pid, but another process's start time
    assert [p.name for p in remove_dead_temp_dirs(tmp_path, ".out.tmp-")] == [live.name]


# --- pair: nothing left running, memory bounded, temporary files gone ------------------------------------------

PAIRS = DATA / "pairs"
_FORKS = '''import os, subprocess, sys, time
TAG = "tfcompare-test-leftover-{tag}"
if os.fork() == 0:  # a child that detaches into its own session
    os.setsid()
    os.execvp(sys.executable, [sys.executable, "-c", "import time; time.sleep(300)", TAG + "-setsid"])
if os.fork() == 0:  # a daemon: the middle process exits at once, the grandchild lives on
    if os.fork() == 0:
        os.setsid()
        os.execvp(sys.executable, [sys.executable, "-c", "import time; time.sleep(300)", TAG + "-daemon"])
    os._exit(0)
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", TAG + "-popen"], start_new_session=True)
time.sleep(0.3)
'''


def _tagged(tag: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        try:
            cmd = (Path("/proc") / pid / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if tag in cmd and "pytest" not in cmd:
            found.append(cmd)
    return found


def test_pair_kills_what_a_script_forked_or_detached_and_leaves_no_temporary_file(tmp_path):
    from tfcompare.scripts.pair import AGREE, PairOptions, pair_scripts

    tag = f"tfcompare-test-leftover-{os.getpid()}"
    script = tmp_path / "tf1_forks.py"
    script.write_text(_FORKS.format(tag=os.getpid()) + (PAIRS / "tf1_logreg.py").read_text())
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    killed = tmp / f"tfcompare-pair-{int(dead.stdout)}-abcd1234"  # what a SIGKILLed pair left
    killed.mkdir()
    (killed / ".tfcompare-temp").write_text(f"{int(dead.stdout)} 1\n")
    code = ("from tfcompare.scripts.pair import pair_scripts, PairOptions;"
            f"r = pair_scripts({str(script)!r}, {str(PAIRS / 'tf2_logreg.py')!r}, PairOptions(steps=1));"
            "print(r.status, r.error)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=180)
    assert done.stdout.startswith(AGREE), done.stdout + done.stderr[-2000:]
    assert _tagged(tag) == []  # the setsid child, the daemon and the detached Popen: all gone
    assert list(tmp.iterdir()) == []  # its own folder, AutoGraph's generated files, and the killed pair's folder


def test_a_pair_script_that_allocates_without_bound_is_stopped_at_its_memory_limit(tmp_path, monkeypatch):
    from tfcompare.scripts.child import processes

    script = tmp_path / "tf1_hog.py"
    script.write_text("chunks = []\nwhile True:\n    chunks.append(bytearray(b'x') * 50_000_000)\n")
    monkeypatch.setattr(processes, "memory_limit", lambda: 1_500_000_000)
    started = time.monotonic()
    result = CliRunner().invoke(cli, ["pair", str(script), str(PAIRS / "tf2_logreg.py"), "--logdir",
                                      str(tmp_path / "logs")])
    assert result.exit_code == 3, result.output
    # one limit for both sides together (issue 34); TF2's side holds its TensorFlow meanwhile
    assert "could not compare: the scripts used more than 1.5 GB of memory together (TF1 " in result.output
    assert time.monotonic() - started < 60
    assert _tagged(str(script)) == []


def _started(tmp: Path, pattern: str, proc, seconds=120) -> bool:
    return _wait(lambda: bool(list(tmp.glob(pattern))), proc, seconds)


def test_sigterm_of_a_distributed_run_stops_it_as_ctrl_c_does_and_leaves_no_temporary_file(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp), TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.Popen([sys.executable, "-m", "tfcompare", "run", "--case", "linear", "--mode", "tf1-graph",
                             "--distributed", "1", "--logdir", str(tmp_path / "logs"), "--run-name", "d", *QUICK],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
    assert _started(tmp, "tfcompare-*/tfcompare-tf*-*/spec-*.json", proc)  # a worker is running
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err[-2000:]
    doc = _results(tmp_path / "logs" / "d" / "results.json")
    assert doc["interrupted"] is True and doc["complete"] is False
    assert list(tmp.iterdir()) == [] and _tagged(str(tmp)) == []  # no worker of this run (others may be running)


def test_a_killed_pair_leaves_no_process_and_the_next_command_removes_its_folder(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp), TF_CPP_MIN_LOG_LEVEL="3")
    script = tmp_path / "tf1_waits.py"
    tag = f"tfcompare-test-stray-{os.getpid()}"
    script.write_text("import os, subprocess, sys, time\n"  # a detached child outlives even a SIGKILLed tfcompare
                      f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', {tag!r}], "
                      "start_new_session=True)\nwhile True:\n    time.sleep(0.1)\n")
    proc = subprocess.Popen([sys.executable, "-m", "tfcompare", "pair", str(script), str(PAIRS / "tf2_logreg.py"),
                             "--logdir", str(tmp_path / "logs")], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env)
    assert _started(tmp, "tfcompare-*/tfcompare-pair-*/tf1.out", proc)
    assert _wait(lambda: _tagged(tag) != [], proc, 120)
    proc.kill()
    proc.wait(timeout=30)
    assert _within(lambda: _tagged(str(script)) == [], 10)  # the children die with their parent
    assert _within(lambda: _tagged(tag) == [], 10)  # what it detached: killed by its keeper (issue 34)
    assert len(list(tmp.glob("tfcompare-*/tfcompare-pair-*"))) == 1  # left by the kill
    mine = tmp / "tfcompare-999999-mine"  # the user's own folder, named like one of ours
    mine.mkdir()
    listed = subprocess.run([sys.executable, "-m", "tfcompare", "pitfalls", "--only", "nope"], env=env,
                            capture_output=True, timeout=60)
    assert listed.returncode == 2
    assert [p.name for p in tmp.iterdir()] == [mine.name]
    assert _tagged(tag) == []  # stopped by the next command


# --- a verdict must be true ---------------------------------------------------------------------------------

def test_a_rerun_that_differs_only_in_its_last_bits_is_noise_not_a_leak():
    """Two runs from the same state with a large batch over threads differ in the last bits (reduction order,
    seen at --batch-size 2000000 on `linear`); a leak moves numbers the comparison can see."""
    from tfcompare.core.equivalence import TOLERANCES, leak, rerun_difference

    rng = np.random.default_rng(0)
    first = {"losses": rng.standard_normal(3).astype(np.float32), "weights['w']": rng.standard_normal((4, 1))}
    reordered = {k: v * (1 + 3e-7) for k, v in first.items()}  # a few float32 ulps
    leaked = {"losses": first["losses"], "weights['w']": first["weights['w']"] * 1.01}
    tol = TOLERANCES["float32"]
    assert leak(first, reordered, [], tol) is None
    assert 0 < rerun_difference(first, reordered) < 1e-5
    assert leak(first, reordered, []).startswith("state is leaking")  # bit-identity alone would blame it
    assert leak(first, leaked, [], tol) == ("state is leaking: a second run from the restored state differs in "
                                            "weights['w'] beyond rtol=0.0001 atol=1e-05; the difference is outside the "
                                            "model's variables (Python-side state or a random generator)")


def test_the_memory_floor_counts_the_largest_activation_and_names_the_option(workdir, monkeypatch):
    from tfcompare.core.budget import run_floor_bytes
    from tfcompare.registry import CASES
    from tfcompare.run import harness

    cnn = CASES["cnn"]
    batches = run_floor_bytes(cnn.inputs, batch_size=40_000, steps=2, modes=4, loop_modes=0, loop_steps=10)
    activation = harness.largest_activation(cnn, 40_000, 60)
    assert activation == 40_000 * 8 * 8 * 32 * 4  # its first conv's output: 8x8x32 float32 per example
    monkeypatch.setattr(harness, "available_bytes", lambda: batches + activation // 2)  # the batches alone fit
    result = CliRunner().invoke(cli, ["run", "--case", "cnn", "--batch-size", "40000", "--quick", "--steps", "2"])
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--batch-size': case 'cnn' at batch size 40000 with 2 steps needs at least " \
           f"{(batches + activation) / 2**30:.3g} GiB for its batches and its largest activation " \
           f"({activation / 2**30:.3g} GiB)" in " ".join(result.output.split())
    assert not (workdir / "logs").exists()


def test_a_pair_scripts_traceback_shows_its_own_lines_and_the_library_not_tfcompare(tmp_path):
    from tfcompare.scripts.child.main import _user_traceback

    script = tmp_path / "tf1_script.py"
    script.write_text("from tfcompare.core.equivalence import tolerance\n\ntolerance('float16')\n")
    try:
        exec(compile(script.read_text(), str(script), "exec"), {})
    except KeyError as exc:
        text = _user_traceback(exc, str(script))
    assert f'File "{script}", line 3, in <module>' in text and text.endswith("KeyError: 'float16'\n")
    assert "tfcompare" + os.sep not in text.replace(str(script), "")


def test_a_target_that_calls_os_exit_is_reported_not_ended_with_it(tmp_path, monkeypatch):
    class ProcessEnded(BaseException):
        """What os._exit would have done to tfcompare (in the test, an exception instead of the end of pytest)."""

    def ended(code):
        raise ProcessEnded(code)
    monkeypatch.setattr(os, "_exit", ended)
    script = tmp_path / "exits.py"
    script.write_text("import os\nimport tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x * 2\n\n"
                      "for i in range(3):\n    f(float(i))\nos._exit(7)\n")
    result = CliRunner().invoke(cli, ["audit", str(script), "--json"])
    # exit 3: a target that ends with a non-zero code failed (as with sys.exit(7)); the report is still whole
    assert result.exit_code == 3 and not isinstance(result.exception, ProcessEnded), result.output
    doc = json.loads(result.output)
    assert doc["exit_code"] == 7 and [f["traces"] for f in doc["functions"]] == [3]
    assert os._exit is ended  # put back after the target
