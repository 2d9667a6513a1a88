"""TensorBoard output of a run: one TensorBoard run per mode, the cases as tag groups, the picture at the root.

Layout of `<logdir>/<run-name>/`:
  `.` (the root)  the run's picture (image `summary`), the comparison table (text), the custom-scalars
                  layout and the HParams configuration;
  `<mode>/`       that mode's scalars for every case under `<case>/...` tags (the Scalars dashboard draws one
                  chart per tag with one line per mode), its texts, its HParams session, and every case's
                  graphs under graph tags `<case>` (as built) and `<case>/optimized` (after Grappler).
So one default run is 1 + 4 TensorBoard runs, and TensorBoard, which ticks no run by default when a log
directory holds more than 40, fills its dashboards on first open even with several runs in one `logs/`.
The same tag in `<run-a>/<mode>` and `<run-b>/<mode>` overlays two runs on one chart.

Every writer is closed as soon as its piece is written, so an interrupted run leaves complete event files
for what finished. `mode_scalars` is the pure part (tested without files); the writers are thin around it.
"""

from __future__ import annotations

import math
from pathlib import Path

import tensorflow as tf
from tensorboard.plugins.custom_scalar import layout_pb2
from tensorboard.plugins.custom_scalar import summary as custom_scalar_summary
from tensorboard.plugins.hparams import api as hp

from tfcompare.core.results import ModeResult, RunResult

__all__ = ["SCALAR_TAGS", "STEP_TAG", "LOG_STEP_TAG", "HPARAM_METRICS", "OPTIMIZED_GRAPH_TAG", "mode_scalars",
           "write_mode", "mode_dir", "profile_dir", "case_tag", "custom_scalars_layout", "write_run", "write_audit",
           "write_inspection", "write_claims", "write_pair", "write_run_tf1"]

OPTIMIZED_GRAPH_TAG = "optimized"  # the graph after Grappler (what the Session / runtime really ran)
PICTURE_TAG = "summary"  # the run's picture (report.picture), at the run root
STEP_TAG = "timing/step_s"  # under each case: one point per timed block, x = round, y = seconds per step
LOG_STEP_TAG = "timing/log10_step_s"  # log10 of the same: eager's ms and XLA's µs in one readable chart
SCALAR_TAGS = {  # under each case, one point (step 0)
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
    "timing/speedup_vs_eager": "speedup_vs_eager",
    "limit/gflops_per_s": "gflops_per_s",
    "limit/fraction_of_peak": "fraction_of_peak",
    "limit/us_per_op": "us_per_op",
}
_INTERVALS = {"timing/speedup_ci_low": ("speedup_ci", 0), "timing/speedup_ci_high": ("speedup_ci", 1),
              "timing/speedup_vs_eager_ci_low": ("speedup_vs_eager_ci", 0),
              "timing/speedup_vs_eager_ci_high": ("speedup_vs_eager_ci", 1),
              "timing/step_ci_low_s": ("step_ci_s", 0), "timing/step_ci_high_s": ("step_ci_s", 1)}

HPARAM_METRICS = ("timing/speedup_vs_tf1_graph", "timing/speedup_vs_eager", "timing/step_median_s")  # per case


def case_tag(case: str, name: str) -> str:
    """A tag of one case: the Scalars dashboard groups a case's charts under its name."""
    return f"{case}/{name}"


def mode_dir(run_dir: str | Path, mode: str) -> Path:
    """The TensorBoard run of one mode."""
    return Path(run_dir) / mode


def profile_dir(run_dir: str | Path, case: str, mode: str) -> Path:
    """Where `--profile` puts one case × mode's profiler trace (the profile plugin lists these on their own)."""
    return Path(run_dir) / "profile" / case / mode


def mode_scalars(result: ModeResult) -> dict[str, float]:
    """The single-valued scalars of one case × mode, by tag under the case; fields not measured are left out."""
    out = {}
    for tag, field in SCALAR_TAGS.items():
        value = getattr(result, field)
        if value is not None:
            out[case_tag(result.case, tag)] = float(value)
    for tag, (field, index) in _INTERVALS.items():
        value = getattr(result, field)
        if value:
            out[case_tag(result.case, tag)] = float(value[index])
    return out


def _tagged_graph(tag: str, graph_def) -> None:
    """A graph under its own tag in the Graphs dashboard (RunMetadata payload), several per run."""
    run_metadata = tf.compat.v1.RunMetadata()
    run_metadata.function_graphs.add().pre_optimization_graph.CopyFrom(graph_def)
    metadata = tf.compat.v1.SummaryMetadata()
    metadata.plugin_data.plugin_name = "graph_run_metadata_graph"
    metadata.plugin_data.content = b"1"
    tf.summary.write(tag, tf.constant(run_metadata.SerializeToString()), step=0, metadata=metadata)


def write_mode(run_dir: str | Path, result: ModeResult, graph_def=None, hlo: dict[str, str] | None = None, *,
               optimized_graph=None, autograph: str | None = None) -> Path:
    """Write one case × mode into its mode's run: graphs, per-block step times, scalars and texts under the case."""
    path = mode_dir(run_dir, result.mode)
    case = result.case
    writer = tf.summary.create_file_writer(str(path))
    try:
        with writer.as_default():
            if graph_def is not None:
                _tagged_graph(case, graph_def)
            if optimized_graph is not None:
                _tagged_graph(case_tag(case, OPTIMIZED_GRAPH_TAG), optimized_graph)
            for i, seconds in enumerate(result.step_times_s):
                tf.summary.scalar(case_tag(case, STEP_TAG), seconds, step=i)
                if seconds > 0:
                    tf.summary.scalar(case_tag(case, LOG_STEP_TAG), math.log10(seconds), step=i)
            for tag, value in mode_scalars(result).items():
                tf.summary.scalar(tag, value, step=0)
            if autograph:
                tf.summary.text(case_tag(case, "autograph/train_step"), f"```python\n{autograph}\n```", step=0)
            for stage, text in (hlo or {}).items():
                tf.summary.text(case_tag(case, f"xla/{stage}"), f"```\n{text}\n```", step=0)
            if result.error:
                tf.summary.text(case_tag(case, "error"), result.error, step=0)
    finally:
        writer.close()
    return path


def custom_scalars_layout(cases: list[str]):
    """Per case: the speed against tf1-graph with its 95% interval (a margin chart), every timed block of every
    mode in seconds and as log10 seconds, then the speed against tf2-eager with its interval.

    Eager's milliseconds and XLA's microseconds differ by 100x: on the linear chart the compiled modes lie on
    the floor, so the second chart holds the same blocks on a log scale (custom scalars have no log axis).
    """
    categories = []
    for case in cases:
        categories.append(layout_pb2.Category(title=case, chart=[
            layout_pb2.Chart(title=f"{case}: speed vs tf1-graph with its 95% interval, per mode",
                             margin=layout_pb2.MarginChartContent(series=[layout_pb2.MarginChartContent.Series(
                                 value=case_tag(case, "timing/speedup_vs_tf1_graph"),
                                 lower=case_tag(case, "timing/speedup_ci_low"),
                                 upper=case_tag(case, "timing/speedup_ci_high"))])),
            layout_pb2.Chart(title=f"{case}: seconds per step, every timed block, all modes",
                             multiline=layout_pb2.MultilineChartContent(tag=[f"^{case_tag(case, STEP_TAG)}$"])),
            layout_pb2.Chart(title=f"{case}: log10(seconds per step), every timed block, all modes",
                             multiline=layout_pb2.MultilineChartContent(tag=[f"^{case_tag(case, LOG_STEP_TAG)}$"])),
            layout_pb2.Chart(title=f"{case}: speed vs tf2-eager with its 95% interval, per mode",
                             margin=layout_pb2.MarginChartContent(series=[layout_pb2.MarginChartContent.Series(
                                 value=case_tag(case, "timing/speedup_vs_eager"),
                                 lower=case_tag(case, "timing/speedup_vs_eager_ci_low"),
                                 upper=case_tag(case, "timing/speedup_vs_eager_ci_high"))])),
        ]))
    return layout_pb2.Layout(category=categories)


def _hparams_domain(result: RunResult) -> tuple[list, list]:
    cfg = result.config
    modes = list(dict.fromkeys([*cfg["modes"], *(r.mode for r in result.results)]))  # distributed rows too
    hparams = [hp.HParam("mode", hp.Discrete(modes)), hp.HParam("steps"), hp.HParam("seed"),
               hp.HParam("tf_version"), hp.HParam("workers"), hp.HParam("strategy")]
    metrics = [hp.Metric(case_tag(case, tag), display_name=f"{case} {tag.split('/')[-1]}")
               for case in cfg["cases"] for tag in HPARAM_METRICS]
    return hparams, metrics


def _hparams_for(result: RunResult, mode: str) -> dict:
    row = next((r for r in result.results if r.mode == mode), None)
    cfg = result.config
    return {"mode": mode, "steps": cfg["steps"], "seed": cfg["seed"], "tf_version": result.environment["tf_version"],
            "workers": (row.workers if row else None) or 1, "strategy": (row.strategy if row else None) or "none"}


def write_run(result: RunResult, table_markdown: str, picture_png: bytes | None = None) -> None:
    """Run-level summaries at the run root: the picture (tag `summary`), the comparison table, the
    custom-scalars layout and the HParams configuration; and each mode run's HParams session."""
    hparams, metrics = _hparams_domain(result)
    writer = tf.summary.create_file_writer(result.run_dir)
    try:
        with writer.as_default():
            if picture_png is not None:
                image = tf.image.decode_png(picture_png, channels=4)
                tf.summary.image(PICTURE_TAG, image[tf.newaxis], step=0)
            hp.hparams_config(hparams=hparams, metrics=metrics)
            layout = custom_scalars_layout(list(result.config["cases"]))
            tf.summary.experimental.write_raw_pb(custom_scalar_summary.pb(layout).SerializeToString(), step=0)
            tf.summary.text("comparison", table_markdown, step=0)
    finally:
        writer.close()
    for mode in dict.fromkeys(r.mode for r in result.results):
        if not mode_dir(result.run_dir, mode).is_dir():
            continue  # no row of this mode was written (an interrupt before it)
        writer = tf.summary.create_file_writer(str(mode_dir(result.run_dir, mode)))
        try:
            with writer.as_default():
                hp.hparams(_hparams_for(result, mode), trial_id=mode)
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
