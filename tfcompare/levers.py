"""The lever report: how far each TF2 lever takes a migrated step past (or not past) its TF1 Session.

Every TF2 mode adds one lever to a parent mode, so the gain of a lever is measured, not assumed:
`gain = parent median / mode median` from the same interleaved run.
"""

from __future__ import annotations

import dataclasses

from tfcompare.modes import REFERENCE_MODE
from tfcompare.results import RunResult

__all__ = ["LEVERS", "LeverRow", "lever_report", "TARGET_RATIO"]

TARGET_RATIO = 0.8  # the goal: best TF2 per-step time <= 0.8x the tf1-graph per-step time

# mode -> (parent mode, the lever it adds over the parent)
LEVERS: dict[str, tuple[str | None, str]] = {
    "tf2-eager": (None, "TF2 as written: every op dispatched from Python"),
    "tf2-function": ("tf2-eager", "graph: Python dispatch per op removed"),
    "tf2-concrete": ("tf2-function", "tf.function call dispatch removed"),
    "tf2-xla": ("tf2-function", "fusion (XLA)"),
    "tf2-loop": ("tf2-function", "steps per call"),
    "tf2-xla-loop": ("tf2-loop", "fusion (XLA)"),
}


@dataclasses.dataclass
class LeverRow:
    case: str
    mode: str
    step_s: float
    ratio_to_tf1: float | None  # mode step / tf1 step: < 1 is faster than TF1
    parent: str | None
    lever: str
    gain_vs_parent: float | None  # parent step / mode step: > 1 means the lever helped
    best: bool = False
    meets_target: bool | None = None
    noisy: bool = False

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def lever_report(result: RunResult) -> list[LeverRow]:
    """One row per measured TF2 mode per case; the fastest TF2 mode of each case is marked `best`."""
    rows: list[LeverRow] = []
    for case in dict.fromkeys(r.case for r in result.results):
        measured = {r.mode: r for r in result.results
                    if r.case == case and r.step_median_s and r.status in ("ok",)}
        ref = measured.get(REFERENCE_MODE)
        case_rows = []
        for mode, (parent, lever) in LEVERS.items():
            row = measured.get(mode)
            if row is None:
                continue
            parent_row = measured.get(parent) if parent else None
            case_rows.append(LeverRow(
                case=case, mode=mode, step_s=row.step_median_s,
                ratio_to_tf1=row.step_median_s / ref.step_median_s if ref else None,
                parent=parent, lever=lever,
                gain_vs_parent=parent_row.step_median_s / row.step_median_s if parent_row else None,
                noisy=bool(row.noisy)))
        if case_rows:
            best = min(case_rows, key=lambda r: r.step_s)
            best.best = True
            if best.ratio_to_tf1 is not None:
                best.meets_target = best.ratio_to_tf1 <= TARGET_RATIO
        rows.extend(case_rows)
    return rows
