"""The run picture: an overview first, and no text that overlaps other text or leaves the figure."""

import itertools

import matplotlib

import pytest

from tfcompare.core.modes import MODES
from tfcompare.core.results import ModeResult, RunResult
from tfcompare.report.picture import overview_cell, summary_figure, summary_png

_MODES = ("tf1-graph", "tf2-eager", "tf2-function", "tf2-xla", "tf2-xla-loop")


def _result(n_cases: int, modes=_MODES, eager: bool = False) -> RunResult:
    rows = []
    for i in range(n_cases):
        case = f"case-{i:02d}" + ("-with-a-long-name" if i % 3 == 0 else "")
        for k, mode in enumerate(modes):
            step = 1e-4 * (1 + i) * (1 + k)
            speed = 1.0 / (1 + k) if k else 1.0
            row = ModeResult(case=case, mode=mode, step_median_s=step, step_ci_s=[step * 0.97, step * 1.04],
                             first_call_s=0.05 * (1 + k), speedup_vs_tf1_graph=speed,
                             speedup_ci=None if k == 0 else [speed * 0.98, speed * 1.03])
            if eager and "tf2-eager" in modes:  # eager is mode k=1: the mode's speed against it is (1 + 1) / (1 + k)
                row.speedup_vs_eager = 2.0 / (1 + k)
                row.speedup_vs_eager_ci = None if mode == "tf2-eager" else [row.speedup_vs_eager * 0.9,
                                                                            row.speedup_vs_eager * 1.1]
            if i == 2 and mode == "tf2-xla":
                row.status, row.error = "mismatch", "loss differs"
            if i == 4 and mode == "tf2-eager":
                row.status, row.error, row.step_median_s, row.first_call_s = "error", "boom", None, None
            rows.append(row)
    return RunResult(run_name="20260101-000000", run_dir="/tmp/x", config={"modes": list(modes)},
                     environment={"tf_version": "2.21.0", "intra_op_threads": 2, "load": {"busy": True}},
                     results=rows, complete=True)


def _drawn_texts(fig):
    """Every text the renderer draws, with its extent in pixels."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [t for t in fig.texts if t.get_text()]
    for legend in fig.legends:
        texts += legend.get_texts()
    for ax in fig.axes:
        texts += [t for t in ax.texts if t.get_text()]
        texts += [t for t in (ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label)
                  if t.get_text() and t.get_visible()]
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if tick.label1.get_visible() and tick.label1.get_text() and low <= tick.get_loc() <= high:
                    texts.append(tick.label1)
    return [(t.get_text(), t.get_window_extent(renderer)) for t in texts]


@pytest.mark.parametrize("n_cases,modes,eager", [(1, _MODES, False), (14, tuple(MODES), False),
                                                 (1, _MODES, True), (14, tuple(MODES), True)])  # 14 x every mode
def test_no_text_overlaps_or_leaves_the_figure(n_cases, modes, eager):
    fig = summary_figure(_result(n_cases, modes, eager))
    texts = _drawn_texts(fig)
    width, height = fig.bbox.width, fig.bbox.height
    assert len(texts) > n_cases * len(modes)  # every cell, every case label, the ticks
    for text, box in texts:
        assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= width and box.y1 <= height, f"{text!r} is clipped"
    for (a, box_a), (b, box_b) in itertools.combinations(texts, 2):
        overlap = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0), min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
        assert min(overlap) <= 0.5, f"{a!r} overlaps {b!r}"


def test_overview_cells_say_faster_slower_unsure_and_failures():
    row = ModeResult(case="c", mode="tf2-xla", speedup_vs_tf1_graph=1.25, speedup_ci=[1.2, 1.3])
    assert overview_cell(row) == ("1.25x\n1.20\u20131.30", "#b7e4c7")
    row.speedup_ci = [0.95, 1.3]
    assert overview_cell(row)[1] == "#eeeeee"  # the interval straddles 1: not sure
    row.speedup_vs_tf1_graph, row.speedup_ci = 0.8, [0.7, 0.9]
    assert overview_cell(row) == ("0.80x\n0.70\u20130.90", "#f5b7b1")
    row.status = "mismatch"
    assert overview_cell(row)[0] == "MISMATCH"
    assert overview_cell(ModeResult(case="c", mode="tf1-graph"))[0] == "1 (reference)"
    fig = summary_figure(_result(14))
    assert fig.get_size_inches()[1] < 16  # 14 cases stay one readable page, not a tall stack
    assert summary_png(_result(3))[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_x_eager_grid_stands_beside_the_vs_tf1_one_from_the_same_results():
    from tfcompare.report.picture import eager_cell

    result = _result(3, eager=True)
    fig = summary_figure(result)
    grids = {ax.get_label(): ax for ax in fig.axes if ax.get_label() in ("vs tf1", "x eager")}
    assert list(grids) == ["vs tf1", "x eager"]
    left, right = grids["vs tf1"].get_position(), grids["x eager"].get_position()
    assert right.x0 > left.x1 and (right.y0, right.y1) == pytest.approx((left.y0, left.y1))  # beside it, same rows
    # the cells, read off the axes: text at (column + 0.5, row + 0.5), colour of the patch under it
    texts = {(round(t.get_position()[1] - 0.5), round(t.get_position()[0] - 0.5)): t.get_text()
             for t in grids["x eager"].texts if t.get_position()[1] > 0}
    colours = {(round(p.get_y()), round(p.get_x())): matplotlib.colors.to_hex(p.get_facecolor())
               for p in grids["x eager"].patches}
    assert texts[(0, 0)] == "2.00x\n1.80\u20132.20" and colours[(0, 0)] == "#b7e4c7"  # tf1-graph: 2x eager's speed
    assert texts[(0, 1)] == "1 (reference)" and colours[(0, 1)] == "#ffffff"  # tf2-eager itself
    assert texts[(0, 2)] == "0.67x\n0.60\u20130.73" and colours[(0, 2)] == "#f5b7b1"
    assert texts[(2, 3)] == "MISMATCH"  # case 2's tf2-xla: what went wrong, as in the other grid
    rows = {(r.case, r.mode): r for r in result.results}
    cases = list(dict.fromkeys(r.case for r in result.results))
    for (i, j), text in texts.items():
        assert text == eager_cell(rows[(cases[i], _MODES[j])])[0]
    titles = [t.get_text() for t in grids["x eager"].texts if t.get_position()[1] < -0.5]
    assert titles == ["speed vs the case's tf2-eager (>1 faster)"]
    # a run without eager rows keeps one grid, as wide as before
    plain = summary_figure(_result(3))
    assert [ax.get_label() for ax in plain.axes if ax.get_label() in ("vs tf1", "x eager")] == ["vs tf1"]
    assert plain.get_size_inches()[0] == 11.0
