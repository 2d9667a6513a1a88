"""The lever report: how far each TF2 lever takes a migrated step past (or not past) its TF1 Session.

Every TF2 mode adds one lever to a parent mode (`modes.MODES`), so the gain of a lever is measured,
not assumed: `gain = parent median / mode median` from the same interleaved run. Every ratio here is a
speed-up, as in `run`'s table: > 1 is faster (reference time / this time).
"""

from __future__ import annotations

import dataclasses

from tfcompare.core.modes import MODES, REFERENCE_MODE
from tfcompare.core.results import RunResult
from tfcompare.core.timing import paired_ratio
from tfcompare.report.format import format_seconds, grid

__all__ = ["LeverRow", "lever_report", "lever_table", "TARGET_SPEEDUP"]

TARGET_SPEEDUP = 1.25  # the goal: the best TF2 mode >= 1.25x tf1-graph's speed (its step <= 0.8x as long)
# the report's order: each lever after its parent
_ORDER = ("tf2-eager", "tf2-partial", "tf2-function", "tf2-concrete", "tf2-xla", "tf2-loop", "tf2-xla-loop")


@dataclasses.dataclass
class LeverRow:
    case: str
    mode: str
    step_s: float
    speedup_vs_tf1: float | None  # tf1-graph step / mode step: > 1 is faster than TF1 (run's `vs tf1`)
    parent: str | None
    lever: str
    gain_vs_parent: float | None  # parent step / mode step: > 1 means the lever helped
    speedup_ci: list[float] | None = None  # 95% interval of speedup_vs_tf1, paired by round
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
            speedup = paired_ratio(ref.step_times_s, row.step_times_s) if ref else None
            gain = paired_ratio(parent_row.step_times_s, row.step_times_s) if parent_row else None
            case_rows.append(LeverRow(
                case=case, mode=mode, step_s=row.step_median_s,
                speedup_vs_tf1=(speedup.estimate if speedup else ref.step_median_s / row.step_median_s)
                if ref else None,
                parent=parent, lever=MODES[mode].lever,
                gain_vs_parent=(gain.estimate if gain else parent_row.step_median_s / row.step_median_s)
                if parent_row else None,
                speedup_ci=[speedup.low, speedup.high] if speedup else None,
                gain_ci=[gain.low, gain.high] if gain else None,
                noisy=bool(row.noisy) or bool(gain and gain.noisy)))
        if case_rows:
            best = min(case_rows, key=lambda r: r.step_s)
            best.best = True
            if best.speedup_vs_tf1 is not None:  # judged on the interval; None while it straddles the target
                low, high = best.speedup_ci or (best.speedup_vs_tf1, best.speedup_vs_tf1)
                best.meets_target = True if low >= TARGET_SPEEDUP else (False if high < TARGET_SPEEDUP else None)
        rows.extend(case_rows)
    return rows


def _missing_lever(case: str, rows: list[LeverRow]) -> str:
    """Why no lever reached the target, read off the same run's numbers."""
    by_mode = {r.mode: r for r in rows if r.case == case}
    eager = by_mode.get("tf2-eager")
    if eager is not None and eager.speedup_vs_tf1 is not None and eager.speedup_vs_tf1 > 0.5:
        xla = by_mode.get("tf2-xla")
        xla_note = f"; XLA's fusion gained {xla.gain_vs_parent:.2f}x" if xla and xla.gain_vs_parent else ""
        return (f"even eager runs at {eager.speedup_vs_tf1:.2f}x tf1's speed, so per-op dispatch is a small share of "
                f"this step and the rest is kernel time (compute-bound), which no dispatch lever removes{xla_note}")
    return "dispatch is a large share of this step, but none of the measured levers removed enough of it"


def _best_text(r: LeverRow) -> str:
    """`BEST >= target`, `BEST < target`, `BEST` (its interval straddles the target, or no tf1-graph row), or ``."""
    if not r.best:
        return ""
    return "BEST" + ("" if r.meets_target is None else (" >= target" if r.meets_target else " < target"))


def lever_table(rows: list[LeverRow]) -> str:
    """Per case: each TF2 mode's speed against tf1-graph (> 1 is faster) and what its lever bought."""
    head = ("case", "mode", "step", "vs tf1 (>1 is faster; 95% CI)", "lever (over parent)", "gain (95% CI)", "best",
            "noisy")
    body = []
    for r in rows:
        speed = f"{r.speedup_vs_tf1:.2f}x" if r.speedup_vs_tf1 is not None else "-"
        if r.speedup_ci:
            speed += f" ({r.speedup_ci[0]:.2f}\u2013{r.speedup_ci[1]:.2f})"
        gain = f"{r.gain_vs_parent:.2f}x" if r.gain_vs_parent is not None else "-"
        if r.gain_ci:
            gain += f" ({r.gain_ci[0]:.2f}\u2013{r.gain_ci[1]:.2f})"
        lever = f"{r.lever} (over {r.parent})" if r.parent else r.lever
        body.append((r.case, r.mode, format_seconds(r.step_s), speed, lever, gain, _best_text(r),
                     "noisy" if r.noisy else ""))
    lines = grid(head, body)
    lines.append(f"vs tf1 = tf1-graph step / mode step (> 1 is faster, as in the table above); target: the best "
                 f"TF2 mode >= {TARGET_SPEEDUP}x (its step <= {1 / TARGET_SPEEDUP:.1f}x tf1-graph's). "
                 "gain = parent step / mode step (> 1: the lever made the step faster); both are medians over the "
                 "same interleaved rounds of the per-round ratio, with 95% intervals.")
    loops = [m for m in _ORDER if MODES[m].loop]
    lines.append(f"step = the median time of one training step; a loop mode ({', '.join(loops)}) runs K steps per "
                 "call (--loop-steps), and its step is the call's time / K.")
    lines.append(f"best = the case's fastest TF2 mode: BEST >= target when the whole 95% interval of its vs tf1 is at "
                 f"or above {TARGET_SPEEDUP}x, BEST < target when the whole interval is below it, plain BEST when "
                 "the interval straddles it (or the case has no tf1-graph row to judge against).")
    lines.append("noisy = the row's 95% interval (its speed against tf1-graph or its gain) reaches beyond \u00b15% of "
                 "its median.")
    for r in rows:
        if r.best and r.meets_target is False:
            lines.append(f"{r.case}: best TF2 mode {r.mode} at {r.speedup_vs_tf1:.2f}x tf1's speed, short of the "
                         f"{TARGET_SPEEDUP}x target: {_missing_lever(r.case, rows)}.")
    return "\n".join(lines)
