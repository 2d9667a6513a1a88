"""The command line: bad input is a usage error (exit 2) naming the value; good input runs."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.core.modes import MODES
from tfcompare.registry import CASES
from tfcompare.report.glossary import words_line

QUICK = ["--quick", "--repeats", "3", "--steps", "2"]


def invoke(*args):
    return CliRunner().invoke(cli, list(args))


def test_list_shows_every_case_and_mode():
    result = invoke("list")
    assert result.exit_code == 0
    for name, case in CASES.items():
        assert f"{name}" in result.output and case.description in result.output
    for name in MODES:
        assert name in result.output


@pytest.mark.parametrize("args,needle", [
    (["run", "--case", "nope"], "unknown case 'nope'; choose from linear, mlp, elementwise, matmul"),
    (["run", "--mode", "tf3"], "'tf3' is not one of 'tf1-graph', 'tf2-eager'"),
    (["run", "--steps", "0"], "Invalid value for '--steps': 0 is not in the range x>=1"),
    (["run", "--batch-size", "-4"], "Invalid value for '--batch-size': -4 is not in the range x>=1"),
    (["run", "--repeats", "0"], "Invalid value for '--repeats'"),
    (["run", "--loop-steps", "0"], "Invalid value for '--loop-steps'"),
    (["run", "--run-name", "a/b"], "must be a plain folder name"),
    (["run", "--cases-file", "tests/data/missing.py"], "cases file 'tests/data/missing.py' does not exist"),
    (["run", "--cases-file", "tests/data/no_cases.py"], "defines no Case"),
    (["run", "--cases-file", "tests/data/bad_import.py"],
     "failed to import: ModuleNotFoundError: No module named 'module_that_does_not_exist'"),
])
def test_bad_input_is_a_usage_error(args, needle):
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert needle in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_unwritable_logdir_fails_before_any_work(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = invoke("run", "--case", "linear", "--logdir", str(blocker / "logs"))
    assert result.exit_code == 2
    assert "cannot write to" in result.output and "--logdir" in result.output


def test_run_json_and_cases_file(tmp_path):
    result = invoke("run", "--cases-file", "tests/data/user_cases.py", "--case", "user-regression",
                    "--case", "user-mismatch", "--mode", "tf1-graph", "--mode", "tf2-function",
                    "--logdir", str(tmp_path), "--run-name", "r1", "--json", *QUICK)
    assert result.exit_code == 1  # the mismatch case makes the run fail
    doc = json.loads(result.stdout)
    statuses = {(r["case"], r["mode"]): r["status"] for r in doc["results"]}
    assert statuses == {("user-regression", "tf1-graph"): "ok", ("user-regression", "tf2-function"): "ok",
                        ("user-mismatch", "tf1-graph"): "ok", ("user-mismatch", "tf2-function"): "mismatch"}
    assert json.loads((tmp_path / "r1" / "results.json").read_text())["results"] == doc["results"]


def test_table_output(tmp_path):
    result = invoke("run", "--case", "linear", "--mode", "tf1-graph", "--mode", "tf2-eager",
                    "--logdir", str(tmp_path), *QUICK)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split()[:4] == ["case", "mode", "first", "call"]
    assert lines[2].split()[:2] == ["linear", "tf1-graph"] and "1.00x" in lines[2]
    assert lines[3].split()[:2] == ["linear", "tf2-eager"]
    assert lines[4].startswith("NOISY = ")  # the legend, right under the rows
    assert "CPU only" in result.stdout or "GPU" in result.stdout
    picture = next(line for line in lines if line.startswith("picture: ")).split(": ", 1)[1]
    assert Path(picture).is_absolute() and Path(picture).read_bytes()[:4] == b"\x89PNG"
    assert json.loads(next(tmp_path.glob("*/results.json")).read_text())["picture"] == picture
    # what peak mem counts, measured in tests/test_core_memory.py, under the table
    assert any(line.startswith("peak mem = ") and "the BFC allocator counts every buffer" in line for line in lines)
    # the last line names the glossary words the text used, once
    assert lines[-1] == words_line("\n".join(lines[:-1]))
    assert lines[-1].startswith("words: first call vs steady state, median, ")
    assert "eager execution" in lines[-1] and lines[-1].endswith(": see README.md#glossary")
    assert sum(line.startswith("words: ") for line in lines) == 1


def test_a_quick_run_says_its_step_count_and_a_busy_machine_is_warned_of_once(tmp_path, monkeypatch):
    from tfcompare.core import environment

    real = environment.machine_load
    monkeypatch.setattr(environment, "machine_load", lambda *a: real(*a) | {"busy": True, "warning": "the machine was busy"})
    result = invoke("run", "--case", "linear", "--mode", "tf1-graph", "--logdir", str(tmp_path), "--quick",
                    "--repeats", "3")
    assert result.exit_code == 0, result.output
    assert "[1/1] linear: equivalence over 3 steps (--quick's default; 5 without --quick)" in result.stderr
    assert result.output.lower().count("the machine was busy") == 1
    assert "Warning: the machine was busy." in result.stdout.splitlines()
    as_json = invoke("run", "--case", "linear", "--mode", "tf1-graph", "--logdir", str(tmp_path), "--quick",
                     "--repeats", "3", "--steps", "2", "--json")
    assert "equivalence over 2 steps\n" in as_json.stderr and as_json.stderr.count("the machine was busy") == 1
