"""One picture of a run: per case, each mode's median step on a log axis with its IQR, the first call beside
it, the speed against tf1-graph as labels, and what failed or was noisy marked, so 32 rows read at a glance.

Drawn with matplotlib's Agg backend (no display needed); the same PNG bytes go to `summary.png` in the run
folder and to TensorBoard as an image.
"""

from __future__ import annotations

import io

from tfcompare.core.results import RunResult
from tfcompare.report.format import format_seconds
from tfcompare.report.tables import limit_text

__all__ = ["summary_png"]

_FAILED = {"mismatch": "#c0392b", "error": "#7f8c8d", "skipped": "#bdc3c7"}


def summary_png(result: RunResult) -> bytes:
    """The run's summary figure as PNG bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = list(dict.fromkeys(r.case for r in result.results)) or ["(no case finished)"]
    fig, axes = plt.subplots(len(cases), 2, figsize=(11, 0.5 + 0.42 * max(4, len(result.config.get("modes", [])))
                                                      * len(cases)), squeeze=False,
                             gridspec_kw={"width_ratios": [3, 2]})
    for (ax_step, ax_first), case in zip(axes, cases):
        rows = [r for r in result.results if r.case == case]
        labels = [r.mode for r in rows]
        y = list(range(len(rows)))
        for i, r in enumerate(rows):
            color = _FAILED.get(r.status, "#2e86c1")
            if r.step_median_s:
                lo = r.step_median_s - (r.step_q1_s or r.step_median_s)
                hi = (r.step_q3_s or r.step_median_s) - r.step_median_s
                ax_step.errorbar(r.step_median_s, i, xerr=[[max(lo, 0)], [max(hi, 0)]], fmt="o", color=color,
                                 capsize=3)
                note = f"{r.speedup_vs_tf1_graph:.2f}x" if r.speedup_vs_tf1_graph else ""
                if limit_text(r) != "-":
                    note += f" ({limit_text(r)})"
                if r.noisy:
                    note += " noisy"
                if r.status != "ok":
                    note += f" {r.status.upper()}"
                ax_step.annotate(f"{format_seconds(r.step_median_s)} {note}".strip(), (r.step_median_s, i),
                                 textcoords="offset points", xytext=(8, 3), fontsize=7, color=color)
            else:
                ax_step.annotate(f"{r.status.upper()}: {(r.error or '')[:70]}", (0.02, i), xycoords=("axes fraction",
                                 "data"), fontsize=7, color=_FAILED.get(r.status, "black"), va="center")
            if r.first_call_s:
                ax_first.barh(i, r.first_call_s, color=color, alpha=0.8)
                ax_first.annotate(format_seconds(r.first_call_s), (r.first_call_s, i), textcoords="offset points",
                                  xytext=(3, -3), fontsize=7)
        for ax in (ax_step, ax_first):
            ax.set_yticks(y, labels, fontsize=8)
            ax.set_ylim(-0.7, max(len(rows), 1) - 0.3)
            ax.invert_yaxis()
            ax.grid(axis="x", which="both", alpha=0.25)
        steps = [r.step_median_s for r in rows if r.step_median_s]
        if steps:
            ax_step.set_xscale("log")
            ax_step.set_xlim(min(steps) / 2, max(steps) * 20)  # room for the labels right of each point
        firsts = [r.first_call_s for r in rows if r.first_call_s]
        if firsts:
            ax_first.set_xscale("log")
            ax_first.set_xlim(min(firsts) / 3, max(firsts) * 6)
        ax_step.set_title(f"{case}: median step (IQR bar; label: speed vs tf1-graph)", fontsize=9, loc="left")
        ax_first.set_title("first call", fontsize=9, loc="left")
    env = result.environment
    device = "GPU" if env.get("gpu") else "CPU"
    fig.suptitle(f"tfcompare run {result.run_name}: TensorFlow {env.get('tf_version')} on {device}, "
                 f"{env.get('intra_op_threads')} threads; log axes; red = mismatch, grey = error"
                 + ("" if result.complete else "  (INCOMPLETE)"), fontsize=9)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()
