"""The run table on injected results: one unit per limit column, the NOISY legend under the rows, the speed
against eager beside the speed against tf1, and where the run wrote its picture."""

from pathlib import Path

import pytest

from tfcompare.core.results import ModeResult, RunResult
from tfcompare.core.timing import NOISY_HALF_WIDTH
from tfcompare.report.tables import NOISY_LEGEND, markdown_table, table, where_text
from tfcompare.report.tensorboard import mode_scalars
from tfcompare.run.measure import _record_speed

_EAGER = "x eager (95% CI)"


def _result(**extra):
    rows = [ModeResult(case="mm", mode="tf1-graph", step_median_s=2e-3, speedup_vs_tf1_graph=1.0, noisy=False,
                       fraction_of_peak=0.66, us_per_op=120.0),
            ModeResult(case="mm", mode="tf2-eager", step_median_s=4e-3, speedup_vs_tf1_graph=0.5,
                       speedup_ci=[0.4, 0.6], noisy=True, fraction_of_peak=0.33, us_per_op=240.0),
            ModeResult(case="ew", mode="tf2-loop", step_median_s=1e-4, speedup_vs_tf1_graph=2.0, noisy=False,
                       fraction_of_peak=0.01, us_per_op=1.5),
            ModeResult(case="ew", mode="tf2-xla-loop", step_median_s=1e-4, speedup_vs_tf1_graph=2.0, noisy=False,
                       fraction_of_peak=0.06, flops_lower_bound=True, us_per_op=1.5)]
    return RunResult(run_name="t", run_dir="/tmp/t", config={}, environment={"gemm_peak_gflops": 100.0},
                     results=rows, **extra)


def _cells(text: str, rows: int = 4) -> dict:
    lines = text.splitlines()
    starts = [i for i, c in enumerate(lines[1]) if c == "-" and (i == 0 or lines[1][i - 1] == " ")]
    ends = starts[1:] + [None]
    head = [lines[0][a:b].strip() for a, b in zip(starts, ends)]
    return {(row[0], row[1]): row for row in ([lines[n][a:b].strip() for a, b in zip(starts, ends)]
                                              for n in range(2, 2 + rows))} | {"head": head}


def test_the_limit_is_two_columns_with_one_unit_each():
    cells = _cells(table(_result()))
    head = cells["head"]
    assert "limit" not in head and {"of peak", "µs/op"} <= set(head)
    peak, per_op = head.index("of peak"), head.index("µs/op")
    # a step that computes (>= 5% of the GEMM rate) fills "of peak"; an op-bound one fills "µs/op"
    assert cells[("mm", "tf2-eager")][peak] == "33%" and cells[("mm", "tf2-eager")][per_op] == "-"
    assert cells[("ew", "tf2-loop")][peak] == "-" and cells[("ew", "tf2-loop")][per_op] == "1.5"
    for key, row in cells.items():
        if key != "head":
            assert row[peak] == "-" or row[peak].rstrip("+").endswith("%"), row
            assert row[per_op] == "-" or float(row[per_op]) > 0, row
    assert "vs tf1 (>1 is faster; 95% CI)" in head
    assert cells[("ew", "tf2-xla-loop")][peak] == "6%+"  # loops counted once: a lower bound
    assert cells[("ew", "tf2-loop")][head.index("vs tf1 (>1 is faster; 95% CI)")] == "2.00x"
    assert "| of peak | µs/op |" in markdown_table(_result())


def test_the_noisy_legend_is_the_line_under_the_table():
    lines = table(_result()).splitlines()
    assert lines[6] == NOISY_LEGEND  # header, rule, four rows, then the legend
    assert f"\u00b1{NOISY_HALF_WIDTH:.0%} of its median" in NOISY_LEGEND and "95% interval" in NOISY_LEGEND
    assert sum("NOISY" in line for line in lines[2:6]) == 1


def test_the_run_says_where_its_picture_is():
    drawn = where_text(_result(picture="/tmp/t/summary.png"), "logs")
    assert "picture: /tmp/t/summary.png" in drawn.splitlines()
    assert "results: /tmp/t/results.json" in drawn and "tensorboard --logdir logs" in drawn
    assert "picture: not drawn" in where_text(_result(), "logs")
    assert Path(_result(picture="/tmp/t/summary.png").to_json()["picture"]).is_absolute()


def _timed(case, mode, ms):
    """A row timed in six interleaved rounds (per-round step times in milliseconds)."""
    times = [t * 1e-3 for t in ms]
    middle = sorted(times)[2:4]
    return ModeResult(case=case, mode=mode, step_times_s=times, step_median_s=(middle[0] + middle[1]) / 2)


def test_each_mode_is_set_against_the_eager_mode_of_its_case():
    rows = [_timed("mm", "tf1-graph", [1.0] * 6), _timed("mm", "tf2-eager", [4.0, 4.1, 3.9, 4.2, 4.0, 3.8]),
            _timed("mm", "tf2-function", [2.0] * 6),  # per round: eager / 2.0 = 2.0, 2.05, 1.95, 2.1, 2.0, 1.9
            _timed("ew", "tf1-graph", [1.0] * 6), _timed("ew", "tf2-function", [2.0] * 6)]  # ew ran no eager
    for row in rows:
        case = {r.mode: r for r in rows if r.case == row.case}
        _record_speed(row, case["tf1-graph"], case.get("tf2-eager"))
    tf1, eager, function = rows[:3]
    assert function.speedup_vs_eager == 2.0 and function.speedup_vs_eager_ci == pytest.approx([1.9, 2.1])  # [min, max]
    assert eager.speedup_vs_eager == 1.0 and eager.speedup_vs_eager_ci is None
    assert tf1.speedup_vs_eager == 4.0 and tf1.speedup_vs_eager_ci == pytest.approx([3.8, 4.2])
    assert function.speedup_vs_tf1_graph == 0.5 and function.speedup_ci == [0.5, 0.5]  # the tf1 ratio, as before
    assert rows[4].speedup_vs_eager is None and rows[4].speedup_vs_eager_ci is None

    result = RunResult(run_name="t", run_dir="/tmp/t", config={}, environment={}, results=rows)
    cells = _cells(table(result), rows=5)
    column = cells["head"].index(_EAGER)
    assert cells["head"][column - 1] == "vs tf1 (>1 is faster; 95% CI)"
    assert {key: row[column] for key, row in cells.items() if key != "head"} == {
        ("mm", "tf1-graph"): "4.00x (3.80\u20134.20)", ("mm", "tf2-eager"): "1.00x",
        ("mm", "tf2-function"): "2.00x (1.90\u20132.10)", ("ew", "tf1-graph"): "-", ("ew", "tf2-function"): "-"}
    assert "'x eager' = the same with tf2-eager's block over the mode's" in table(result)
    assert f"| {_EAGER} |" in markdown_table(result) and "| 2.00x (1.90\u20132.10) |" in markdown_table(result)
    doc = result.to_json()["results"][2]  # results.json: the field beside the tf1 ratio's
    assert doc["speedup_vs_eager"] == 2.0 and doc["speedup_vs_eager_ci"] == pytest.approx([1.9, 2.1])
    scalars = mode_scalars(function)  # TensorBoard: beside timing/speedup_vs_tf1_graph
    assert scalars["mm/timing/speedup_vs_eager"] == 2.0
    assert [scalars["mm/timing/speedup_vs_eager_ci_low"], scalars["mm/timing/speedup_vs_eager_ci_high"]] == \
        pytest.approx([1.9, 2.1])
    assert not any("speedup_vs_eager" in tag for tag in mode_scalars(rows[4]))


def test_the_peak_mem_column_says_what_the_allocator_counted():
    method = "allocator peak above the live bytes ...; the BFC allocator counts every buffer"
    result = _result()
    result.environment["memory_method"] = method
    assert f"peak mem = {method}." in table(result).splitlines()
    assert markdown_table(result).splitlines()[-1] == f"peak mem = {method}."
    assert "peak mem =" not in table(_result())  # an old results.json without the field: no legend line


def test_the_loop_marks_are_explained_only_when_a_row_carries_one_and_a_loop_step_is_per_step():
    with_mark = table(_result())
    assert "'+' = loops counted once (a lower bound)" in with_mark  # ew tf2-xla-loop shows 6%+
    assert ("median step = the time of one training step; a loop mode (tf2-loop, tf2-xla-loop) runs K steps per "
            "call (--loop-steps), and its median step is the call's time / K.") in with_mark.splitlines()
    cached = _result()
    cached.environment.update(gemm_now_gflops=90.0, gemm_cached=True)  # its note stays on the line it is about
    peak_line = next(line for line in table(cached).splitlines() if line.startswith("of peak = "))
    assert peak_line.endswith("This run measured 90 GFLOP/s; the limit is the best rate seen on this machine.")
    result = _result()
    result.results = result.results[:2]  # mm only: no '+', no loop mode
    plain = table(result)
    assert "'+'" not in plain and "loop mode" not in plain
    assert "shows µs/op instead = median step / ops per step." in plain and "'*'" not in plain
    result.results[1].flops_lower_bound, result.results[1].fraction_of_peak = True, 0.01  # an op-bound loop step
    looped = table(result)
    assert _cells(looped, rows=2)[("mm", "tf2-eager")][_cells(looped, rows=2)["head"].index("µs/op")] == "240.0*"
    assert looped.splitlines()[-1].endswith(
        "median step / ops per step. '*' = the step's loops (While, If) counted as one op each, their bodies not "
        "entered: an upper bound.") and "'+'" not in looped
