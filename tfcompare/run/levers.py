"""The lever report: how far each TF2 lever takes a migrated step past (or not past) its TF1 Session.

Every TF2 mode adds one lever to a parent mode (`modes.MODES`), so the gain of a lever is measured,
not assumed: `gain = parent median / mode median` from the same interleaved run.
"""

from __future__ import annotations

import dataclasses

from tfcompare.core.modes import MODES, REFERENCE_MODE
from tfcompare.core.results import RunResult
from tfcompare.report.format import format_seconds, grid

__all__ = ["LeverRow", "lever_report", "lever_table", "TARGET_RATIO"]

TARGET_RATIO = 0.8  # the goal: best TF2 per-step time <= 0.8x the tf1-graph per-step time
# the report's order: each lever after its parent
_ORDER = ("tf2-eager", "tf2-partial", "tf2-function", "tf2-concrete", "tf2-xla", "tf2-loop", "tf2-xla-loop")


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
        for mode in _ORDER:
            row = measured.get(mode)
            if row is None:
                continue
            parent = MODES[mode].parent
            parent_row = measured.get(parent) if parent else None
            case_rows.append(LeverRow(
                case=case, mode=mode, step_s=row.step_median_s,
                ratio_to_tf1=row.step_median_s / ref.step_median_s if ref else None,
                parent=parent, lever=MODES[mode].lever,
                gain_vs_parent=parent_row.step_median_s / row.step_median_s if parent_row else None,
                noisy=bool(row.noisy)))
        if case_rows:
            best = min(case_rows, key=lambda r: r.step_s)
            best.best = True
            if best.ratio_to_tf1 is not None:
                best.meets_target = best.ratio_to_tf1 <= TARGET_RATIO
        rows.extend(case_rows)
    return rows


def _missing_lever(case: str, rows: list[LeverRow]) -> str:
    """Why no lever reached the target, read off the same run's numbers."""
    by_mode = {r.mode: r for r in rows if r.case == case}
    eager = by_mode.get("tf2-eager")
    if eager is not None and eager.ratio_to_tf1 is not None and eager.ratio_to_tf1 < 2:
        xla = by_mode.get("tf2-xla")
        xla_note = f"; XLA's fusion gained {xla.gain_vs_parent:.2f}x" if xla and xla.gain_vs_parent else ""
        return (f"even eager is only {eager.ratio_to_tf1:.2f}x tf1 time, so per-op dispatch is a small share of "
                f"this step and the rest is kernel time (compute-bound), which no dispatch lever removes{xla_note}")
    return "dispatch is a large share of this step, but none of the measured levers removed enough of it"


def lever_table(rows: list[LeverRow]) -> str:
    """Per case: each TF2 mode's step time as a fraction of tf1-graph's and what its lever bought."""
    head = ("case", "mode", "step", "x tf1 time", "lever (over parent)", "gain", "")
    body = []
    for r in rows:
        ratio = f"{r.ratio_to_tf1:.2f}" if r.ratio_to_tf1 is not None else "-"
        gain = f"{r.gain_vs_parent:.2f}x" if r.gain_vs_parent is not None else "-"
        lever = f"{r.lever} (over {r.parent})" if r.parent else r.lever
        mark = ("BEST" + ("" if r.meets_target is None else (" <= target" if r.meets_target else " > target"))
                if r.best else "") + (" noisy" if r.noisy else "")
        body.append((r.case, r.mode, format_seconds(r.step_s), ratio, lever, gain, mark.strip()))
    lines = grid(head, body)
    lines.append(f"x tf1 time = mode step / tf1-graph step (< 1 is faster); target: best TF2 mode <= {TARGET_RATIO}. "
                 "gain = parent step / mode step, from the same interleaved run.")
    for r in rows:
        if r.best and r.meets_target is False:
            lines.append(f"{r.case}: best TF2 mode {r.mode} at {r.ratio_to_tf1:.2f}x tf1 time, short of the "
                         f"{TARGET_RATIO} target: {_missing_lever(r.case, rows)}.")
    return "\n".join(lines)
