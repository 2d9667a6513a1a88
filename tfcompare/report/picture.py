"""One picture of a run: first an overview (case × mode: the speed against tf1-graph with its 95% interval,
green where the whole interval is faster, red where it is slower, mismatches and errors marked) and beside it,
when the run has eager rows, the same grid against each case's tf2-eager (`x eager`); then per case each mode's
median step with its interval and each mode's first call, on log axes.

Laid out in inches from the number of cases and modes (no text placed by guesswork), so it stays readable at
12 cases and more and no label overlaps another or leaves the figure (tests check the renderer's extents).
Drawn with matplotlib's Agg backend (no display needed); the same PNG bytes go to `summary.png` in the run
folder and to TensorBoard as an image.
"""

from __future__ import annotations

import io

from tfcompare.core.modes import REFERENCE_MODE
from tfcompare.core.results import ModeResult, RunResult
from tfcompare.report.format import format_seconds

__all__ = ["summary_png", "summary_figure", "overview_cell", "eager_cell", "PANELS"]

_FASTER, _SLOWER, _UNSURE, _REF = "#b7e4c7", "#f5b7b1", "#eeeeee", "#ffffff"
_FAILED = {"mismatch": "#c0392b", "error": "#7f8c8d", "skipped": "#bdc3c7"}
_WIDTH = 11.0  # inches
_ROW = 0.36  # overview row height, inches
_DETAIL_ROW = 0.34  # detail row height per case, inches
_FONT = 7.5


def _cell(r: ModeResult | None, reference: str, speed: float | None, ci: list[float] | None) -> tuple[str, str]:
    """(text, colour) of one grid cell: a speed against `reference` with its interval, or what went wrong."""
    if r is None:
        return "", "#ffffff"
    if r.status != "ok":
        return r.status.upper(), _FAILED.get(r.status, _UNSURE)
    if r.mode == reference:
        return "1 (reference)", _REF
    if not speed:
        return "-", _UNSURE
    if not ci:
        return f"{speed:.2f}x\n(no interval)", _UNSURE
    low, high = ci
    colour = _FASTER if low > 1 else (_SLOWER if high < 1 else _UNSURE)
    return f"{speed:.2f}x\n{low:.2f}\u2013{high:.2f}", colour


def overview_cell(r: ModeResult | None) -> tuple[str, str]:
    """(text, colour) of one overview cell: the speed against tf1-graph with its interval, or what went wrong."""
    return _cell(r, REFERENCE_MODE, r and r.speedup_vs_tf1_graph, r and r.speedup_ci)


def eager_cell(r: ModeResult | None) -> tuple[str, str]:
    """The same against the case's tf2-eager (results.json's `speedup_vs_eager`): what the graph bought."""
    return _cell(r, "tf2-eager", r and r.speedup_vs_eager, r and r.speedup_vs_eager_ci)


# the overview grids, left to right: the axes label (what a reader of the figure's data finds), title, cell
PANELS = (("vs tf1", "speed vs tf1-graph (>1 faster)", overview_cell),
          ("x eager", "speed vs the case's tf2-eager (>1 faster)", eager_cell))


def _mode_colours(modes: list[str]) -> dict[str, str]:
    import matplotlib

    palette = matplotlib.colormaps["tab10"].colors
    return {m: matplotlib.colors.to_hex(palette[i % len(palette)]) for i, m in enumerate(modes)}


def summary_figure(result: RunResult):
    """The run's summary as a matplotlib Figure (Agg); `summary_png` renders it."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    cases = list(dict.fromkeys(r.case for r in result.results)) or ["(no case finished)"]
    modes = list(dict.fromkeys([*result.config.get("modes", []), *(r.mode for r in result.results)]))
    modes = [m for m in modes if any(r.mode == m for r in result.results)] or ["(none)"]
    n, m = len(cases), len(modes)
    label_w = 0.25 + 0.075 * max(len(c) for c in cases)  # room for the case names at 8 pt
    panels = PANELS if any(r.speedup_vs_eager for r in result.results) else PANELS[:1]
    grid_w, grid_gap = _WIDTH - label_w - 0.2, 0.3
    width = _WIDTH + (len(panels) - 1) * (grid_w + grid_gap)  # each grid as wide as one alone: its text fits
    title_h, gap_h, legend_h, axis_h = 0.55, 0.45, 0.35, 0.55
    head_h = 0.75 if len(panels) > 1 else 0.5  # two grids: room for each one's title above its mode names
    over_h = head_h + n * _ROW
    detail_h = n * _DETAIL_ROW
    height = title_h + over_h + gap_h + legend_h + detail_h + axis_h
    fig = Figure(figsize=(width, height), dpi=100)

    def box(left, top, w, h):  # inches from the top-left corner -> figure fractions
        return [left / width, 1 - (top + h) / height, w / width, h / height]

    env = result.environment
    device = "GPU" if env.get("gpu") else "CPU"
    load = env.get("load") or {}
    busy = " BUSY MACHINE: absolute times run high." if load.get("busy") else ""
    fig.text(0.2 / width, 1 - 0.12 / height, f"tfcompare run {result.run_name}: TensorFlow {env.get('tf_version')} on "
             f"{device}, {env.get('intra_op_threads')} threads" + ("" if result.complete else "  (INCOMPLETE)"),
             fontsize=10, va="top", weight="bold")
    against = " (x eager: eager block / mode block, the same way)" if len(panels) > 1 else ""
    fig.text(0.2 / width, 1 - 0.34 / height, "speed vs tf1-graph = median over interleaved rounds of tf1 block / mode "
             f"block (>1 faster){against}, 95% CI below it; green: the whole interval faster, red: slower, grey: "
             "not sure." + busy, fontsize=_FONT, va="top")

    # the overview grids: cells drawn in data coordinates of one axes each (column j, row i)
    rows = {(r.case, r.mode): r for r in result.results}
    for i, case in enumerate(cases):
        fig.text((label_w - 0.1) / width, 1 - (title_h + head_h + (i + 0.5) * _ROW) / height, case,
                 fontsize=8, ha="right", va="center")
    for k, (label, title, cell) in enumerate(panels):
        ax = fig.add_axes(box(label_w + k * (grid_w + grid_gap), title_h + head_h, grid_w, n * _ROW), label=label)
        ax.set_xlim(0, m)
        ax.set_ylim(n, 0)
        ax.set_axis_off()
        for i, case in enumerate(cases):
            for j, mode in enumerate(modes):
                text, colour = cell(rows.get((case, mode)))
                hatch = "//" if rows.get((case, mode)) is not None and rows[(case, mode)].status == "mismatch" else None
                ax.add_patch(matplotlib.patches.Rectangle((j, i), 1, 1, facecolor=colour, edgecolor="white", lw=1.5,
                                                          hatch=hatch))
                if text:
                    ax.text(j + 0.5, i + 0.5, text, ha="center", va="center", fontsize=_FONT, linespacing=1.1,
                            color="white" if colour in _FAILED.values() else "black",
                            weight="bold" if hatch else "normal")
        for j, mode in enumerate(modes):
            ax.text(j + 0.5, -0.15, mode, ha="center", va="bottom", fontsize=8, weight="bold")
        if len(panels) > 1:
            ax.text(m / 2, -0.75, title, ha="center", va="bottom", fontsize=8.5, weight="bold")

    # per case: median step (with its interval) and first call, one marker per mode
    colours = _mode_colours(modes)
    top = title_h + over_h + gap_h + legend_h
    left_w = (width - label_w - 0.6) * 0.6
    ax_step = fig.add_axes(box(label_w, top, left_w, detail_h))
    ax_first = fig.add_axes(box(label_w + left_w + 0.4, top, width - label_w - left_w - 0.6, detail_h))
    offsets = {mode: (k - (m - 1) / 2) * min(0.7 / max(m, 1), 0.15) for k, mode in enumerate(modes)}
    for mode in modes:
        ys, xs, lo, hi, fy, fx = [], [], [], [], [], []
        for i, case in enumerate(cases):
            r = rows.get((case, mode))
            if r is None:
                continue
            if r.step_median_s:
                ci = r.step_ci_s or [r.step_median_s, r.step_median_s]
                ys.append(i + offsets[mode])
                xs.append(r.step_median_s)
                lo.append(max(r.step_median_s - ci[0], 0))
                hi.append(max(ci[1] - r.step_median_s, 0))
            if r.first_call_s:
                fy.append(i + offsets[mode])
                fx.append(r.first_call_s)
        if xs:
            ax_step.errorbar(xs, ys, xerr=[lo, hi], fmt="o", ms=3.5, color=colours[mode], capsize=2, lw=1)
        if fx:
            ax_first.plot(fx, fy, "s", ms=3.5, color=colours[mode])
    for a in (ax_step, ax_first):
        a.set_ylim(n - 0.5, -0.5)
        a.set_yticks(range(n), [""] * n)
        a.grid(axis="x", which="major", alpha=0.3)
        for i in range(1, n):
            a.axhline(i - 0.5, color="#dddddd", lw=0.6)
    for i, case in enumerate(cases):
        fig.text((label_w - 0.1) / width, 1 - (top + (i + 0.5) * _DETAIL_ROW) / height, case, fontsize=8,
                 ha="right", va="center")
    seconds = FuncFormatter(lambda v, _: format_seconds(v))
    for a, values in ((ax_step, [r.step_median_s for r in result.results if r.step_median_s]),
                      (ax_first, [r.first_call_s for r in result.results if r.first_call_s])):
        if values:
            a.set_xscale("log")
            a.set_xlim(min(values) / 2, max(values) * 2)
            a.xaxis.set_major_locator(LogLocator(base=10, numticks=6))
            a.xaxis.set_major_formatter(seconds)
            a.xaxis.set_minor_formatter(NullFormatter())
        a.tick_params(axis="x", labelsize=_FONT)
    ax_step.set_xlabel("median step, 95% CI bar (log)", fontsize=8)
    ax_first.set_xlabel("first call: trace, compile, run (log)", fontsize=8)
    handles = [matplotlib.lines.Line2D([], [], marker="o", ls="", color=colours[mo], label=mo) for mo in modes]
    fig.legend(handles=handles, loc="lower left", ncol=min(m, 6), fontsize=_FONT, frameon=False,
               bbox_to_anchor=(label_w / width, 1 - (top - 0.02) / height), borderaxespad=0, handletextpad=0.3,
               columnspacing=1.2)
    FigureCanvasAgg(fig)  # drawable (and measurable) without pyplot's global state
    return fig


def summary_png(result: RunResult) -> bytes:
    """The run's summary figure as PNG bytes."""
    fig = summary_figure(result)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    return buffer.getvalue()
