"""TensorBoard output: one run folder per case × mode, the same scalar tags in every mode.

Layout: `<logdir>/<run-name>/<case>/<mode>/` holds that mode's graph and scalars, so the Scalars
dashboard overlays the modes tag by tag. Every writer is closed as soon as its mode is written,
so an interrupted run leaves complete event files for what finished.

`mode_scalars` is the pure part (tested without files); `write_mode` is the thin writer around it.
"""

from __future__ import annotations

from pathlib import Path

import tensorflow as tf

from tfcompare.results import ModeResult

__all__ = ["SCALAR_TAGS", "STEP_TAG", "mode_scalars", "write_mode", "mode_dir"]

STEP_TAG = "timing/step_s"  # one point per timed block: x = round, y = seconds per step
SCALAR_TAGS = {
    "timing/build_s": "build_s",
    "timing/first_call_s": "first_call_s",
    "timing/step_median_s": "step_median_s",
    "timing/step_iqr_s": "step_iqr_s",
    "timing/step_q1_s": "step_q1_s",
    "timing/step_q3_s": "step_q3_s",
    "memory/peak_bytes": "peak_memory_bytes",
    "equivalence/max_abs_err": "max_abs_err",
    "equivalence/max_rel_err": "max_rel_err",
    "tracing/traces": "traces",
    "timing/speedup_vs_tf1_graph": "speedup_vs_tf1_graph",
}


def mode_dir(run_dir: str | Path, case: str, mode: str) -> Path:
    return Path(run_dir) / case / mode


def mode_scalars(result: ModeResult) -> dict[str, float]:
    """The single-valued scalars of one mode, by tag; fields that were not measured are left out."""
    out = {}
    for tag, field in SCALAR_TAGS.items():
        value = getattr(result, field)
        if value is not None:
            out[tag] = float(value)
    return out


def write_mode(run_dir: str | Path, result: ModeResult, graph_def=None, hlo: dict[str, str] | None = None) -> Path:
    """Write one mode's graph, per-block step times, summary scalars and XLA HLO text; close the writer."""
    path = mode_dir(run_dir, result.case, result.mode)
    writer = tf.summary.create_file_writer(str(path))
    try:
        with writer.as_default():
            if graph_def is not None:
                tf.summary.graph(graph_def)
            for i, seconds in enumerate(result.step_times_s):
                tf.summary.scalar(STEP_TAG, seconds, step=i)
            for tag, value in mode_scalars(result).items():
                tf.summary.scalar(tag, value, step=0)
            for stage, text in (hlo or {}).items():
                tf.summary.text(f"xla/{stage}", f"```\n{text}\n```", step=0)
            if result.error:
                tf.summary.text("error", result.error, step=0)
    finally:
        writer.close()
    return path
