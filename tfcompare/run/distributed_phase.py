"""The distributed phase of a case: its step in the distributed modes, compared with tf1-graph and timed.

Each mode of `run.distributed` runs in processes of its own with `RunConfig.distributed` workers, on the
whole batch split between them; a worker row is compared with the tf1-graph snapshot the equivalence
phase (`run.checks`) kept, within the same tolerance, and timed against tf1-graph by the ratio of medians.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np

from tfcompare.core import equivalence
from tfcompare.core.cases import case_source
from tfcompare.core.files import pid_temp_dir, remove_dead_temp_dirs
from tfcompare.core.modes import EAGER_MODE, REFERENCE_MODE
from tfcompare.core.results import ModeResult
from tfcompare.core.timing import Measurement
from tfcompare.run.case_run import _CaseRun
from tfcompare.run.checks import _non_finite, _record_equivalence
from tfcompare.run.config import MODE_TIMEOUT_S
from tfcompare.run.distributed import DIST_MODES, run_distributed, supported
from tfcompare.run.distributed.cluster import STRATEGIES, DistError
from tfcompare.run.measure import _record_speed, _record_timing

__all__ = ["distributed"]

_DIST_STEPS = 20  # timed steps per distributed worker when the rounds are adaptive


def distributed(case_run: _CaseRun, run_dir: Path, progress, head: str) -> None:
    """The distributed modes, each in processes of its own; compared with tf1-graph on the whole batch."""
    workers = case_run.config.distributed
    model = next((r.model for r in case_run.runners.values() if hasattr(r, "model")), None)
    for mode in DIST_MODES:
        row = case_run.rows[mode] = ModeResult(case=case_run.case.name, mode=mode, batch_size=case_run.batch_size,
                                               workers=workers, strategy=STRATEGIES[mode])
        why = case_run.case.unsupported_modes.get(mode) or supported(mode, model)
        if why is None and case_run.batch_size % workers:
            why = f"the batch ({case_run.batch_size}) does not split evenly over {workers} workers"
        if why:
            row.status, row.error = "skipped", f"not supported by this case: {why}"
            continue
        if case_run.reference_values is None:
            row.fail("error", f"no equivalence check: {REFERENCE_MODE} did not run")
            continue
        progress(f"{head}: {mode} with {workers} workers")
        spec = {"case": case_run.case.name, "cases_file": case_source(case_run.case), "seed": case_run.config.seed,
                "batch_size": case_run.batch_size, "steps": case_run.config.steps,
                "repeats": case_run.config.repeats or _DIST_STEPS,
                "options": dict(case_run.case.options)}
        # worker specs, logs and temporary files; what a killed run left is removed first (see files)
        remove_dead_temp_dirs(Path(tempfile.gettempdir()), f"tfcompare-{mode}-")
        folder = pid_temp_dir(Path(tempfile.gettempdir()), f"tfcompare-{mode}-")
        try:
            found = run_distributed(mode, spec, workers, folder, case_run.config.mode_timeout_s or MODE_TIMEOUT_S,
                                    case_run.config.threads)
        except DistError as exc:
            row.fail("error", str(exc))
            continue
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        _distributed_row(case_run, row, found)


def _distributed_row(case_run: _CaseRun, row: ModeResult, found: dict) -> None:
    values = {k: np.asarray(v) for k, v in found["values"].items()}
    tol = equivalence.TOLERANCES[case_run.case.dtype]  # the same budget, stated: replicas sum in another order
    eq = equivalence.compare(values, case_run.reference_values, case_run.case.dtype,
                             (tol.rtol, tol.atol, "all-reduce adds the replicas' gradients in another order"))
    _record_equivalence(row, eq)
    _non_finite(case_run, row, values, case_run.reference_values)
    row.build_s, row.first_call_s = found["ready_s"], found["first_call_s"]
    _record_timing(row, Measurement(found["step_times_s"]))
    row.traces, row.strategy = found["traces"], found["strategy"]
    _record_speed(row, case_run.rows.get(REFERENCE_MODE), case_run.rows.get(EAGER_MODE))
    if not eq.ok:
        row.fail("mismatch", f"{equivalence.diagnose(eq, values, case_run.reference_values)} ({eq.tolerance})")
