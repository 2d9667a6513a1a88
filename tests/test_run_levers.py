"""The lever report's arithmetic on injected timings, and modes a case cannot run."""

import json

import pytest
from click.testing import CliRunner

from tfcompare.run import harness
from tfcompare.run.levers import lever_table
from tfcompare.core.cases import load_cases_file
from tfcompare.cli import cli
from tfcompare.run.levers import lever_report
from tfcompare.core.results import ModeResult, RunResult

from conftest import QUICK_TEST


def _result(case, medians, **extra):
    rows = [ModeResult(case=case, mode=m, step_median_s=s, noisy=False, **extra) for m, s in medians.items()]
    return RunResult(run_name="t", run_dir="/tmp/t", config={}, environment={}, results=rows)


def test_ratios_gains_and_best_mode():
    result = _result("c", {"tf1-graph": 100e-6, "tf2-eager": 1000e-6, "tf2-function": 200e-6,
                           "tf2-concrete": 160e-6, "tf2-xla": 100e-6, "tf2-loop": 50e-6, "tf2-xla-loop": 40e-6})
    rows = {r.mode: r for r in lever_report(result)}
    assert "tf1-graph" not in rows
    assert rows["tf2-eager"].speedup_vs_tf1 == pytest.approx(0.1)  # 100 / 1000: ten times slower
    assert rows["tf2-eager"].gain_vs_parent is None
    assert rows["tf2-function"].gain_vs_parent == pytest.approx(5.0)  # 1000 / 200
    assert rows["tf2-concrete"].gain_vs_parent == pytest.approx(1.25)  # 200 / 160
    assert rows["tf2-xla"].gain_vs_parent == pytest.approx(2.0)  # over tf2-function
    assert rows["tf2-loop"].speedup_vs_tf1 == pytest.approx(2.0)  # twice as fast
    assert rows["tf2-xla-loop"].gain_vs_parent == pytest.approx(1.25)  # 50 / 40, over tf2-loop
    assert [m for m, r in rows.items() if r.best] == ["tf2-xla-loop"]
    assert rows["tf2-xla-loop"].meets_target is True  # 2.5 >= 1.25
    assert rows["tf2-loop"].meets_target is None  # only the best row carries the verdict


def test_compute_bound_case_misses_the_target_and_says_why():
    result = _result("mm", {"tf1-graph": 3.0e-3, "tf2-eager": 4.2e-3, "tf2-function": 3.1e-3, "tf2-xla": 3.5e-3,
                            "tf2-loop": 2.9e-3})
    rows = lever_report(result)
    best = next(r for r in rows if r.best)
    assert best.mode == "tf2-loop" and best.speedup_vs_tf1 == pytest.approx(3.0 / 2.9)
    assert best.meets_target is False
    text = lever_table(rows)
    assert f"mm: best TF2 mode tf2-loop at {3.0 / 2.9:.2f}x tf1's speed, short of the 1.25x target" in text
    assert f"even eager runs at {3.0 / 4.2:.2f}x tf1's speed" in text and "compute-bound" in text


def test_failed_rows_do_not_enter_the_report():
    result = _result("c", {"tf1-graph": 1e-4, "tf2-function": 2e-4})
    result.results[1].status = "mismatch"
    assert lever_report(result) == []


def test_unsupported_mode_is_skipped_unless_asked_for(tmp_path):
    registry = {c.name: c for c in load_cases_file("tests/data/user_cases.py")}
    config = harness.RunConfig(cases=("user-no-xla",), modes=("tf1-graph", "tf2-function", "tf2-xla"), **QUICK_TEST)
    result = harness.run(config, registry, tmp_path, "skip")
    assert [r.status for r in result.results] == ["ok", "ok", "skipped"]
    assert "no XLA kernel" in result.results[2].error
    assert result.ok
    explicit = CliRunner().invoke(cli, ["run", "--cases-file", "tests/data/user_cases.py", "--case", "user-no-xla",
                                        "--mode", "tf2-xla", "--logdir", str(tmp_path)])
    assert explicit.exit_code == 2
    assert "case 'user-no-xla' does not support mode 'tf2-xla': uses an op with no XLA kernel" in explicit.output


def test_levers_flag_prints_the_report_and_json_carries_it(tmp_path):
    out = CliRunner().invoke(cli, ["run", "--case", "linear", "--levers", "--quick", "--repeats", "3",
                                   "--loop-steps", "3", "--logdir", str(tmp_path), "--run-name", "lv"])
    assert out.exit_code == 0, out.output
    assert "Levers:" in out.stdout and "steps per call (over tf2-function)" in out.stdout
    doc = json.loads((tmp_path / "lv" / "results.json").read_text())
    assert {r["mode"] for r in doc["levers"]} == {"tf2-eager", "tf2-partial", "tf2-function", "tf2-xla", "tf2-concrete",
                                                  "tf2-loop", "tf2-xla-loop"}
    assert sum(r["best"] for r in doc["levers"]) == 1


def test_gains_and_ratios_carry_their_paired_interval():
    tf1 = [100e-6] * 10
    fn = [200e-6] * 9 + [400e-6]  # one slow round
    xla = [100e-6] * 8 + [50e-6, 200e-6]
    rows = [ModeResult(case="c", mode=m, step_median_s=float(sorted(t)[4] + sorted(t)[5]) / 2, step_times_s=t)
            for m, t in (("tf1-graph", tf1), ("tf2-function", fn), ("tf2-xla", xla))]
    found = {r.mode: r for r in lever_report(RunResult(run_name="t", run_dir="/tmp/t", config={}, environment={},
                                                       results=rows))}
    # n = 10: the 95% interval is [2nd smallest, 2nd largest] of the per-round ratios
    assert found["tf2-function"].speedup_vs_tf1 == pytest.approx(0.5) and found["tf2-function"].speedup_ci == [0.5, 0.5]
    assert found["tf2-xla"].gain_vs_parent == pytest.approx(2.0)  # per round: 2, ..., 2, 4, 2
    assert found["tf2-xla"].gain_ci == pytest.approx([2.0, 2.0])
    assert found["tf2-xla"].speedup_ci == pytest.approx([1.0, 1.0])
    assert found["tf2-xla"].meets_target is False  # the whole interval is below 1.25
    assert "2.00x (2.00\u20132.00)" in lever_table(list(found.values()))


def test_the_lever_table_says_greater_than_one_is_faster_and_a_lever_twice_as_fast_shows_two():
    result = _result("c", {"tf1-graph": 100e-6, "tf2-eager": 400e-6, "tf2-function": 100e-6, "tf2-loop": 50e-6})
    rows = {r.mode: r for r in lever_report(result)}
    lines = lever_table(list(rows.values())).splitlines()
    assert "vs tf1 (>1 is faster; 95% CI)" in lines[0] and "x tf1 time" not in "\n".join(lines)
    cells = {line.split()[1]: line.split() for line in lines[2:5]}
    assert cells["tf2-loop"][4] == "2.00x"  # tf1 step 100 us / this step 50 us: twice as fast
    assert cells["tf2-eager"][4] == "0.25x"  # four times as slow
    assert "2.00x" in cells["tf2-loop"][5:]  # the loop's gain over tf2-function, the same convention
    assert rows["tf2-loop"].to_json()["speedup_vs_tf1"] == pytest.approx(2.0) and rows["tf2-loop"].meets_target
    assert any(line.startswith("noisy = ") and "5%" in line for line in lines)


def test_the_lever_table_heads_its_best_column_and_defines_each_form_of_best():
    result = _result("c", {"tf1-graph": 100e-6, "tf2-eager": 400e-6, "tf2-function": 100e-6, "tf2-loop": 50e-6})
    lines = lever_table(lever_report(result)).splitlines()
    assert lines[0].split()[-2:] == ["best", "noisy"]
    assert lines[4].split()[-3:] == ["BEST", ">=", "target"]  # tf2-loop: 2.00x, its interval wholly above 1.25x
    assert ("best = the case's fastest TF2 mode: BEST >= target when the whole 95% interval of its vs tf1 is at or "
            "above 1.25x, BEST < target when the whole interval is below it, plain BEST when the interval straddles "
            "it (or the case has no tf1-graph row to judge against).") in lines
    assert ("step = the median time of one training step; a loop mode (tf2-loop, tf2-xla-loop) runs K steps per "
            "call (--loop-steps), and its step is the call's time / K.") in lines
