"""The last phase of a case: each mode's TensorBoard folder, with the graphs its runner exports.

`write` asks every built runner for its graph and AutoGraph code (and, unless `--quick`, Grappler's
optimised graph or XLA's HLO) under the per-mode limit; an export that fails makes the row an error
but keeps its numbers.
"""

from __future__ import annotations

from pathlib import Path

from tfcompare.core.modes import MODES
from tfcompare.core.results import RunResult
from tfcompare.core.runners import Runner
from tfcompare.core.watchdog import TimedOut
from tfcompare.report import tensorboard as summaries
from tfcompare.run.case_run import _CaseRun, _message

__all__ = ["write"]


def _extras(case_run: _CaseRun, mode: str, runner: Runner) -> dict:
    extras = {"graph_def": runner.graph_def(case_run.batch), "autograph": runner.autograph_code()}
    if not case_run.config.optimized_graphs:  # --quick: they cost a compile each and buy no precision
        return extras
    if not MODES[mode].jit_compile:  # XLA's optimised program is the HLO below
        extras["optimized_graph"] = runner.optimized_graph(case_run.batch)
    if MODES[mode].jit_compile:
        extras["hlo"] = {stage: runner.hlo(case_run.batch, stage) for stage in ("hlo", "optimized_hlo")}
    return extras


def write(case_run: _CaseRun, run_dir: Path, result: RunResult) -> None:
    for mode, row in case_run.rows.items():
        runner = case_run.runners.get(mode)
        extras = {}
        if runner is not None:
            try:
                extras = case_run._guard(mode, "graph export", lambda: _extras(case_run, mode, runner))
            except Exception as exc:  # a missing graph must not lose the numbers
                row.fail("error", f"graph export failed: {str(exc) if isinstance(exc, TimedOut) else _message(exc)}")
        summaries.write_mode(run_dir, row, **extras)
