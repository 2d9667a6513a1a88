"""The lever report: how far each TF2 lever takes a migrated step past (or not past) its TF1 Session.

Every TF2 mode adds one lever to a parent mode (`modes.MODES`), so the gain of a lever is measured,
not assumed: `gain = parent median / mode median` from the same interleaved run.
"""

from __future__ import annotations

import dataclasses

from tfcompare.core.modes import MODES, REFERENCE_MODE
from tfcompare.core.results import RunResult
from tfcompare.core.timing import paired_ratio
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
    ratio_ci: list[float] | None = None  # 95% interval of ratio_to_tf1, paired by round
    gain_ci: list[float] | None = None  # 95% interval of gain_vs_parent, paired by round
    best: bool = False
    meets_target: bool | None = None  # None: no tf1-graph row, or its interval straddles the target
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
            ratio = paired_ratio(row.step_times_s, ref.step_times_s) if ref else None
            gain = paired_ratio(parent_row.step_times_s, row.step_times_s) if parent_row else None
            case_rows.append(LeverRow(
                case=case, mode=mode, step_s=row.step_median_s,
                ratio_to_tf1=(ratio.estimate if ratio else row.step_median_s / ref.step_median_s) if ref else None,
                parent=parent, lever=MODES[mode].lever,
                gain_vs_parent=(gain.estimate if gain else parent_row.step_median_s / row.step_median_s)
                if parent_row else None,
                ratio_ci=[ratio.low, ratio.high] if ratio else None, gain_ci=[gain.low, gain.high] if gain else None,
                noisy=bool(row.noisy) or bool(gain and gain.noisy)))
        if case_rows:
            best = min(case_rows, key=lambda r: r.step_s)
            best.best = True
            if best.ratio_to_tf1 is not None:  # judged on the interval; None while it straddles the target
                low, high = best.ratio_ci or (best.ratio_to_tf1, best.ratio_to_tf1)
                best.meets_target = True if high <= TARGET_RATIO else (False if low > TARGET_RATIO else None)
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
    head = ("case", "mode", "step", "x tf1 time (95% CI)", "lever (over parent)", "gain (95% CI)", "")
    body = []
    for r in rows:
        ratio = f"{r.ratio_to_tf1:.2f}" if r.ratio_to_tf1 is not None else "-"
        if r.ratio_ci:
            ratio += f" ({r.ratio_ci[0]:.2f}\u2013{r.ratio_ci[1]:.2f})"
        gain = f"{r.gain_vs_parent:.2f}x" if r.gain_vs_parent is not None else "-"
        if r.gain_ci:
            gain += f" ({r.gain_ci[0]:.2f}\u2013{r.gain_ci[1]:.2f})"
        lever = f"{r.lever} (over {r.parent})" if r.parent else r.lever
        mark = ("BEST" + ("" if r.meets_target is None else (" <= target" if r.meets_target else " > target"))
                if r.best else "") + (" noisy" if r.noisy else "")
        body.append((r.case, r.mode, format_seconds(r.step_s), ratio, lever, gain, mark.strip()))
    lines = grid(head, body)
    lines.append(f"x tf1 time = mode step / tf1-graph step (< 1 is faster); target: best TF2 mode <= {TARGET_RATIO}. "
                 "gain = parent step / mode step; both are medians over the same interleaved rounds of the "
                 "per-round ratio, with 95% intervals.")
    for r in rows:
        if r.best and r.meets_target is False:
            lines.append(f"{r.case}: best TF2 mode {r.mode} at {r.ratio_to_tf1:.2f}x tf1 time, short of the "
                         f"{TARGET_RATIO} target: {_missing_lever(r.case, rows)}.")
    return "\n".join(lines)
