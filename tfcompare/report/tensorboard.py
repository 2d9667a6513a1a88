"""TensorBoard output: one run folder per case × mode, the same scalar tags in every mode.

Layout: `<logdir>/<run-name>/<case>/<mode>/` holds that mode's graph and scalars, so the Scalars
dashboard overlays the modes tag by tag. Every writer is closed as soon as its mode is written,
so an interrupted run leaves complete event files for what finished.

`mode_scalars` is the pure part (tested without files); `write_mode` is the thin writer around it.
"""

from __future__ import annotations

import math
from pathlib import Path

import tensorflow as tf
from tensorboard.plugins.custom_scalar import layout_pb2
from tensorboard.plugins.custom_scalar import summary as custom_scalar_summary
from tensorboard.plugins.hparams import api as hp

from tfcompare.core.results import ModeResult, RunResult

__all__ = ["SCALAR_TAGS", "STEP_TAG", "HPARAM_METRICS", "OPTIMIZED_GRAPH_TAG", "mode_scalars", "write_mode",
           "mode_dir", "case_tag", "custom_scalars_layout", "write_run", "hparams_for", "write_audit",
           "write_inspection", "write_claims", "write_pair", "write_run_tf1"]

OPTIMIZED_GRAPH_TAG = "optimized"  # the graph after Grappler (what the Session / runtime really ran)
PICTURE_TAG = "summary"  # the run's picture (report.picture), at the run root
LOG_STEP_TAG = "timing/log10_step_s"  # log10 of seconds per step, one point per timed block

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
    "limit/gflops_per_s": "gflops_per_s",
    "limit/fraction_of_peak": "fraction_of_peak",
    "limit/us_per_op": "us_per_op",
}


HPARAM_METRICS = ("timing/step_median_s", "timing/first_call_s", "memory/peak_bytes", "equivalence/max_abs_err",
                  "tracing/traces", "timing/speedup_vs_tf1_graph")


def case_tag(case: str, name: str) -> str:
    """Per-case copies of the timing tags: the Scalars dashboard groups them into one chart per case."""
    return f"{case}/{name}"


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


def _tagged_graph(tag: str, graph_def) -> None:
    """A second graph for the same run, under its own tag in the Graphs dashboard (RunMetadata payload)."""
    run_metadata = tf.compat.v1.RunMetadata()
    run_metadata.function_graphs.add().pre_optimization_graph.CopyFrom(graph_def)
    metadata = tf.compat.v1.SummaryMetadata()
    metadata.plugin_data.plugin_name = "graph_run_metadata_graph"
    metadata.plugin_data.content = b"1"
    tf.summary.write(tag, tf.constant(run_metadata.SerializeToString()), step=0, metadata=metadata)


def write_mode(run_dir: str | Path, result: ModeResult, graph_def=None, hlo: dict[str, str] | None = None, *,
               optimized_graph=None, autograph: str | None = None, hparams: dict | None = None) -> Path:
    """Write one mode's graphs, per-block step times, summary scalars, HParams and texts; close the writer."""
    path = mode_dir(run_dir, result.case, result.mode)
    writer = tf.summary.create_file_writer(str(path))
    try:
        with writer.as_default():
            if hparams is not None:
                hp.hparams(hparams, trial_id=f"{result.case}/{result.mode}")
            if graph_def is not None:
                tf.summary.graph(graph_def)
            if optimized_graph is not None:
                _tagged_graph(OPTIMIZED_GRAPH_TAG, optimized_graph)
            for i, seconds in enumerate(result.step_times_s):
                tf.summary.scalar(STEP_TAG, seconds, step=i)
                tf.summary.scalar(case_tag(result.case, "step_s"), seconds, step=i)
                if seconds > 0:  # a log-scale view: eager's ms and XLA's µs in one readable chart
                    tf.summary.scalar(case_tag(result.case, "log10_step_s"), math.log10(seconds), step=i)
                    tf.summary.scalar(LOG_STEP_TAG, math.log10(seconds), step=i)
            for tag, value in mode_scalars(result).items():
                tf.summary.scalar(tag, value, step=0)
            for field in ("step_median_s", "step_q1_s", "step_q3_s"):
                if getattr(result, field) is not None:
                    tf.summary.scalar(case_tag(result.case, field), getattr(result, field), step=0)
            if autograph:
                tf.summary.text("autograph/train_step", f"```python\n{autograph}\n```", step=0)
            for stage, text in (hlo or {}).items():
                tf.summary.text(f"xla/{stage}", f"```\n{text}\n```", step=0)
            if result.error:
                tf.summary.text("error", result.error, step=0)
    finally:
        writer.close()
    return path


def custom_scalars_layout(cases: list[str]):
    """Per case: the modes' step times overlaid, in seconds and as log10 seconds.

    Eager's milliseconds and XLA's microseconds differ by 100x: on the linear chart the compiled modes lie on
    the floor, so the second chart holds the same blocks on a log scale (custom scalars have no log axis).
    The median with its IQR is in the run's picture (`summary` image), not in a one-point margin chart.
    """
    categories = []
    for case in cases:
        categories.append(layout_pb2.Category(title=case, chart=[
            layout_pb2.Chart(title=f"{case}: seconds per step, every timed block, all modes",
                             multiline=layout_pb2.MultilineChartContent(tag=[f"^{case_tag(case, 'step_s')}$"])),
            layout_pb2.Chart(title=f"{case}: log10(seconds per step), every timed block, all modes",
                             multiline=layout_pb2.MultilineChartContent(
                                 tag=[f"^{case_tag(case, 'log10_step_s')}$"])),
        ]))
    return layout_pb2.Layout(category=categories)


def hparams_domain(result: RunResult) -> list:
    cfg = result.config
    modes = list(dict.fromkeys([*cfg["modes"], *(r.mode for r in result.results)]))  # distributed rows too
    return [hp.HParam("case", hp.Discrete(list(cfg["cases"]))), hp.HParam("mode", hp.Discrete(modes)),
            hp.HParam("batch_size"), hp.HParam("steps"), hp.HParam("seed"), hp.HParam("tf_version"),
            hp.HParam("workers"), hp.HParam("strategy")]


def hparams_for(result: RunResult, row: ModeResult) -> dict:
    cfg = result.config
    return {"case": row.case, "mode": row.mode, "batch_size": row.batch_size, "steps": cfg["steps"],
            "seed": cfg["seed"], "tf_version": result.environment["tf_version"],
            "workers": row.workers or 1, "strategy": row.strategy or "none"}


def write_run(result: RunResult, table_markdown: str, picture_png: bytes | None = None) -> None:
    """Run-level summaries at the run root: HParams config, custom-scalars layout, the comparison table, and
    the run's summary picture (tag `summary`)."""
    writer = tf.summary.create_file_writer(result.run_dir)
    try:
        with writer.as_default():
            if picture_png is not None:
                image = tf.image.decode_png(picture_png, channels=4)
                tf.summary.image(PICTURE_TAG, image[tf.newaxis], step=0)
            hp.hparams_config(hparams=hparams_domain(result),
                              metrics=[hp.Metric(tag, display_name=tag) for tag in HPARAM_METRICS])
            layout = custom_scalars_layout(list(result.config["cases"]))
            tf.summary.experimental.write_raw_pb(custom_scalar_summary.pb(layout).SerializeToString(), step=0)
            tf.summary.text("comparison", table_markdown, step=0)
    finally:
        writer.close()


def write_audit(logdir: str | Path, report, text: str) -> Path:
    """Per function: traces, calls and tracing time as scalars; the whole report as text."""
    path = Path(logdir)
    writer = tf.summary.create_file_writer(str(path))
    try:
        with writer.as_default():
            for f in report.functions:
                name = f.name.replace("<", "").replace(">", "")
                tf.summary.scalar(f"audit/{name}/traces", f.traces, step=0)
                tf.summary.scalar(f"audit/{name}/calls", f.calls, step=0)
                tf.summary.scalar(f"audit/{name}/tracing_s", f.tracing_s, step=0)
            tf.summary.text("audit/report", f"```\n{text}\n```", step=0)
    finally:
        writer.close()
    return path


def write_inspection(logdir: str | Path, found, text: str) -> None:
    """Per inspected graph: the graph as built (run-level) and as run (tag `optimized`), one run each."""
    for view in found.graphs:
        run = Path(logdir) / view.variant.run_name
        writer = tf.summary.create_file_writer(str(run))
        try:
            with writer.as_default():
                tf.summary.graph(view.graph_before)
                _tagged_graph(OPTIMIZED_GRAPH_TAG, view.graph_after)
        finally:
            writer.close()
    writer = tf.summary.create_file_writer(str(logdir))
    try:
        with writer.as_default():
            tf.summary.text("inspect", f"```\n{text}\n```", step=0)
    finally:
        writer.close()


def write_debug(logdir: str | Path, lines: list[str]) -> None:
    """`tfcompare debug`'s findings as text, one line each, in one TensorBoard run."""
    writer = tf.summary.create_file_writer(str(logdir))
    try:
        with writer.as_default():
            tf.summary.text("debug/findings", "\n".join(f"* {line}" for line in lines), step=0)
    finally:
        writer.close()


def write_pair(logdir: str | Path, steps: list[dict], lines: list[str]) -> None:
    """`tfcompare pair`: each side's loss per step (runs tf1 and tf2, one chart), the errors per step, the text."""
    logdir = Path(logdir)
    for side in ("tf1", "tf2"):
        writer = tf.summary.create_file_writer(str(logdir / side))
        try:
            with writer.as_default():
                for s in steps:
                    tf.summary.scalar("pair/loss", s[f"loss_{side}"], step=s["step"])
        finally:
            writer.close()
    writer = tf.summary.create_file_writer(str(logdir))
    try:
        with writer.as_default():
            for s in steps:
                tf.summary.scalar("pair/gradients_max_abs_err", s["gradients_max_abs_err"], step=s["step"])
                tf.summary.scalar("pair/weights_max_abs_err", s["weights_max_abs_err"], step=s["step"])
            tf.summary.text("pair/report", "\n".join(f"    {line}" for line in lines), step=0)
    finally:
        writer.close()


def write_run_tf1(logdir: str | Path, losses: list[float], lines: list[str]) -> None:
    """`tfcompare run-tf1`: the loss of each observed training step, and the text."""
    writer = tf.summary.create_file_writer(str(logdir))
    try:
        with writer.as_default():
            for step, loss in enumerate(losses, 1):
                tf.summary.scalar("run-tf1/loss", loss, step=step)
            tf.summary.text("run-tf1/report", "\n".join(f"    {line}" for line in lines), step=0)
    finally:
        writer.close()


def write_claims(logdir: str | Path, results, markdown_text: str) -> None:
    """The claims table as text and every plot as an image, in one TensorBoard run."""
    writer = tf.summary.create_file_writer(str(logdir))
    try:
        with writer.as_default():
            tf.summary.text("claims", markdown_text, step=0)
            for r in results:
                tf.summary.text(f"claim{r.number}/verdict", f"**{r.verdict}**: {r.measured or r.error}", step=0)
                if r.plot and Path(r.plot).exists():
                    image = tf.image.decode_png(tf.io.read_file(r.plot), channels=4)
                    tf.summary.image(f"claim{r.number}/plot", image[tf.newaxis], step=0)
    finally:
        writer.close()
