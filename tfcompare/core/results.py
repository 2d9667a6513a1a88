"""Results are data: one `ModeResult` per case × mode, one `RunResult` per run, both JSON-ready."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

from tfcompare.core.files import write_atomic

__all__ = ["ModeResult", "RunResult", "write_json_atomic", "json_text", "finite_safe"]


@dataclasses.dataclass
class ModeResult:
    """One case in one mode. Times are seconds; `speedup_vs_tf1_graph` > 1 means faster than TF1,
    `speedup_vs_eager` > 1 faster than the case's tf2-eager."""

    case: str
    mode: str
    status: str = "ok"  # ok / mismatch / error / skipped
    error: str | None = None
    batch_size: int | None = None
    build_s: float | None = None
    first_call_s: float | None = None
    step_median_s: float | None = None
    step_iqr_s: float | None = None
    step_q1_s: float | None = None
    step_q3_s: float | None = None
    step_ci_s: list[float] | None = None  # the median's 95% interval [low, high] (core.timing.median_interval)
    samples: int = 0
    calls_per_block: int | None = None
    steps_per_call: int = 1
    noisy: bool | None = None
    traces: int = 0
    retraces_during_timing: int = 0
    peak_memory_bytes: int | None = None
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    tolerance: str | None = None
    worst_check: str | None = None
    speedup_vs_tf1_graph: float | None = None  # median over rounds of tf1-graph block / mode block
    speedup_ci: list[float] | None = None  # its 95% interval [low, high], paired by round (core.timing.paired_ratio)
    speedup_vs_eager: float | None = None  # the same against tf2-eager of this case: eager block / mode block
    speedup_vs_eager_ci: list[float] | None = None  # its 95% interval, paired by round like speedup_ci
    # distance to the limit (core.graphs.step_flops, core.peak): the case's FLOPs and ops per training step
    step_flops: int | None = None
    step_ops: int | None = None
    flops_lower_bound: bool = False  # loops' bodies are not counted
    gflops_per_s: float | None = None
    fraction_of_peak: float | None = None  # of the machine's measured GEMM rate
    us_per_op: float | None = None  # median step / ops per step: the dispatch cost for op-bound steps
    step_times_s: list[float] = dataclasses.field(default_factory=list)
    equivalence: dict[str, Any] | None = None
    workers: int | None = None  # distributed modes: replicas (run.distributed)
    strategy: str | None = None  # distributed modes: the tf.distribute strategy
    state_check_s: float | None = None  # the second equivalence run that proves all state was restored
    optimizer_replay: dict[str, Any] | None = None  # which optimizer setting explains a difference in the update

    def fail(self, status: str, message: str) -> None:
        """Mark this row failed; the first error wins (it is the cause, later ones are consequences)."""
        if self.status in ("ok", "skipped") or self.error is None:
            self.status, self.error = status, message

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class RunResult:
    run_name: str
    run_dir: str
    config: dict[str, Any]
    environment: dict[str, Any]
    results: list[ModeResult] = dataclasses.field(default_factory=list)
    interrupted: bool = False
    complete: bool = False  # set only at the normal end: a killed or interrupted run says false
    abandoned_threads: int = 0  # pieces that hung past their limit and were left running
    wall_s: float | None = None
    levers: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    variable_shapes: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    # per case: where its time went (phases_s) and how its timing rounds stopped (sampling)
    cases: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    phases_s: dict[str, float] = dataclasses.field(default_factory=dict)  # the run's own: start-up, report
    picture: str | None = None  # the absolute path of summary.png, once it is drawn

    @property
    def ok(self) -> bool:
        return self.complete and not self.interrupted and all(r.status in ("ok", "skipped") for r in self.results)

    def find(self, case: str, mode: str) -> ModeResult | None:
        return next((r for r in self.results if r.case == case and r.mode == mode), None)

    def to_json(self) -> dict:
        return {
            "run_name": self.run_name,
            "run_dir": self.run_dir,
            "ok": self.ok,
            "complete": self.complete,
            "interrupted": self.interrupted,
            "abandoned_threads": self.abandoned_threads,
            "wall_s": self.wall_s,
            "config": self.config,
            "environment": self.environment,
            "results": [r.to_json() for r in self.results],
            "levers": self.levers,
            "variable_shapes": self.variable_shapes,
            "cases": self.cases,
            "phases_s": self.phases_s,
            "picture": self.picture,
        }


def finite_safe(value):
    """`value` with every non-finite float replaced by the string "inf", "-inf" or "nan".

    JSON has no infinity or NaN, and a mismatch row is exactly where they appear (a NaN loss, a shape
    that differs), so they are written as strings rather than lose the document.
    """
    if isinstance(value, dict):
        return {k: finite_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_safe(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # numpy scalars
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def json_text(document: dict) -> str:
    """The one way tfcompare turns a document into JSON text: finite-safe, strict, indented."""
    return json.dumps(finite_safe(document), indent=2, allow_nan=False, default=_jsonable)


def write_json_atomic(path: str | Path, document: dict) -> Path:
    """Write JSON to a temporary file beside `path`, then rename: a reader never sees half a file.

    The file gets the permissions a plain `open` would give (mkstemp's are private).
    """
    return write_atomic(path, json_text(document) + "\n")


def _jsonable(value):
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")
