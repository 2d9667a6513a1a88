"""What a paired run is asked to do: `RunConfig`, validated at construction, and its presets.

`run.harness` runs it, and each phase of a case (`run.case_run`, `run.checks`, `run.measure`, ...) reads it.
`DEFAULTS` and `QUICK` are the settings `tfcompare run` starts from, without and with `--quick`.
"""

from __future__ import annotations

import dataclasses
import os

from tfcompare.core.modes import CORE_MODES, MODES
from tfcompare.core.timing import TARGET_HALF_WIDTH

__all__ = ["RunConfig", "DEFAULTS", "QUICK", "MODE_TIMEOUT_S"]

MODE_TIMEOUT_S = 300.0  # per mode and phase: generous for XLA compiles, finite for a step that hangs
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
