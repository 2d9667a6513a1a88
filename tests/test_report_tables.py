"""The run table on injected results: one unit per limit column, the NOISY legend under the rows, and where
the run wrote its picture."""

from pathlib import Path

from tfcompare.core.results import ModeResult, RunResult
from tfcompare.core.timing import NOISY_HALF_WIDTH
from tfcompare.report.tables import NOISY_LEGEND, markdown_table, table, where_text


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


def _cells(text: str) -> dict:
    lines = text.splitlines()
    starts = [i for i, c in enumerate(lines[1]) if c == "-" and (i == 0 or lines[1][i - 1] == " ")]
    ends = starts[1:] + [None]
    head = [lines[0][a:b].strip() for a, b in zip(starts, ends)]
    return {(row[0], row[1]): row for row in ([lines[n][a:b].strip() for a, b in zip(starts, ends)]
                                              for n in range(2, 6))} | {"head": head}


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
