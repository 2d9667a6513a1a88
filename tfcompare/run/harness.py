"""The paired-run harness: every selected case in every selected mode, compared and timed.

Per case: build each mode and time its first call (the order of modes rotates from case to case,
so process-wide one-time start-up does not always fall on the same mode); check each mode against
`tf1-graph` on the same seeded weights and batches; then time the modes' steady state together,
interleaved (see `timing`); finally write each mode's TensorBoard folder and `results.json`.
A mode that fails is recorded with its error and the rest of the run goes on.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import importlib.util
import os
import shutil
import tempfile
import time
import traceback
from pathlib import Path
from typing import Callable

import numpy as np
import tensorflow as tf

from tfcompare.core import environment, equivalence, optimizer_replay
from tfcompare.core.budget import available_bytes, check_fits, run_floor_bytes
from tfcompare.core.cases import Case, case_source, find_case
from tfcompare.core.errors import describe, is_interrupt
from tfcompare.core.files import claim_folder, pid_temp_dir, remove_dead_temp_dirs, write_atomic
from tfcompare.core.graphs import step_flops
from tfcompare.core.layer_outputs import first_differing_layer
from tfcompare.core.peak import gemm_peak
from tfcompare.core.modes import CORE_MODES, MODES, REFERENCE_MODE
from tfcompare.core.results import ModeResult, RunResult, write_json_atomic
from tfcompare.core.runners import NotSplittable, Runner, make_runner
from tfcompare.core.timing import TARGET_HALF_WIDTH, Measurement, Sampling, Timer, paired_ratio, rotated, sample
from tfcompare.core.watchdog import TimedOut, abandoned_threads, check_interrupt, deferred_interrupts, run_with_limit
from tfcompare.core.trace_log import QuietRetraceWarning
from tfcompare.report import picture, tables
from tfcompare.report import tensorboard as summaries
from tfcompare.run import levers, shapes
from tfcompare.run.distributed import DIST_MODES, run_distributed, supported
from tfcompare.run.distributed.cluster import STRATEGIES, DistError

__all__ = ["RunConfig", "run", "default_run_name", "QUICK", "DEFAULTS", "MODE_TIMEOUT_S", "RESULTS"]

_MEMORY_WARMUP_STEPS = 1  # the peak over the first call and one steady step (a step allocates alike every time)
MODE_TIMEOUT_S = 300.0  # per mode and phase: generous for XLA compiles, finite for a step that hangs
RESULTS = "results.json"
PICTURE = "summary.png"
_SEED_MAX = 2**32 - 1  # numpy's seeds: 0 .. 2**32-1


@dataclasses.dataclass(frozen=True)
class RunConfig:
    """What to run and how hard to measure. Validated at construction, naming the bad value.

    Args:
        cases: case names (from the registry the caller passes to `run`).
        modes: mode names from `modes.MODES`.
        batch_size: overrides every case's default batch size when set.
        steps: K, the training steps compared for equivalence.
        repeats: a fixed number of timed rounds (samples per mode); None: adaptive (see `target`).
        target: adaptive sampling stops once every ratio's 95% interval is within this fraction either side...
        case_budget_s: ...or when a case's timing has taken this long (calibration included).
        seed: seeds weights and batches; every mode gets the same ones.
        loop_steps: steps per call in the looped modes.
        min_block_s: minimum length of one timed block.
        threads: intra- and inter-op threads for every mode.
        quick: recorded in results.json (the caller chose shorter settings).
        profile: capture a `tf.profiler` trace per mode (needs the profile plugin to view).
        seq_lens: lengths of the varying dim to stream through the `tf.function` variants (see `shapes`).
        shape_passes: passes over that stream (the first carries the tracing).
        mode_timeout_s: wall-clock limit for one mode in one phase (build and first call, equivalence,
            graph export; timing gets this per mode); None: no limit, and nothing runs on a worker thread.
    """

    cases: tuple[str, ...]
    modes: tuple[str, ...] = CORE_MODES
    batch_size: int | None = None
    steps: int = 5
    repeats: int | None = None
    target: float = TARGET_HALF_WIDTH
    case_budget_s: float = 2.0
    seed: int = 0
    loop_steps: int = 10
    min_block_s: float = 0.03
    threads: int = dataclasses.field(default_factory=lambda: os.cpu_count() or 1)
    quick: bool = False
    profile: bool = False
    seq_lens: tuple[int, ...] = ()
    shape_passes: int = 3
    mode_timeout_s: float | None = MODE_TIMEOUT_S
    distributed: int = 0  # N > 0 adds the distributed modes with N replicas (run.distributed)
    optimized_graphs: bool = True  # export Grappler's graph and XLA's HLO too (each costs another optimisation)
    # compile an XLA mode's forward pass and gradients for the equivalence check (as costly as its step's compile);
    # False (--quick): only when tf2-function's, the same traced code, did not agree or did not run
    xla_probes: bool = True

    def __post_init__(self):
        if not self.cases:
            raise ValueError("`cases` is empty: choose at least one case")
        if not self.modes:
            raise ValueError("`modes` is empty: choose at least one mode")
        unknown = [m for m in self.modes if m not in MODES]
        if unknown:
            raise ValueError(f"unknown mode(s) {', '.join(unknown)}; choose from {', '.join(MODES)}")
        for name in ("steps", "repeats", "loop_steps", "threads"):
            value = getattr(self, name)
            if name == "repeats" and value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"`{name}` must be a positive integer, got {value!r}")
        for name in ("target", "case_budget_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"`{name}` must be positive, got {getattr(self, name)!r}")
        if self.batch_size is not None and (not isinstance(self.batch_size, int) or self.batch_size < 1):
            raise ValueError(f"`batch_size` must be a positive integer, got {self.batch_size!r}")
        if any(not isinstance(n, int) or n < 1 for n in self.seq_lens):
            raise ValueError(f"`seq_lens` must be positive integers, got {self.seq_lens!r}")
        if not self.min_block_s > 0:
            raise ValueError(f"`min_block_s` must be positive, got {self.min_block_s!r}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or not 0 <= self.seed <= _SEED_MAX:
            raise ValueError(f"`seed` must be an integer from 0 to {_SEED_MAX}, got {self.seed!r}")
        if self.mode_timeout_s is not None and not self.mode_timeout_s > 0:
            raise ValueError(f"`mode_timeout_s` must be positive or None, got {self.mode_timeout_s!r}")
        if not isinstance(self.distributed, int) or isinstance(self.distributed, bool) or not 0 <= self.distributed <= 8:
            raise ValueError(f"`distributed` must be a number of workers from 1 to 8 (0: off), got {self.distributed!r}")

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


DEFAULTS = {"steps": 5, "repeats": None, "min_block_s": 0.02, "case_budget_s": 2.0}
QUICK = {"steps": 3, "repeats": None, "min_block_s": 0.01, "case_budget_s": 0.5, "target": 0.05,
         "optimized_graphs": False, "xla_probes": False}
_DIST_STEPS = 20  # timed steps per distributed worker when the rounds are adaptive


def default_run_name() -> str:
    return datetime.datetime.now().strftime("%Y%m%d-%H%M%S")


def _profile_plugin(progress) -> bool:
    """Profiling needs TensorBoard's profile plugin to be viewed; without it say so once and go on."""
    if importlib.util.find_spec("tensorboard_plugin_profile") or importlib.util.find_spec("xprof"):
        return True
    progress("--profile: the TensorBoard profile plugin is not installed (pip install 'tfcompare[profile]'); "
             "running without profiler traces")
    return False


def _message(exc: BaseException) -> str:
    """One line for an error row; an interrupt TensorFlow wrapped is raised again as Ctrl-C."""
    if is_interrupt(exc) and not isinstance(exc, KeyboardInterrupt):
        raise KeyboardInterrupt from exc
    return describe(exc)





def _optimizers(tf1_runner: Runner, tf2_runner: Runner) -> str:
    """What each side updates with: TF1's apply ops in its graph, TF2's optimizer class (for a diagnosis)."""
    graph = getattr(tf1_runner, "graph", None)
    applies = sorted({op.type for op in graph.get_operations() if "Apply" in op.type}) if graph is not None else []
    optimizer = getattr(getattr(tf2_runner, "model", None), "optimizer", None)
    tf2 = f"{type(optimizer).__module__}.{type(optimizer).__name__}" if optimizer is not None else "unknown"
    return f"TF1 applies {', '.join(applies) or 'no Apply op'}; TF2 uses {tf2}"


def _record_equivalence(row: ModeResult, eq: equivalence.Equivalence) -> None:
    row.equivalence = eq.to_json()
    row.max_abs_err, row.max_rel_err, row.tolerance = eq.max_abs_err, eq.max_rel_err, str(eq.tolerance)
    worst = eq.worst()
    row.worst_check = worst.name if worst else None


def _record_timing(row: ModeResult, m: Measurement) -> None:
    row.step_times_s, row.samples = list(m.samples), len(m.samples)
    row.step_median_s, row.step_iqr_s, row.step_q1_s, row.step_q3_s = m.median, m.iqr, m.q1, m.q3
    interval = m.interval
    row.step_ci_s = [interval.low, interval.high] if interval else None
    row.noisy = m.noisy


def _record_speed(row: ModeResult, ref: ModeResult | None) -> None:
    """Speed against tf1-graph: the median over rounds of tf1 block / mode block, with its 95% interval.

    Rows timed in the same interleaved rounds pair up; rows that do not (distributed workers) get the
    ratio of the medians and no interval. `noisy` then speaks of this ratio's interval.
    """
    if ref is None or not ref.step_median_s or not row.step_median_s:
        return
    if ref is row:
        row.speedup_vs_tf1_graph = 1.0
        return
    interval = paired_ratio(ref.step_times_s, row.step_times_s) if row.workers is None else None
    if interval is None:
        row.speedup_vs_tf1_graph = ref.step_median_s / row.step_median_s
        return
    row.speedup_vs_tf1_graph = interval.estimate
    row.speedup_ci = [interval.low, interval.high]
    row.noisy = interval.noisy or bool(row.retraces_during_timing)


class _CaseRun:
    """The state of one case while its modes are built, checked and timed.

    Every piece that runs the user's code goes through `_guard`: a wall-clock limit per mode and
    phase (see `watchdog`), after which the mode is an error row and the case goes on without it.
    """

    def __init__(self, case: Case, config: RunConfig, session_config, index: int, timer: Timer):
        self.case, self.config, self.timer = case, config, timer
        self.batch_size = config.batch_size or case.default_batch_size
        self.session_config = session_config
        self.order = rotated(list(config.modes), index)
        self.rows = {m: ModeResult(case=case.name, mode=m, batch_size=self.batch_size,
                                   steps_per_call=config.loop_steps if MODES[m].loop else 1)
                     for m in config.modes}
        self.runners: dict[str, Runner] = {}
        self.cost: dict | None = None  # FLOPs and ops of one step (count_flops)
        self.sampled: dict | None = None  # how the timing rounds went (measure)
        self.reference_values: dict | None = None  # tf1-graph's equivalence snapshot (check)
        for mode, why in case.unsupported_modes.items():
            if mode in self.rows:
                self.rows[mode].status, self.rows[mode].error = "skipped", f"not supported by this case: {why}"
                self.order.remove(mode)

    def prepare(self) -> bool:
        """The shared weights and batches (the user's code); if it fails every mode is an error row."""
        config, case = self.config, self.case
        try:
            def make():
                weights = case.init_weights(np.random.default_rng(config.seed))
                batch = case.make_batch(np.random.default_rng(config.seed + 1), self.batch_size)
                batches = [case.make_batch(np.random.default_rng(config.seed + 2 + i), self.batch_size)
                           for i in range(config.steps)]
                return weights, batch, batches
            self.weights, self.batch, self.batches = self._guard("set-up", "weights and batches", make)
        except Exception as exc:
            why = f"case set-up failed: {_message(exc)}"
            for mode in self.order:
                self.rows[mode].fail("error", why)
            self.order = []
            return False
        return True

    def count_flops(self) -> None:
        """FLOPs and ops of one training step, from the TF2 step traced at this batch's shapes: tf2-function's own
        trace when that mode was built (a fresh trace costs as much again), else a fresh one."""
        def trace():
            traced = self.runners.get("tf2-function")
            graph = traced.step_graph(self.batch) if traced is not None else None
            if graph is not None:
                return step_flops(graph)
            model = self.case.tf2_model(self.weights)
            tensors = {k: tf.constant(v) for k, v in self.case.tf2_inputs(self.batch).items()}
            return step_flops(tf.function(model.train_step).get_concrete_function(tensors).graph)
        try:
            self.cost = self._guard("flops", "counting FLOPs", trace)
        except Exception:  # the limit column stays empty; nothing else depends on it
            self.cost = None

    def limit(self, peak_gflops: float | None) -> None:
        """Each measured mode's GFLOP/s, its fraction of the machine's GEMM rate, and µs per op."""
        cost = self.cost
        if not cost:
            return
        for row in self.rows.values():
            row.step_flops, row.step_ops, row.flops_lower_bound = cost["flops"], cost["ops"], cost["has_loops"]
            if row.step_median_s:
                row.gflops_per_s = cost["flops"] / row.step_median_s / 1e9
                row.us_per_op = row.step_median_s / max(cost["ops"], 1) * 1e6
                if peak_gflops:
                    row.fraction_of_peak = row.gflops_per_s / peak_gflops

    def _guard(self, mode: str, what: str, fn):
        return run_with_limit(fn, self.config.mode_timeout_s, f"{self.case.name}/{mode}: {what}")

    def _runner(self, mode: str) -> Runner:
        return make_runner(mode, MODES[mode], self.case, self.weights, self.session_config)

    def start(self, mode: str) -> None:
        """Build the mode and time its first call; measure the allocator peak over it and a few steps."""
        row = self.rows[mode]
        runner = self._runner(mode)

        def build_and_first_call():
            t0 = self.timer.clock()
            runner.build()
            row.build_s = self.timer.clock() - t0
            with environment.PeakMemory() as memory:
                row.first_call_s, _ = self.timer.first_call(lambda: runner.first_call(self.batch))
                runner.train([self.batch] * _MEMORY_WARMUP_STEPS)
            row.peak_memory_bytes = memory.bytes

        try:
            self._guard(mode, "build and first call", build_and_first_call)
            self.runners[mode] = runner
        except TimedOut as exc:
            row.fail("error", str(exc))  # the runner may still be in use by the stuck thread: leave it
        except NotSplittable as exc:  # like a mode the case declares unsupported: skipped, with the reason
            row.status, row.error = "skipped", f"not supported by this case: {exc}"
            runner.close()
        except Exception as exc:
            row.fail("error", _message(exc))
            row.equivalence = {"traceback": traceback.format_exc()}
            runner.close()

    def _drop(self, mode: str, message: str) -> None:
        self.rows[mode].fail("error", message)
        self.runners.pop(mode, None)

    def check(self) -> None:
        """Compare each mode with the tf1-graph reference (built untimed if it was not selected)."""
        reference = self.runners.get(REFERENCE_MODE)
        extra, why = None, None
        if reference is None and REFERENCE_MODE not in self.rows:
            extra = self._runner(REFERENCE_MODE)
            try:
                self._guard(REFERENCE_MODE, "reference build", lambda: (extra.build(), extra.first_call(self.batch)))
                reference = extra
            except Exception as exc:
                reference, why = None, f"reference {REFERENCE_MODE} failed: {_message(exc)}"
        elif reference is None:
            why = f"reference {REFERENCE_MODE} failed: {self.rows[REFERENCE_MODE].error}"
        try:
            if reference is None:
                for mode, runner in self.runners.items():
                    self.rows[mode].fail("error", f"no equivalence check: {why}")
                return
            try:
                ref = self._guard(REFERENCE_MODE, "equivalence run",
                                  lambda: equivalence.snapshot(reference, self.batch, self.batches))
                self.reference_values = ref
                if REFERENCE_MODE in self.rows:
                    self._non_finite(self.rows[REFERENCE_MODE], ref)
            except Exception as exc:
                for mode in self.runners:
                    self.rows[mode].fail("error", f"{REFERENCE_MODE} equivalence run failed: {_message(exc)}")
                return
            traced_agrees = False  # tf2-function's forward pass and gradients agreed with the reference
            for mode, runner in list(self.runners.items()):
                row = self.rows[mode]
                probes = not (MODES.get(mode) and MODES[mode].jit_compile and not self.config.xla_probes
                              and traced_agrees)
                try:
                    values = self._guard(mode, "equivalence run", lambda: equivalence.snapshot(
                        runner, self.batch, self.batches, probes=probes))
                    leak = None
                    if mode != REFERENCE_MODE:  # the same steps again from the restored state: bit-identical?
                        t0 = self.timer.clock()
                        again = self._guard(mode, "state check", lambda: equivalence.snapshot(
                            runner, self.batch, self.batches, probes=probes))
                        row.state_check_s = self.timer.clock() - t0
                        tol = equivalence.tolerance(self.case.dtype, self.case.tolerances.get(mode))
                        leak = equivalence.leak(values, again, runner.state_created_since(), tol)
                        rerun = equivalence.rerun_difference(values, again)
                    if leak:
                        row.fail("error", leak)
                        continue
                    eq = equivalence.compare(values, equivalence.same_quantities(ref, values), self.case.dtype,
                                             self.case.tolerances.get(mode))
                    if not probes and not eq.ok:  # XLA's own forward pass and gradients after all: where it starts
                        values = self._guard(mode, "equivalence run",
                                             lambda: equivalence.snapshot(runner, self.batch, self.batches))
                        eq, probes = equivalence.compare(values, ref, self.case.dtype,
                                                         self.case.tolerances.get(mode)), True
                    if mode == "tf2-function":
                        traced_agrees = all(c.ok for c in eq.checks if not c.name.startswith(("losses", "weights[")))
                except TimedOut as exc:
                    self._drop(mode, str(exc))
                    continue
                except Exception as exc:
                    row.fail("error", _message(exc))
                    continue
                _record_equivalence(row, eq)
                if not probes:
                    row.equivalence["compared"] = equivalence.STEPS_ONLY
                if mode != REFERENCE_MODE:  # the run's own noise: threads that add in another order each run
                    row.equivalence["rerun_max_abs_diff"] = rerun
                if self._non_finite(row, values, ref):
                    continue
                if not eq.ok:
                    message = equivalence.diagnose(eq, values, ref)
                    if "optimizer update" in message:
                        message += f" ({self._replay(reference, runner, ref, eq.tolerance.rtol)})"
                    elif message.startswith("the forward pass differs"):
                        message += self._first_layer(reference, runner, eq.tolerance)
                    row.fail("mismatch", f"{message} ({eq.tolerance})")
        finally:
            if extra is not None:
                extra.close()

    def _non_finite(self, row: ModeResult, values: dict, reference: dict | None = None) -> bool:
        """Mark the row `non-finite` when its own numbers are NaN or inf (whatever the reference has): where it
        starts, whether tf1-graph has it too, and the command that finds the first op."""
        where = equivalence.non_finite(values)
        if where is None:
            return False
        if reference is not None:
            where += ("; tf1-graph too" if equivalence.non_finite(reference) else "; tf1-graph stays finite")
        source = case_source(self.case)
        row.fail("non-finite", f"{where}; the first op that produces it: tfcompare debug {self.case.name}"
                               + (f" --cases-file {source}" if source else ""))
        return True

    def _first_layer(self, reference: Runner, runner: Runner, tol) -> str:
        """`; first in layer 'hidden' (...)` when Keras layer names match TF1 scopes; never an error."""
        try:
            found = self._guard(runner.name, "layer outputs", lambda: first_differing_layer(
                reference, runner, self.batch, tol.rtol, tol.atol))
        except Exception:
            return ""
        return f"; the first layer whose output differs: {found}" if found else ""

    def _replay(self, reference: Runner, runner: Runner, ref: dict, rtol: float) -> str:
        """Both optimizers, and which setting explains their difference (the same gradients through both)."""
        graph, session = getattr(reference, "graph", None), getattr(reference, "sess", None)
        theirs = getattr(getattr(runner, "model", None), "optimizer", None)
        try:
            mine = optimizer_replay.tf1_optimizer(graph, session) if session is not None else None
            other = optimizer_replay.tf2_optimizer(theirs)
            if mine is None or other is None:
                return _optimizers(reference, runner)
            grads = equivalence.gradients_of(ref)
            found = self._guard(runner.name, "optimizer replay", lambda: optimizer_replay.replay(
                mine, other, theirs, self.weights, grads, len(self.batches), rtol))
        except Exception as exc:  # a diagnosis must never turn a mismatch row into an error
            return f"{_optimizers(reference, runner)}; the optimizer replay failed: {_message(exc)}"
        self.rows[runner.name].optimizer_replay = found.to_json()
        return found.line()

    def distributed(self, run_dir: Path, progress, head: str) -> None:
        """The distributed modes, each in processes of its own; compared with tf1-graph on the whole batch."""
        workers = self.config.distributed
        model = next((r.model for r in self.runners.values() if hasattr(r, "model")), None)
        for mode in DIST_MODES:
            row = self.rows[mode] = ModeResult(case=self.case.name, mode=mode, batch_size=self.batch_size,
                                               workers=workers, strategy=STRATEGIES[mode])
            why = self.case.unsupported_modes.get(mode) or supported(mode, model)
            if why is None and self.batch_size % workers:
                why = f"the batch ({self.batch_size}) does not split evenly over {workers} workers"
            if why:
                row.status, row.error = "skipped", f"not supported by this case: {why}"
                continue
            if self.reference_values is None:
                row.fail("error", f"no equivalence check: {REFERENCE_MODE} did not run")
                continue
            progress(f"{head}: {mode} with {workers} workers")
            spec = {"case": self.case.name, "cases_file": case_source(self.case), "seed": self.config.seed,
                    "batch_size": self.batch_size, "steps": self.config.steps,
                    "repeats": self.config.repeats or _DIST_STEPS,
                    "options": dict(self.case.options)}
            # worker specs, logs and temporary files; what a killed run left is removed first (see files)
            remove_dead_temp_dirs(Path(tempfile.gettempdir()), f"tfcompare-{mode}-")
            folder = pid_temp_dir(Path(tempfile.gettempdir()), f"tfcompare-{mode}-")
            try:
                found = run_distributed(mode, spec, workers, folder, self.config.mode_timeout_s or MODE_TIMEOUT_S,
                                        self.config.threads)
            except DistError as exc:
                row.fail("error", str(exc))
                continue
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            self._distributed_row(row, found)

    def _distributed_row(self, row: ModeResult, found: dict) -> None:
        values = {k: np.asarray(v) for k, v in found["values"].items()}
        tol = equivalence.TOLERANCES[self.case.dtype]  # the same budget, stated: replicas sum in another order
        eq = equivalence.compare(values, self.reference_values, self.case.dtype,
                                 (tol.rtol, tol.atol, "all-reduce adds the replicas' gradients in another order"))
        _record_equivalence(row, eq)
        self._non_finite(row, values, self.reference_values)
        row.build_s, row.first_call_s = found["ready_s"], found["first_call_s"]
        _record_timing(row, Measurement(found["step_times_s"]))
        row.traces, row.strategy = found["traces"], found["strategy"]
        _record_speed(row, self.rows.get(REFERENCE_MODE))
        if not eq.ok:
            row.fail("mismatch", f"{equivalence.diagnose(eq, values, self.reference_values)} ({eq.tolerance})")

    def measure(self) -> None:
        """Time the steady state of every live mode, interleaved, and check nothing retraced meanwhile.

        The whole interleaved measurement runs under one limit (the per-mode limit times the modes);
        if a mode hangs, it is dropped and the others are measured again without it.
        """
        timed, before = {}, {}
        for mode, runner in self.runners.items():
            try:
                timed[mode] = runner.timed(self.batch, self.config.loop_steps)
                before[mode] = runner.traces()
            except Exception as exc:
                self.rows[mode].fail("error", _message(exc))

        def dropped(mode, exc):
            self.rows[mode].fail("error", f"failed while timing: {_message(exc)}")

        measured: dict = {}
        while timed:
            current = {"mode": None}
            sampling = self.sampling(timed)

            def measure_all():
                return sample(self.timer, timed, sampling, on_error=dropped,
                              on_block=lambda name: current.__setitem__("mode", name))
            limit = None if self.config.mode_timeout_s is None else self.config.mode_timeout_s * len(timed)
            try:
                found = run_with_limit(measure_all, limit, f"{self.case.name}: timing {len(timed)} modes")
                measured, self.sampled = found.measurements, found.to_json(sampling)
                break
            except TimedOut:
                hung = current["mode"]
                self._drop(hung, f"timed out while timing (no block finished within the "
                                 f"{self.config.mode_timeout_s:g} s limit per mode)")
                timed.pop(hung)
        for mode, m in measured.items():
            row, runner = self.rows[mode], self.runners[mode]
            _record_timing(row, m)
            row.calls_per_block = m.calls_per_block
            row.traces = runner.traces()
            row.retraces_during_timing = row.traces - before[mode]
            if row.retraces_during_timing:
                row.noisy = True
        ref = self.rows.get(REFERENCE_MODE)
        for row in self.rows.values():
            _record_speed(row, ref)

    def sampling(self, timed) -> Sampling:
        """The stopping rule: fixed rounds (--repeats), or until every ratio the report shows is precise.

        The ratios: each mode against tf1-graph, and each lever mode against its parent (`run.levers`).
        The core modes' gains over each other are reported too, but do not prolong the sampling.
        """
        config = self.config
        pairs = [(REFERENCE_MODE, m) for m in timed if m != REFERENCE_MODE]
        pairs += [(MODES[m].parent, m) for m in timed if m not in CORE_MODES and MODES[m].parent in timed
                  and (MODES[m].parent, m) not in pairs]
        return Sampling(rounds=config.repeats, target=config.target, budget_s=config.case_budget_s,
                        pairs=tuple((a, b) for a, b in pairs if a in timed))

    def profile(self, run_dir: Path, steps: int = 5) -> None:
        """A `tf.profiler` trace of a few steps per mode, into the mode's TensorBoard folder."""
        for mode, runner in self.runners.items():
            timed = runner.timed(self.batch, self.config.loop_steps)
            tf.profiler.experimental.start(str(summaries.profile_dir(run_dir, self.case.name, mode)))
            try:
                for _ in range(steps):
                    timed.fn()
            finally:
                tf.profiler.experimental.stop()

    def _extras(self, mode: str, runner: Runner) -> dict:
        extras = {"graph_def": runner.graph_def(self.batch), "autograph": runner.autograph_code()}
        if not self.config.optimized_graphs:  # --quick: they cost a compile each and buy no precision
            return extras
        if not MODES[mode].jit_compile:  # XLA's optimised program is the HLO below
            extras["optimized_graph"] = runner.optimized_graph(self.batch)
        if MODES[mode].jit_compile:
            extras["hlo"] = {stage: runner.hlo(self.batch, stage) for stage in ("hlo", "optimized_hlo")}
        return extras

    def write(self, run_dir: Path, result: RunResult) -> None:
        for mode, row in self.rows.items():
            runner = self.runners.get(mode)
            extras = {}
            if runner is not None:
                try:
                    extras = self._guard(mode, "graph export", lambda: self._extras(mode, runner))
                except Exception as exc:  # a missing graph must not lose the numbers
                    row.fail("error", f"graph export failed: {str(exc) if isinstance(exc, TimedOut) else _message(exc)}")
            summaries.write_mode(run_dir, row, **extras)

    def close(self) -> None:
        for runner in self.runners.values():
            runner.close()


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
            result.environment["load"] = load
            if load["warning"]:
                progress(f"warning: {load['warning']}")
            with _phase(result.phases_s, "picture and run-level TensorBoard"):
                png = picture.summary_png(result)
                write_atomic(run_dir / PICTURE, png)
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
                    case_run.count_flops()
                progress(f"[{index + 1}/{len(config.cases)}] {name}: equivalence over {config.steps} steps")
                with _phase(phases, "equivalence and state check", cpu):
                    case_run.check()
                progress(f"[{index + 1}/{len(config.cases)}] {name}: timing {len(case_run.runners)} modes "
                         f"interleaved, {rounds}")
                with _phase(phases, "timing", cpu):
                    case_run.measure()
                if case_run.sampled:
                    progress(f"[{index + 1}/{len(config.cases)}] {name}: {case_run.sampled['text']}")
                case_run.limit(result.environment.get("gemm_peak_gflops"))
                if profiling:
                    with _phase(phases, "profile", cpu):
                        case_run.profile(run_dir)
            if config.distributed and case_run.order:
                with _phase(phases, "distributed", cpu):
                    case_run.distributed(run_dir, progress, f"[{index + 1}/{len(config.cases)}] {name}")
            with _phase(phases, "graph export and TensorBoard", cpu):
                case_run.write(run_dir, result)
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
