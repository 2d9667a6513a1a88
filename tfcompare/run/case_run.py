"""One case's run: its state while its modes are built, checked and timed, and the building itself.

`_CaseRun` holds what every phase of a case shares: the seeded weights and batches, one result row per
mode and the runners that built. `prepare` makes the inputs and `start` builds one mode and times its
first call; the later phases are functions of a `_CaseRun` in modules of their own (`run.measure`,
`run.checks`, `run.distributed_phase`, `run.graph_export`), which `run.harness` calls in turn.
"""

from __future__ import annotations

import traceback

import numpy as np

from tfcompare.core import environment
from tfcompare.core.cases import Case
from tfcompare.core.errors import describe, is_interrupt
from tfcompare.core.modes import MODES
from tfcompare.core.results import ModeResult
from tfcompare.core.runners import NotSplittable, Runner, make_runner
from tfcompare.core.timing import Timer, rotated
from tfcompare.core.watchdog import TimedOut, run_with_limit
from tfcompare.run.config import RunConfig

__all__ = ["_CaseRun", "_message"]  # internal to `tfcompare.run`: the harness and the phase modules import them

_MEMORY_WARMUP_STEPS = 1  # the peak over the first call and one steady step (a step allocates alike every time)


def _message(exc: BaseException) -> str:
    """One line for an error row; an interrupt TensorFlow wrapped is raised again as Ctrl-C."""
    if is_interrupt(exc) and not isinstance(exc, KeyboardInterrupt):
        raise KeyboardInterrupt from exc
    return describe(exc)


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
        self.cost: dict | None = None  # FLOPs and ops of one step (measure.count_flops)
        self.sampled: dict | None = None  # how the timing rounds went (measure.measure)
        self.reference_values: dict | None = None  # tf1-graph's equivalence snapshot (checks.check)
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

    def close(self) -> None:
        for runner in self.runners.values():
            runner.close()
