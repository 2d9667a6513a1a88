"""The measurement phases of a case: the step's FLOPs, the interleaved steady-state timing, and profiling.

`count_flops` traces one training step; `measure` times every live mode in the same interleaved rounds
(`core.timing`) until `sampling`'s stopping rule is met, and records each mode's step time and its speed
against tf1-graph and tf2-eager; `limit` turns the times into GFLOP/s and a fraction of the machine's GEMM rate;
`profile` captures a `tf.profiler` trace per mode.
"""

from __future__ import annotations

from pathlib import Path

import tensorflow as tf

from tfcompare.core.graphs import step_flops
from tfcompare.core.modes import CORE_MODES, EAGER_MODE, MODES, REFERENCE_MODE
from tfcompare.core.results import ModeResult
from tfcompare.core.timing import Measurement, Sampling, paired_ratio, sample
from tfcompare.core.watchdog import TimedOut, run_with_limit
from tfcompare.report import tensorboard as summaries
from tfcompare.run.case_run import _CaseRun, _message

__all__ = ["count_flops", "limit", "measure", "sampling", "profile"]


def _record_timing(row: ModeResult, m: Measurement) -> None:
    row.step_times_s, row.samples = list(m.samples), len(m.samples)
    row.step_median_s, row.step_iqr_s, row.step_q1_s, row.step_q3_s = m.median, m.iqr, m.q1, m.q3
    interval = m.interval
    row.step_ci_s = [interval.low, interval.high] if interval else None
    row.noisy = m.noisy


def _ratio(ref: ModeResult | None, row: ModeResult):
    """(median over rounds of ref block / row block, its 95% interval [low, high] or None, the Interval or None).

    Rows timed in the same interleaved rounds pair up; rows that do not (distributed workers) get the
    ratio of the medians and no interval. None for the estimate when either was not measured.
    """
    if ref is None or not ref.step_median_s or not row.step_median_s:
        return None, None, None
    if ref is row:
        return 1.0, None, None
    interval = paired_ratio(ref.step_times_s, row.step_times_s) if row.workers is None else None
    if interval is None:
        return ref.step_median_s / row.step_median_s, None, None
    return interval.estimate, [interval.low, interval.high], interval


def _record_speed(row: ModeResult, ref: ModeResult | None, eager: ModeResult | None = None) -> None:
    """Speed against tf1-graph and against tf2-eager (> 1 is faster), each with its 95% interval.

    `noisy` then speaks of the tf1 ratio's interval, the one the table's NOISY flag explains.
    """
    row.speedup_vs_tf1_graph, row.speedup_ci, interval = _ratio(ref, row)
    if interval is not None:
        row.noisy = interval.noisy or bool(row.retraces_during_timing)
    row.speedup_vs_eager, row.speedup_vs_eager_ci, _ = _ratio(eager, row)


def count_flops(case_run: _CaseRun) -> None:
    """FLOPs and ops of one training step, from the TF2 step traced at this batch's shapes: tf2-function's own
    trace when that mode was built (a fresh trace costs as much again), else a fresh one."""
    def trace():
        traced = case_run.runners.get("tf2-function")
        graph = traced.step_graph(case_run.batch) if traced is not None else None
        if graph is not None:
            return step_flops(graph)
        model = case_run.case.tf2_model(case_run.weights)
        tensors = {k: tf.constant(v) for k, v in case_run.case.tf2_inputs(case_run.batch).items()}
        return step_flops(tf.function(model.train_step).get_concrete_function(tensors).graph)
    try:
        case_run.cost = case_run._guard("flops", "counting FLOPs", trace)
    except Exception:  # the limit column stays empty; nothing else depends on it
        case_run.cost = None


def limit(case_run: _CaseRun, peak_gflops: float | None) -> None:
    """Each measured mode's GFLOP/s, its fraction of the machine's GEMM rate, and µs per op."""
    cost = case_run.cost
    if not cost:
        return
    for row in case_run.rows.values():
        row.step_flops, row.step_ops, row.flops_lower_bound = cost["flops"], cost["ops"], cost["has_loops"]
        if row.step_median_s:
            row.gflops_per_s = cost["flops"] / row.step_median_s / 1e9
            row.us_per_op = row.step_median_s / max(cost["ops"], 1) * 1e6
            if peak_gflops:
                row.fraction_of_peak = row.gflops_per_s / peak_gflops


def measure(case_run: _CaseRun) -> None:
    """Time the steady state of every live mode, interleaved, and check nothing retraced meanwhile.

    The whole interleaved measurement runs under one limit (the per-mode limit times the modes);
    if a mode hangs, it is dropped and the others are measured again without it.
    """
    timed, before = {}, {}
    for mode, runner in case_run.runners.items():
        try:
            timed[mode] = runner.timed(case_run.batch, case_run.config.loop_steps)
            before[mode] = runner.traces()
        except Exception as exc:
            case_run.rows[mode].fail("error", _message(exc))

    def dropped(mode, exc):
        case_run.rows[mode].fail("error", f"failed while timing: {_message(exc)}")

    measured: dict = {}
    while timed:
        current = {"mode": None}
        rule = sampling(case_run, timed)

        def measure_all():
            return sample(case_run.timer, timed, rule, on_error=dropped,
                          on_block=lambda name: current.__setitem__("mode", name))
        time_limit = None if case_run.config.mode_timeout_s is None else case_run.config.mode_timeout_s * len(timed)
        try:
            found = run_with_limit(measure_all, time_limit, f"{case_run.case.name}: timing {len(timed)} modes")
            measured, case_run.sampled = found.measurements, found.to_json(rule)
            break
        except TimedOut:
            hung = current["mode"]
            case_run._drop(hung, f"timed out while timing (no block finished within the "
                                 f"{case_run.config.mode_timeout_s:g} s limit per mode)")
            timed.pop(hung)
    for mode, m in measured.items():
        row, runner = case_run.rows[mode], case_run.runners[mode]
        _record_timing(row, m)
        row.calls_per_block = m.calls_per_block
        row.traces = runner.traces()
        row.retraces_during_timing = row.traces - before[mode]
        if row.retraces_during_timing:
            row.noisy = True
    ref, eager = case_run.rows.get(REFERENCE_MODE), case_run.rows.get(EAGER_MODE)
    for row in case_run.rows.values():
        _record_speed(row, ref, eager)


def sampling(case_run: _CaseRun, timed) -> Sampling:
    """The stopping rule: fixed rounds (--repeats), or until every ratio the report shows is precise.

    The ratios: each mode against tf1-graph, and each lever mode against its parent (`run.levers`).
    The core modes' gains over each other are reported too, but do not prolong the sampling.
    """
    config = case_run.config
    pairs = [(REFERENCE_MODE, m) for m in timed if m != REFERENCE_MODE]
    pairs += [(MODES[m].parent, m) for m in timed if m not in CORE_MODES and MODES[m].parent in timed
              and (MODES[m].parent, m) not in pairs]
    return Sampling(rounds=config.repeats, target=config.target, budget_s=config.case_budget_s,
                    pairs=tuple((a, b) for a, b in pairs if a in timed))


def profile(case_run: _CaseRun, run_dir: Path, steps: int = 5) -> None:
    """A `tf.profiler` trace of a few steps per mode, into the mode's TensorBoard folder."""
    for mode, runner in case_run.runners.items():
        timed = runner.timed(case_run.batch, case_run.config.loop_steps)
        tf.profiler.experimental.start(str(summaries.profile_dir(run_dir, case_run.case.name, mode)))
        try:
            for _ in range(steps):
                timed.fn()
        finally:
            tf.profiler.experimental.stop()
