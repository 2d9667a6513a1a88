"""The paired-run harness: every selected case in every selected mode, compared and timed.

Per case: build each mode and time its first call (the order of modes rotates from case to case,
so process-wide one-time start-up does not always fall on the same mode); check each mode against
`tf1-graph` on the same seeded weights and batches; then time the modes' steady state together,
interleaved (see `timing`); finally write each mode's TensorBoard folder and `results.json`.
A mode that fails is recorded with its error and the rest of the run goes on.

This module runs the cases in turn; each phase of one case is a module of its own, all working on the
case's `case_run._CaseRun`: `case_run` (inputs, builds and first calls), `measure` (FLOPs, timing,
profiling), `checks` (equivalence), `distributed_phase` and `graph_export`. `config` holds `RunConfig`.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import time
from pathlib import Path
from typing import Callable

import numpy as np
import tensorflow as tf

from tfcompare.core import environment
from tfcompare.core.budget import available_bytes, check_fits, run_floor_bytes
from tfcompare.core.cases import Case, find_case
from tfcompare.core.files import claim_folder, default_run_name, write_atomic
from tfcompare.core.peak import gemm_peak
from tfcompare.core.modes import MODES
from tfcompare.core.results import RunResult, write_json_atomic
from tfcompare.core.timing import Timer
from tfcompare.core.watchdog import TimedOut, abandoned_threads, check_interrupt, deferred_interrupts, run_with_limit
from tfcompare.core.trace_log import QuietRetraceWarning
from tfcompare.report import picture, tables
from tfcompare.report import tensorboard as summaries
from tfcompare.run import checks, distributed_phase, graph_export, levers, measure, shapes
from tfcompare.run.case_run import _CaseRun
from tfcompare.run.config import DEFAULTS, MODE_TIMEOUT_S, QUICK, RunConfig
from tfcompare.run.distributed import DIST_MODES

__all__ = ["RunConfig", "run", "default_run_name", "QUICK", "DEFAULTS", "MODE_TIMEOUT_S", "RESULTS"]

RESULTS = "results.json"
PICTURE = "summary.png"


def _profile_plugin(progress) -> bool:
    """Profiling needs TensorBoard's profile plugin to be viewed; without it say so once and go on."""
    if importlib.util.find_spec("tensorboard_plugin_profile") or importlib.util.find_spec("xprof"):
        return True
    progress("--profile: the TensorBoard profile plugin is not installed (pip install 'tfcompare[profile]'); "
             "running without profiler traces")
    return False



_ACTIVATION_RATIO = 1000  # largest activation / input batches, per example, that the memory check assumes at most
_PROBE_BATCH = 7  # a batch no weight dimension is likely to share: a tensor that leads with it is per example


def largest_activation(case: Case, batch_size: int, limit_s: float | None) -> int:
    """Bytes of the largest tensor the TF2 forward pass makes at `batch_size` (traced at a batch of 7, never run),
    0 when it cannot be traced. The input batches are not all a step holds: a wide hidden layer can be larger."""
    def trace():
        model = case.tf2_model(case.init_weights(np.random.default_rng(0)))
        inputs = case.tf2_inputs(case.make_batch(np.random.default_rng(0), _PROBE_BATCH))
        specs = {k: tf.TensorSpec(np.shape(v), tf.as_dtype(np.asarray(v).dtype)) for k, v in inputs.items()}
        return tf.function(lambda batch: model(batch)).get_concrete_function(specs).graph
    try:
        graph = run_with_limit(trace, limit_s, f"{case.name}: the size of its activations")
    except Exception:  # a case that cannot be traced fails in the run, with its error, as before
        return 0
    sizes = [t.shape.num_elements() * t.dtype.size for op in graph.get_operations() for t in op.outputs
             if (t.dtype.is_floating or t.dtype.is_integer) and t.shape.rank and t.shape.is_fully_defined()
             and t.shape[0] == _PROBE_BATCH]
    return max(sizes, default=0) // _PROBE_BATCH * batch_size


def check_budget(config: RunConfig, cases: list[Case]) -> None:
    """Refuse, before allocating anything, a run that cannot fit in the available memory: its batches, then its
    batches and the largest activation of the forward pass; the message names the option that makes it too big."""
    loop_modes = sum(MODES[m].loop for m in config.modes)
    available = available_bytes()
    for case in cases:
        batch_size = config.batch_size or case.default_batch_size
        lengths = config.seq_lens if case.make_varied_batch else ()

        def floor(seq_lens):
            return run_floor_bytes(case.inputs, batch_size=batch_size, steps=config.steps, modes=len(config.modes),
                                   loop_modes=loop_modes, loop_steps=config.loop_steps, seq_lens=seq_lens)
        what = (f"case {case.name!r} at batch size {batch_size} with {config.steps} steps"
                + (f" and {config.loop_steps} loop steps" if loop_modes else "")
                + (f" and lengths up to {max(lengths)}" if lengths else ""))
        blame = ("'--seq-lens'" if lengths and floor(()) <= available < floor(lengths) else
                 "'--batch-size' / '--steps' / '--loop-steps'")
        check_fits(what, floor(lengths), available, options=blame)
        if floor(lengths) * _ACTIVATION_RATIO < available:  # tracing the model (a script case runs its script) is
            continue  # skipped when even an activation a thousand times the inputs would fit
        activation = largest_activation(case, batch_size, config.mode_timeout_s)
        check_fits(what, floor(lengths) + activation, available, options="'--batch-size'",
                   of=f"its batches and its largest activation ({activation / 2**30:.3g} GiB)")


def run(config: RunConfig, registry: dict[str, Case], logdir: str | Path, run_name: str | None = None, *,
        overwrite: bool = False, timer: Timer | None = None,
        progress: Callable[[str], None] = lambda line: None) -> RunResult:
    """Run every case × mode of `config`, write TensorBoard folders and `results.json`, return the results.

    The run gets a folder of its own under `logdir`: `run_name`, which must not hold another run unless
    `overwrite` (and then only a previous run is replaced), or by default the start time, made unique
    for runs started in the same second. `results.json` is rewritten after every case with
    `complete: false`, and `complete: true` only at the normal end, so a killed run is never mistaken
    for a finished one. On KeyboardInterrupt the finished cases are kept, `results.json` is written
    with `interrupted: true`, and the interrupt is raised again for the caller to exit.
    Raises `CaseError` (an unknown case), `TooBig` (the batches cannot fit in memory) and
    `FolderTaken`, all `ValueError`s, before anything is written.
    """
    cases = [find_case(registry, name) for name in config.cases]
    check_budget(config, cases)
    # Ctrl-C becomes KeyboardInterrupt only at safe points from here on (see watchdog.deferred_interrupts)
    with deferred_interrupts():
        return _run(config, cases, logdir, run_name, overwrite, timer, progress)


def _cpu_s() -> float:
    t = os.times()
    return t.user + t.system


@contextlib.contextmanager
def _phase(phases: dict, name: str, cpu: dict | None = None):
    """Add the wall time of the block to `phases[name]` and this process's CPU time to `cpu[name]`.

    Where a run's time goes, in results.json. The CPU seconds barely move when other processes load the
    machine, so they say what the phase costs on an idle one, where the wall time is inflated.
    """
    t0, c0 = time.perf_counter(), _cpu_s()
    try:
        yield
    finally:
        phases[name] = phases.get(name, 0.0) + time.perf_counter() - t0
        if cpu is not None:
            cpu[name] = cpu.get(name, 0.0) + _cpu_s() - c0


def _run(config, cases, logdir, run_name, overwrite, timer, progress) -> RunResult:
    started, load_start = time.perf_counter(), environment.load_snapshot()
    run_dir = claim_folder(Path(logdir), run_name, default_run_name(), overwrite=overwrite)
    run_name = run_dir.name
    timer = timer or Timer(min_block_s=config.min_block_s)
    intra, inter = environment.configure_threads(config.threads, config.threads)
    env = environment.describe(intra, inter, timer.name, timer.overhead())
    peak = gemm_peak(env.memory_device, intra)
    env.gemm_peak_gflops, env.gemm_method, env.gemm_cached, env.gemm_error = (peak.gflops, peak.method, peak.cached,
                                                                              peak.error)
    env.gemm_now_gflops, env.gemm_replaced_gflops = peak.now_gflops, peak.replaced_gflops
    result = RunResult(run_name=run_name, run_dir=str(run_dir), config=config.to_json(), environment=env.to_json())
    result.phases_s["start-up (environment, GEMM rate)"] = time.perf_counter() - started
    session_config = environment.session_config(intra, inter)

    def save(final: bool = False):
        result.levers = [row.to_json() for row in levers.lever_report(result)]
        result.abandoned_threads = abandoned_threads()
        if final:
            load = environment.machine_load(load_start, environment.load_snapshot(), env.cpu_count)
            result.environment["load"] = load  # the warning is the table's (run's) to print, once
            with _phase(result.phases_s, "picture and run-level TensorBoard"):
                png = picture.summary_png(result)
                write_atomic(run_dir / PICTURE, png)
                result.picture = str((run_dir / PICTURE).resolve())
                summaries.write_run(result, tables.markdown_table(result), png)
        result.wall_s = time.perf_counter() - started
        write_json_atomic(run_dir / RESULTS, result.to_json())

    save()  # from the start, the folder says what it is: a run that has not finished
    try:
        with QuietRetraceWarning():
            _run_cases(config, cases, run_dir, result, session_config, timer, progress, save)
    except KeyboardInterrupt:
        result.interrupted = True
        save(final=True)
        raise
    result.complete = True
    save(final=True)
    return result


def _steps_text(config) -> str:
    """`5 steps`, or `3 steps (--quick's default; 5 without --quick)`, so a quick run's count is not read as a bug."""
    if config.quick and config.steps == QUICK["steps"] != DEFAULTS["steps"]:
        return f"{config.steps} steps (--quick's default; {DEFAULTS['steps']} without --quick)"
    return f"{config.steps} steps"


def _run_cases(config, cases, run_dir, result, session_config, timer, progress, save):
    """Each case in turn; `save` writes results.json after every case, so a kill keeps what finished."""
    profiling = config.profile and _profile_plugin(progress)
    for index, case in enumerate(cases):
        check_interrupt()
        name = case.name
        case_run = _CaseRun(case, config, session_config, index, timer)
        phases: dict[str, float] = {}
        cpu: dict[str, float] = {}
        rounds = f"{config.repeats} rounds" if config.repeats else \
            f"until every ratio is within \u00b1{config.target:.0%} or {config.case_budget_s:g} s"
        try:
            progress(f"[{index + 1}/{len(config.cases)}] {name}: building and first calls")
            if case_run.prepare():
                with _phase(phases, "build, first calls, warm-up", cpu):
                    for mode in case_run.order:
                        check_interrupt()
                        case_run.start(mode)
                with _phase(phases, "FLOP count", cpu):
                    measure.count_flops(case_run)
                progress(f"[{index + 1}/{len(config.cases)}] {name}: equivalence over {_steps_text(config)}")
                with _phase(phases, "equivalence and state check", cpu):
                    checks.check(case_run)
                progress(f"[{index + 1}/{len(config.cases)}] {name}: timing {len(case_run.runners)} modes "
                         f"interleaved, {rounds}")
                with _phase(phases, "timing", cpu):
                    measure.measure(case_run)
                if case_run.sampled:
                    progress(f"[{index + 1}/{len(config.cases)}] {name}: {case_run.sampled['text']}")
                measure.limit(case_run, result.environment.get("gemm_peak_gflops"))
                if profiling:
                    with _phase(phases, "profile", cpu):
                        measure.profile(case_run, run_dir)
            if config.distributed and case_run.order:
                with _phase(phases, "distributed", cpu):
                    distributed_phase.distributed(case_run, run_dir, progress,
                                                  f"[{index + 1}/{len(config.cases)}] {name}")
            with _phase(phases, "graph export and TensorBoard", cpu):
                graph_export.write(case_run, run_dir, result)
            rows = case_run.rows.values()
            phases["of which XLA first calls (compiles)"] = sum(r.first_call_s or 0 for r in rows
                                                                if r.mode in MODES and MODES[r.mode].jit_compile)
            phases["of which state check"] = sum(r.state_check_s or 0 for r in rows)
            result.cases.append({"case": name, "phases_s": phases, "phases_cpu_s": cpu,
                                 "sampling": case_run.sampled})
            if config.seq_lens and case.make_varied_batch is not None and case_run.runners:
                progress(f"[{index + 1}/{len(config.cases)}] {name}: variable lengths {list(config.seq_lens)} "
                         f"through {len(shapes.VARIANTS)} variants")
                rng = np.random.default_rng(config.seed + 1)
                try:
                    found = run_with_limit(lambda: shapes.run_variants(
                        case, case_run.weights, lambda n: case.make_varied_batch(rng, case_run.batch_size, n),
                        list(config.seq_lens), passes=config.shape_passes, session_config=session_config,
                        timer=timer), None if config.mode_timeout_s is None else
                        config.mode_timeout_s * len(shapes.VARIANTS), f"{name}: variable lengths")
                    result.variable_shapes.extend(v.to_json() for v in found)
                except TimedOut as exc:
                    result.variable_shapes.append({"case": name, "variant": "all", "lengths": list(config.seq_lens),
                                                   "traces": 0, "total_s": None, "first_pass_s": None,
                                                   "step_median_s": None, "error": str(exc)})
        finally:
            case_run.close()
        result.results.extend(case_run.rows[m] for m in [*config.modes, *DIST_MODES] if m in case_run.rows)
        save()
        check_interrupt()
