"""Variable input shapes: the `tf.function` variants people choose between, fed the same stream.

A stream of batches whose varying dim takes the given lengths is fed, pass after pass, to:
`tf1-graph` (placeholders with None dims: one graph), `tf2-eager` (no graph, nothing to retrace: the
dynamic-graph baseline every fix is set against), `no-signature` (a trace per new shape),
`none-signature` (`input_signature` with None on the varying dims: one trace), `reduce-retracing`
(TF generalises after the second shape) and `buckets` (pad to a multiple of `bucket` steps: a trace
per bucket). Passes are interleaved across variants in rotating order; the first pass carries the
tracing, later passes are the steady state.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

import numpy as np
import tensorflow as tf

from tfcompare.core.cases import Case
from tfcompare.core.modes import MODES
from tfcompare.core.runners import make_runner
from tfcompare.core.timing import Timer, rotated
from tfcompare.report.format import format_seconds, grid

__all__ = ["VARIANTS", "GRAPH_VARIANTS", "VariantResult", "run_variants", "bucket_length", "variants_table"]

VARIANTS = ("tf1-graph", "tf2-eager", "no-signature", "none-signature", "reduce-retracing", "buckets")
GRAPH_VARIANTS = tuple(v for v in VARIANTS if v != "tf2-eager")


@dataclasses.dataclass
class VariantResult:
    case: str
    variant: str
    lengths: list[int]
    traces: int
    total_s: float  # every call of every pass, tracing included
    first_pass_s: float
    step_median_s: float | None  # per call, passes after the first
    error: str | None = None

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def bucket_length(length: int, bucket: int) -> int:
    return int(math.ceil(length / bucket) * bucket)


def _pad(batch: dict, case: Case, length: int) -> dict:
    """Pad every varying dim to `length` with zeros (the case's length mask keeps them out of the loss)."""
    out = {}
    for spec in case.inputs:
        value = batch[spec.name]
        widths = [(0, 0)] * value.ndim
        for d in spec.varying:
            widths[d + 1] = (0, length - value.shape[d + 1])
        out[spec.name] = np.pad(value, widths) if any(w != (0, 0) for w in widths) else value
    return out


def _variant(case: Case, weights: dict, variant: str, bucket: int, session_config):
    """(call(batch) -> None, traces() -> int, close() -> None) for one variant."""
    if variant == "tf1-graph":
        runner = make_runner("tf1-graph", MODES["tf1-graph"], case, weights, session_config)
        runner.build()
        state = {"first": True}

        def call(batch):
            if state["first"]:
                state["first"] = False
                runner.first_call(batch)
            else:
                runner.train([batch])
        return call, lambda: 0, runner.close
    model = case.tf2_model(weights)
    if variant == "tf2-eager":
        def eager(batch):
            model.train_step({k: tf.constant(v) for k, v in batch.items()}).numpy()
        return eager, lambda: 0, lambda: None
    kwargs = {}
    if variant == "none-signature":
        kwargs["input_signature"] = [{s.name: tf.TensorSpec(s.signature_shape(), s.dtype) for s in case.inputs}]
    elif variant == "reduce-retracing":
        kwargs["reduce_retracing"] = True
    step = tf.function(model.train_step, **kwargs)

    def call(batch):
        if variant == "buckets":
            batch = _pad(batch, case, bucket_length(_length(batch, case), bucket))
        step({k: tf.constant(v) for k, v in batch.items()}).numpy()
    return call, step.experimental_get_tracing_count, lambda: None


def _length(batch: dict, case: Case) -> int:
    spec = next(s for s in case.inputs if s.varying)
    return batch[spec.name].shape[spec.varying[0] + 1]


def run_variants(case: Case, weights: dict, make_batch: Callable[[int], dict], lengths: list[int], *,
                 passes: int = 3, bucket: int = 16, session_config=None,
                 timer: Timer | None = None, variants: tuple[str, ...] = VARIANTS) -> list[VariantResult]:
    """Feed the stream of lengths to each of `variants` for `passes` passes, interleaved; see the module docstring."""
    timer = timer or Timer()
    stream = [make_batch(n) for n in lengths]
    built, results = {}, {}
    for v in variants:
        try:
            built[v] = _variant(case, weights, v, bucket, session_config)
            results[v] = VariantResult(case.name, v, list(lengths), 0, 0.0, 0.0, None)
        except Exception as exc:
            results[v] = VariantResult(case.name, v, list(lengths), 0, 0.0, 0.0, None, f"{type(exc).__name__}: {exc}")
    steady: dict[str, list[float]] = {v: [] for v in built}
    live = list(built)
    for p in range(passes):
        order = rotated(live, p)
        for v in order:
            call = built[v][0]
            try:
                for batch in stream:
                    seconds, _ = timer.first_call(lambda: call(batch))
                    results[v].total_s += seconds
                    if p == 0:
                        results[v].first_pass_s += seconds
                    else:
                        steady[v].append(seconds)
            except Exception as exc:
                results[v].error = f"{type(exc).__name__}: {exc}"
                live.remove(v)
    for v, (_, traces, close) in built.items():
        results[v].traces = traces()
        results[v].step_median_s = float(np.median(steady[v])) if steady[v] else None
        close()
    return [results[v] for v in variants]


def variants_table(rows: list[dict]) -> str:
    """The variable-shape stream per variant: traces, total time with tracing, steady-state step."""
    head = ("case", "variant", "traces", "total (with tracing)", "first pass", "steady step", "error")
    body = [(r["case"], r["variant"], str(r["traces"]), format_seconds(r["total_s"]), format_seconds(r["first_pass_s"]),
             format_seconds(r["step_median_s"]), r["error"] or "") for r in rows]
    lines = grid(head, body)
    if rows:
        lines.append(f"lengths streamed: {rows[0]['lengths']}; passes interleaved across variants; "
                     "the first pass carries every trace")
    return "\n".join(lines)
