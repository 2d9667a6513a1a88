"""One `tfcompare debug` session on one case: build each mode, find the first non-finite value, bisect Grappler
where a graph mode differs from eager, find the step where each mode leaves tf1-graph, and dump on request."""

from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path
from typing import Callable

import numpy as np
import tensorflow as tf

from tfcompare.core import equivalence
from tfcompare.core.cases import Case
from tfcompare.core.environment import session_config
from tfcompare.core.errors import describe
from tfcompare.core.modes import CORE_MODES, MODES, REFERENCE_MODE
from tfcompare.core.runners import make_runner
from tfcompare.core.trace_log import QuietRetraceWarning
from tfcompare.core.watchdog import TimedOut, check_interrupt, deferred_interrupts, run_with_limit
from tfcompare.tools.debug import dumps, grappler, numerics
from tfcompare.tools.debug.divergence import divergence, trajectory
from tfcompare.tools.debug.overhead import check_overhead
from tfcompare.tools.debug.report import DebugReport, Divergence, NonFinite

__all__ = ["DebugOptions", "debug_case"]

EAGER = "tf2-eager"
_GRAPH_MODES = ("tf1-graph", "tf2-function")  # what Grappler optimises (XLA compiles its own way)


@dataclasses.dataclass(frozen=True)
class DebugOptions:
    """What to run and what to write; validated here, naming the bad value."""

    modes: tuple[str, ...] = CORE_MODES
    steps: int = 3
    seed: int = 0
    threads: int = 2
    dump: Path | None = None  # Grappler per-pass graphs and XLA HLO, per mode
    debugger_v2: Path | None = None  # a Debugger V2 dump root
    eager_functions: bool = False  # tf.function modes run their Python step eagerly (breakpoints stop)
    overhead: bool = False  # also time each TF2 mode's step with and without numeric checking
    mode_timeout_s: float | None = None  # wall-clock limit per mode and piece (run's watchdog); None: no limit

    def __post_init__(self):
        bad = [m for m in self.modes if m not in CORE_MODES]
        if bad or not self.modes:
            raise ValueError(f"debug mode {bad[0] if bad else '(none)'!r} is not one of {', '.join(CORE_MODES)}")
        if not isinstance(self.steps, int) or not 1 <= self.steps <= 1000:
            raise ValueError(f"steps={self.steps!r} must be an integer from 1 to 1000")
        if self.mode_timeout_s is not None and not self.mode_timeout_s > 0:
            raise ValueError(f"mode_timeout_s={self.mode_timeout_s!r} must be positive or None")


@contextlib.contextmanager
def _eagerly(on: bool):
    if not on:
        yield
        return
    tf.config.run_functions_eagerly(True)
    try:
        yield
    finally:
        tf.config.run_functions_eagerly(False)


def _what(eq: equivalence.Equivalence) -> str:
    worst = eq.worst()
    if worst is None:
        return "nothing compared"
    if eq.ok:
        return f"max abs err {eq.max_abs_err:.3g}"
    return f"{worst.name}: {worst.detail or f'max abs err {worst.max_abs_err:.3g}'}"


class _Session:
    def __init__(self, case: Case, options: DebugOptions, progress: Callable[[str], None]):
        self.case, self.options, self.progress = case, options, progress
        self.config = session_config(options.threads, options.threads)
        self.runners: dict = {}
        self.paths: dict = {}  # mode -> (losses, weights)
        self.snapshots: dict = {}  # mode -> equivalence values

    def data(self) -> None:
        case, seed = self.case, self.options.seed
        self.weights = case.init_weights(np.random.default_rng(seed))
        self.batch = case.make_batch(np.random.default_rng(seed + 1), case.default_batch_size)
        self.batches = [case.make_batch(np.random.default_rng(seed + 2 + i), case.default_batch_size)
                        for i in range(self.options.steps)]

    def runner(self, mode: str, config=None):
        runner = make_runner(mode, MODES[mode], self.case, self.weights, config or self.config)
        traced = MODES[mode].traced and self.options.eager_functions
        with _eagerly(traced):
            runner.build()
            runner.first_call(self.batches[0])
        return runner

    def walk(self, mode: str, runner):
        with _eagerly(MODES[mode].traced and self.options.eager_functions):
            return trajectory(runner, self.batches)

    def numerics(self, mode: str) -> NonFinite:
        """The steps, and the forward output and gradients on the comparison batch: a NaN in either is found."""
        losses, weights = self.paths[mode]
        step = numerics.first_non_finite(losses, weights)
        comparison = numerics.non_finite_values(self.snapshot(mode))
        if step is None and not comparison:
            return NonFinite(mode, True, len(losses))
        if mode == REFERENCE_MODE:
            found = numerics.locate_tf1(self.runners[mode], self.batches, step,
                                        forward_batch=self.batch if step is None else None)
        else:
            found = self._locate_tf2(mode, step)
        found.comparison = comparison
        return found

    def _locate_tf2(self, mode: str, step: int | None) -> NonFinite:
        checked = EAGER if MODES[mode].jit_compile else mode
        how = ("tf.debugging.enable_check_numerics" if checked == mode else
               "XLA compiles the step as one cluster with no per-op check (DebugNumericSummaryV2 has no XLA "
               "kernel): located with the same step run eagerly, enable_check_numerics")

        def run(at):
            at["n"] = 1
            runner = self.runner(checked)
            try:
                runner.reset()
                if step is None:  # the steps stayed finite: the comparison batch's forward output and gradients
                    runner.forward(self.batch)
                    runner.gradients(self.batch)
                    return
                for i, batch in enumerate(self.batches):
                    at["n"] = i + 1
                    runner.train([batch])
            finally:
                runner.close()

        with _eagerly(MODES[mode].traced and self.options.eager_functions):
            found = numerics.locate_tf2(mode, run, self.options.steps, how)
        found.step = step if step is None else (found.step or step)
        return found

    def bisect(self, mode: str, guard: Callable):
        eager = guard(EAGER, "comparison snapshot", lambda: self.snapshot(EAGER))

        def compare(opts: dict) -> tuple[bool, str]:
            tf1 = mode == REFERENCE_MODE
            # TF2 functions are instantiated at their first call (forward, gradients, step): all inside the options
            with contextlib.nullcontext() if tf1 else grappler.tf2_options(opts):
                runner = self.runner(mode, grappler.tf1_config(self.config, opts) if tf1 else None)
                try:
                    values = equivalence.snapshot(runner, self.batch, self.batches)
                finally:
                    runner.close()
            eq = equivalence.compare(values, eager, self.case.dtype, self.case.tolerances.get(mode), against=EAGER)
            return eq.ok, _what(eq)

        mine = guard(mode, "comparison snapshot", lambda: self.snapshot(mode))
        # the same -inf (a mask) on both sides is agreement; NaN, or a loss or weight gone non-finite, is not
        unhealthy = {"comparison_batch_only": False, "masks_ok": True}
        both = {k: v for k, v in numerics.non_finite_values(mine, **unhealthy).items()
                if k in numerics.non_finite_values(eager, **unhealthy)}
        search = grappler.bisect(mode, EAGER, lambda opts: guard(mode, f"Grappler rerun {opts or 'as is'}",
                                                                 lambda: compare(opts)))
        search.both_non_finite = both
        return search

    def snapshot(self, mode: str):
        if mode not in self.snapshots:
            runner = self.runners.get(mode) or self.runner(mode)
            self.runners.setdefault(mode, runner)
            with _eagerly(MODES[mode].traced and self.options.eager_functions):
                self.snapshots[mode] = equivalence.snapshot(runner, self.batch, self.batches)
        return self.snapshots[mode]


def debug_case(case: Case, options: DebugOptions, progress: Callable[[str], None] = lambda s: None) -> DebugReport:
    """Every finding for `case` in `options.modes`; a mode that fails or passes `options.mode_timeout_s` is an error
    finding, the others still run. Ctrl-C stops it at the next safe point: the findings so far are returned, with
    `interrupted` set, for the caller to write and exit."""
    report = DebugReport(case.name, list(options.modes), options.steps, str(equivalence.TOLERANCES[case.dtype]))
    # Ctrl-C becomes KeyboardInterrupt only between pieces and while waiting on one (see watchdog)
    with QuietRetraceWarning(), deferred_interrupts():  # the reruns build the same step many times on purpose
        try:
            _debug(case, options, progress, report)
        except KeyboardInterrupt:
            report.interrupted = True
    return report


def _why(exc: Exception) -> str:
    """An error finding's text: a timeout says only that (as run's error rows do)."""
    return str(exc) if isinstance(exc, TimedOut) else describe(exc)


class _Guard:
    """Runs each piece of the user's code under the per-mode limit; a mode that failed or hung is dropped."""

    def __init__(self, s: _Session, limit_s: float | None):
        self.s, self.limit_s = s, limit_s
        self.failed: set[str] = set()

    def __call__(self, mode: str, what: str, fn: Callable):
        return run_with_limit(fn, self.limit_s, f"{self.s.case.name}/{mode}: {what}")

    def drop(self, mode: str) -> None:
        """Forget a mode that failed or hung (a hung one's thread still holds its runner: it is not closed)."""
        self.failed.add(mode)
        self.s.paths.pop(mode, None)
        self.s.runners.pop(mode, None)


def _debug(case: Case, options: DebugOptions, progress: Callable[[str], None], report: DebugReport) -> None:
    s = _Session(case, options, progress)
    guard = _Guard(s, options.mode_timeout_s)
    tol = equivalence.TOLERANCES[case.dtype]
    if options.eager_functions:
        report.notes.append("--eager-functions: the tf.function modes ran their Python step eagerly "
                            "(tf.config.run_functions_eagerly), so a breakpoint() in the step stops; their numbers "
                            "are eager numbers, and XLA did not compile")
    try:
        guard("set-up", "weights and batches", s.data)
    except Exception as exc:
        why = f"case set-up failed: {describe(exc)}"
        report.numerics = [NonFinite(m, False, options.steps, error=why) for m in options.modes]
        return
    try:
        _modes(s, guard, report, tol)
    finally:
        for runner in s.runners.values():
            with contextlib.suppress(Exception):
                runner.close()


def _modes(s: _Session, guard: _Guard, report: DebugReport, tol) -> None:
    case, options, progress = s.case, s.options, s.progress
    needed = list(dict.fromkeys([REFERENCE_MODE, *options.modes]))
    for mode in needed:  # each mode built, walked and checked before the next: what finished is kept on Ctrl-C
        check_interrupt()
        progress(f"{case.name}: {mode}: building and running {options.steps} steps")
        try:
            def build_and_walk(mode=mode):  # kept only once it returns: a hung piece's thread never adds it later
                runner = s.runner(mode)
                try:
                    return runner, s.walk(mode, runner)
                except Exception:
                    runner.close()
                    raise
            s.runners[mode], s.paths[mode] = guard(mode, "build and steps", build_and_walk)
        except Exception as exc:
            guard.drop(mode)
            if mode in options.modes:
                report.numerics.append(NonFinite(mode, False, options.steps, error=_why(exc)))
            continue
        if mode in options.modes:
            progress(f"{case.name}: {mode}: numeric check")
            try:
                report.numerics.append(guard(mode, "numeric check", lambda mode=mode: s.numerics(mode)))
            except Exception as exc:
                guard.drop(mode)
                report.numerics.append(NonFinite(mode, False, options.steps, error=_why(exc)))
    for mode in (m for m in options.modes if m != REFERENCE_MODE and m in s.paths):
        if REFERENCE_MODE not in s.paths:
            report.divergence.append(Divergence(mode, REFERENCE_MODE, options.steps, None,
                                                error=f"{REFERENCE_MODE} did not run"))
            continue
        report.divergence.append(divergence(mode, REFERENCE_MODE, s.paths[mode], s.paths[REFERENCE_MODE], tol))
    for mode in (m for m in options.modes if m in _GRAPH_MODES and m in s.paths):
        check_interrupt()
        progress(f"{case.name}: {mode}: against {EAGER}, Grappler bisection if they differ")
        try:
            if EAGER in guard.failed:
                raise RuntimeError(f"{EAGER}, the reference of the bisection, did not run")
            report.grappler.append(s.bisect(mode, guard))
        except Exception as exc:
            report.grappler.append(grappler.PassSearch(mode, EAGER, False, "", error=_why(exc)))
    if options.dump is not None:
        progress(f"{case.name}: writing dumps to {options.dump}")
        try:
            report.dumps = guard("dumps", "writing dumps",
                                 lambda: dumps.write(options.dump, s.runners, case, s.batch))
        except Exception as exc:
            report.notes.append(f"the dumps could not be written: {describe(exc)}")
        for search in report.grappler:
            pair = grappler.stage_files(report.dumps.get(search.mode, []), (search.culprits or [""])[0])
            if pair:
                report.notes.append(f"dump {search.mode}: {search.culprits[0]}'s rewrite is between "
                                    f"{Path(pair[0]).name} and {Path(pair[1]).name} (in {Path(pair[1]).parent})")
    if options.debugger_v2 is not None:
        # Debugger V2 instruments eager ops and graphs; its DebugNumericSummaryV2 has no XLA kernel
        dumped = [m for m in options.modes if m != REFERENCE_MODE and not MODES[m].jit_compile and m in s.paths]
        progress(f"{case.name}: Debugger V2 dump of {', '.join(dumped) or 'no mode'}")
        try:
            report.debugger_v2 = guard("debugger-v2", "Debugger V2 dump", lambda: dumps.debugger_v2(
                options.debugger_v2, lambda: [trajectory(s.runner(m), s.batches) for m in dumped]))
            report.notes.append(f"Debugger V2 dumped {', '.join(dumped)} (not XLA: its instrumentation has no XLA "
                                "kernel, and not the TF1 Session, which it does not instrument)")
        except Exception as exc:
            report.notes.append(f"the Debugger V2 dump failed: {describe(exc)}")
    if options.overhead:
        progress(f"{case.name}: timing steps with and without numeric checking, interleaved")
        try:
            report.overhead = guard("overhead", "timing numeric checking", lambda: check_overhead(
                case, s.weights, s.batch, [m for m in options.modes if m in s.paths], s.config))
        except Exception as exc:  # e.g. a step that is not finite: checking raises
            report.notes.append(f"the numeric-checking overhead could not be measured: {describe(exc)}")
