"""`tfcompare debug` on real TensorFlow: the first non-finite op per mode, the Grappler pass that changes a graph's
result, the step each mode leaves tf1-graph, per-pass and HLO dumps, a Debugger V2 dump read by a real
TensorBoard, and the step run eagerly on request."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.core.cases import load_cases_file
from tfcompare.registry import DEBUG_CASES
from tfcompare.report.server import TensorBoard
from tfcompare.tools.debug import DebugOptions, debug_case

DATA = Path(__file__).parent / "data"
MINE = {c.name: c for c in load_cases_file(DATA / "debug_cases.py")}


def test_the_first_non_finite_op_per_mode_and_the_modes_that_stay_finite():
    found = {f.mode: f for f in debug_case(DEBUG_CASES["offset-log"], DebugOptions()).numerics}
    eager = found["tf2-eager"]
    assert (eager.finite, eager.step, eager.op_type, eager.op_name, eager.kind) == (False, 1, "Log", "Log", "-Inf")
    assert eager.source.endswith("eager_models/offset.py:21 (loss)")
    assert all(found[m].finite for m in ("tf1-graph", "tf2-function", "tf2-xla"))  # constants folded: exact
    sqrt = {f.mode: f for f in debug_case(MINE["sqrt-negative"], DebugOptions()).numerics}
    for mode, row in sqrt.items():  # NaN in every mode, at the same op, from step 1
        assert (row.finite, row.step, row.op_type, row.kind) == (False, 1, "Sqrt", "NaN"), (mode, row)
        assert row.source.endswith("tests/data/debug_cases.py:19 (_sqrt_graph)" if mode == "tf1-graph"
                                   else "tests/data/debug_cases.py:26 (__call__)"), (mode, row.source)
    assert sqrt["tf1-graph"].op_name == "Sqrt" and "fetching every floating-point output" in sqrt["tf1-graph"].how
    assert sqrt["tf2-function"].op_name == "Sqrt" and "located with the same step run eagerly" in sqrt["tf2-xla"].how


def test_a_nan_only_in_the_forward_output_is_found_and_all_nan_is_not_agreement():
    found = debug_case(MINE["sqrt-output"], DebugOptions())
    for row in found.numerics:  # every step is finite; the output the comparison reads is not
        assert (row.finite, row.step, row.op_type, row.kind, row.comparison) == (
            False, None, "Sqrt", "NaN", {"forward": "4 of 8"}), row
        assert row.source.endswith("tests/data/debug_cases.py:58 (_sqrt_output_graph)" if row.mode == "tf1-graph"
                                   else "tests/data/debug_cases.py:65 (__call__)"), row.source
        assert not row.line().startswith(f"numerics {row.mode}: finite")
    assert all(g.both_non_finite == {"forward": "4 of 8"} and "not compared" in g.line() for g in found.grappler)
    assert found.failed() is False  # the steps compare: they are finite, and the numerics lines say the rest
    nan = debug_case(MINE["sqrt-negative"], DebugOptions(modes=("tf1-graph", "tf2-eager", "tf2-function")))
    assert [(d.mode, d.non_finite_step, d.non_finite, d.first_step) for d in nan.divergence] == [
        ("tf2-eager", 1, ["loss", "w"], None), ("tf2-function", 1, ["loss", "w"], None)]
    lines = "\n".join(nan.lines())
    assert "within tolerance" not in lines and "agrees with" not in lines and "the same NaN is not agreement" in lines
    assert nan.failed()  # nothing could be compared: a non-zero exit
    masked = debug_case(MINE["masked-output"], DebugOptions(modes=("tf1-graph", "tf2-eager")))
    assert [(g.mode, g.differs, g.both_non_finite) for g in masked.grappler] == [("tf1-graph", False, {})]
    assert masked.grappler[0].line() == "grappler tf1-graph: agrees with tf2-eager (no bisection needed)"
    assert masked.numerics[0].comparison == {"forward": "4 of 8"} and not masked.failed()  # -inf is a fact, not NaN


def test_the_bisection_names_constant_folding_every_run_and_dumps_every_pass(tmp_path):
    runs = []
    for i in range(2):
        options = DebugOptions(modes=("tf1-graph", "tf2-eager", "tf2-function", "tf2-xla"),
                               dump=tmp_path / f"dump{i}" if i == 0 else None)
        runs.append(debug_case(DEBUG_CASES["offset"], options))
    for report in runs:
        searches = {g.mode: g for g in report.grappler}
        for mode in ("tf1-graph", "tf2-function"):
            assert searches[mode].differs and searches[mode].error_before == "forward: max abs err 2.42"
            assert searches[mode].culprits == ["constant_folding"] and searches[mode].all_off["agrees"]
            assert len(searches[mode].passes) == 13
        steps = {d.mode: d for d in report.divergence}
        assert steps["tf2-eager"].first_step == 1 and steps["tf2-eager"].left_first[0] in ("loss", "w")
        assert steps["tf2-function"].first_step is None and steps["tf2-xla"].first_step is None
    dumped = runs[0].dumps
    stages = ["00-as-built", "01-after-pruning", "02-after-function", "03-after-common_subgraph_elimination",
              "04-after-debug_stripper", "05-after-constfold", "06-after-shape", "07-after-arithmetic",
              "08-after-layout", "09-after-remap", "10-after-loop", "11-after-dependency", "12-after-memory"]
    for mode in ("tf1-graph", "tf2-function"):
        assert [Path(f).stem for f in dumped[mode]] == stages
        before, after = (Path(dumped[mode][i]).read_text() for i in (4, 5))
        assert before.count('op: "Sub"') > after.count('op: "Sub"')  # constant folding took (x + c) - c apart
    assert [Path(f).name for f in dumped["tf2-xla"]] == ["hlo.txt", "optimized_hlo.txt"]
    assert "HloModule" in Path(dumped["tf2-xla"][0]).read_text()


def test_eager_functions_run_the_python_step_every_call():
    counting = MINE["counting"]
    cls = counting.make_model  # the model class, which counts its Python loss runs
    cls.runs = 0
    debug_case(counting, DebugOptions(modes=("tf1-graph", "tf2-function"), steps=4))
    traced = cls.runs
    cls.runs = 0
    report = debug_case(counting, DebugOptions(modes=("tf1-graph", "tf2-function"), steps=4, eager_functions=True))
    assert cls.runs > traced + 4  # every call ran the Python body (4 steps, twice, plus checks), not only traces
    assert any("breakpoint() in the step stops" in n for n in report.notes)


@pytest.mark.server
def test_the_cli_writes_findings_and_a_debugger_v2_dump_that_tensorboard_reads(tmp_path):
    result = CliRunner().invoke(cli, ["debug", "offset-log", "--mode", "tf2-eager", "--debugger-v2", "--logdir",
                                      str(tmp_path), "--run-name", "dbg"])
    assert result.exit_code == 0, result.output
    assert ("numerics tf2-eager: first non-finite value (-Inf) at step 1 of 3 (and on the comparison batch: "
            "gradients['w']: 8 of 8 values non-finite): op 'Log' (Log) at " in result.stdout)
    with TensorBoard(tmp_path / "dbg", reload_interval=1) as board:
        digests, tags = 0, {}
        deadline = time.time() + 60
        while time.time() < deadline and digests <= 10:  # the server loads the dump in parts: wait for all of it
            runs = json.loads(urllib.request.urlopen(board.url + "/data/plugin/debugger-v2/runs").read())
            if runs:
                run = next(iter(runs))
                digests = json.loads(urllib.request.urlopen(
                    f"{board.url}/data/plugin/debugger-v2/execution/digests?run={run}&begin=0&end=-1").read())[
                    "num_digests"]
            time.sleep(0.5)
        tags = json.loads(urllib.request.urlopen(board.url + "/data/plugin/text/tags").read())
    assert digests > 10  # the eager ops of three steps, each one recorded
    assert tags == {".": ["debug/findings"]}


@pytest.mark.parametrize("args,message", [
    (["nope"], "unknown case 'nope'; choose from"),
    (["offset", "--mode", "tf2-loop"], "'tf2-loop' is not one of"),
    (["offset", "--steps", "0"], "0 is not in the range 1<=x<=1000"),
    (["offset", "--dump", "{full}"], "is not empty (or not a folder)"),
    (["offset", "--dump", "{file}/sub"], "is not writable"),
    (["offset", "--dump", " "], "the dump folder name is empty"),
    (["offset", "--mode-timeout", "0"], "0 is not in the range x>0"),
    (["offset", "--mode-timeout", "nan"], "nan is not a number of seconds"),
])
def test_bad_input_is_a_usage_error_naming_the_value(tmp_path, args, message):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    (tmp_path / "file").write_text("")
    args = [a.format(full=tmp_path / "full", file=tmp_path / "file") for a in args]
    result = CliRunner().invoke(cli, ["debug", *args, "--logdir", str(tmp_path / "logs")])
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_a_case_that_fails_before_any_step_is_reported_per_mode(tmp_path):
    result = CliRunner().invoke(cli, ["debug", "broken", "--cases-file", str(DATA / "debug_cases.py"), "--json",
                                      "--logdir", str(tmp_path)])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert [f["mode"] for f in doc["numerics"]] == ["tf1-graph", "tf2-eager", "tf2-function", "tf2-xla"]
    assert all(f["error"].startswith("case set-up failed: RuntimeError: weights file missing") for f in doc["numerics"])


def test_the_dump_keeps_the_output_the_bisection_points_at(tmp_path):
    report = debug_case(MINE["offset-output"], DebugOptions(modes=("tf1-graph", "tf2-function"), dump=tmp_path))
    for search in report.grappler:  # the step is untouched: only the forward output differs
        assert search.culprits == ["constant_folding"] and search.error_before.startswith("forward: ")
    for mode in ("tf1-graph", "tf2-function"):
        before, after = (Path(report.dumps[mode][i]).read_text() for i in (4, 5))
        assert "float_val: 100000000.0" in before and before.count('op: "Sub"') > after.count('op: "Sub"'), mode
        assert (f"dump {mode}: constant_folding's rewrite is between 04-after-debug_stripper.pbtxt and "
                f"05-after-constfold.pbtxt") in "\n".join(report.notes)


def test_a_hanging_mode_times_out_and_ctrl_c_keeps_what_finished(tmp_path):
    # trouble-hang blocks forever inside a tf.py_function in every TF2 step: tf2-eager passes its limit, then
    # Ctrl-C lands while tf2-function hangs
    proc = subprocess.Popen(
        [sys.executable, "-m", "tfcompare", "debug", "trouble-hang", "--cases-file", str(DATA / "trouble_cases.py"),
         "--mode", "tf1-graph", "--mode", "tf2-eager", "--mode", "tf2-function", "--steps", "1",
         "--mode-timeout", "3", "--logdir", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1", TF_CPP_MIN_LOG_LEVEL="3"))
    for line in proc.stderr:
        if "trouble-hang: tf2-function: building" in line:
            time.sleep(0.5)
            sent = time.time()
            proc.send_signal(signal.SIGINT)
            break
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130 and time.time() - sent < 10, out
    assert out.splitlines()[:3] == [
        "numerics tf1-graph: finite: the forward output and gradients on the comparison batch, and 1 step",
        "numerics tf2-eager: error: timed out after 3 s (trouble-hang/tf2-eager: build and steps)",
        "interrupted (Ctrl-C): the findings above are the ones that finished"]


def test_the_json_of_a_nan_finding_is_strict_json():
    # a diverging mode's losses are NaN from some step: written as "nan", as in results.json (json.dumps alone
    # wrote the token NaN, which strict JSON readers refuse)
    from tfcompare.tools.debug.report import DebugReport, Divergence
    report = DebugReport("c", ["tf2-eager"], 3, "rtol=0.0001 atol=1e-05", divergence=[Divergence(
        "tf2-eager", "tf1-graph", 3, 2, ["loss"], [1.0, float("nan"), float("inf")], [1.0, 0.5, 0.25])])
    doc = json.loads(report.json_text(), parse_constant=lambda token: pytest.fail(f"invalid JSON token {token}"))
    assert doc["divergence"][0]["losses"] == [1.0, "nan", "inf"]
