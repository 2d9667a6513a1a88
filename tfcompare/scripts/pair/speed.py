"""Is the TF2 step slower? Both sides' step times (`child.step_timing`), paired by round into a speed-up with its
95% interval (`core.timing.paired_ratio`: TF1's time / TF2's, so > 1 is faster, the project's one convention).

First calls are separate: TF1's first `Session.run` of its train op (Grappler's work on the graph included), TF2's
first traced call (its trace, and XLA's compile with `jit_compile`). A retrace during the timed rounds is said:
the times then hold tracing.
"""

from __future__ import annotations

from pathlib import Path

from tfcompare.core.timing import Measurement, paired_ratio
from tfcompare.scripts.child import step_timing
from tfcompare.scripts.child.record import SideRecord

__all__ = ["step_speed", "speed_lines"]


def _why_not(folder: Path) -> str:
    for side in ("tf2", "tf1"):
        marker = folder / f"timing.{side}.none"
        if marker.exists():
            return marker.read_text() or f"the {side.upper()} side could not be timed"
    return "a side stopped before its turn"


def step_speed(folder: Path, tf1: SideRecord, tf2: SideRecord) -> dict:
    """The timing both sides wrote, as the result's `timing` (JSON-ready)."""
    one, two = step_timing.load(folder, "tf1"), step_timing.load(folder, "tf2")
    if not one or not two:
        return {"timed": False, "why": _why_not(folder)}
    out = {"timed": True, "rounds": min(len(one["samples"]), len(two["samples"])), "order": one["order"],
           "load_1min": max(one["load"], two["load"])}
    for side, data, rec in (("tf1", one, tf1), ("tf2", two, tf2)):
        m = Measurement(data["samples"], data["calls_per_block"] or 1)
        out[side] = {"median_s": m.median, "q1_s": m.q1, "q3_s": m.q3, "iqr_s": m.iqr,
                     "calls_per_block": data["calls_per_block"], "first_call_s": rec.first_call_s,
                     "samples_s": data["samples"]}
    ratio = paired_ratio(one["samples"], two["samples"])
    out["speedup"] = ratio.to_json() if ratio else None
    before, after = two.get("traces_before"), two.get("traces_after")
    out["retraces"] = after - before if before is not None and after is not None else None
    out["where"] = _where_time_goes(tf1, tf2) if ratio and ratio.high < 1 else []
    return out


def _where_time_goes(tf1: SideRecord, tf2: SideRecord) -> list[str]:
    """When TF2 is slower: what the two steps do differently that costs time, from what both sides recorded (the
    forward ops each runs, where each ran)."""
    out = []
    one, two = tf1.ops or {}, tf2.ops or {}
    more = [f"{op} x{two[op] - one.get(op, 0)}" for op in sorted(two) if two[op] > one.get(op, 0)]
    fewer = [f"{op} x{one[op] - two.get(op, 0)}" for op in sorted(one) if one[op] > two.get(op, 0)]
    if more:
        out.append("ops TF2's forward pass runs that TF1's does not (or more of them): " + ", ".join(more)
                   + (" (a While loop runs its body once per step of the sequence, on the host's executor)"
                      if "While loop" in two and "While loop" not in one else ""))
    if fewer:
        out.append("ops TF1's forward pass runs that TF2's does not (or more of them): " + ", ".join(fewer))
    if tf1.device != tf2.device:
        out.append(f"devices: TF1 on {tf1.device}, TF2 on {tf2.device}: copies between host and device differ")
    else:
        out.append(f"both ran on {tf1.device}" + (": no host-device copies" if tf1.device == "CPU" else ""))
    if not more and not fewer:
        out.append("the same forward ops on both sides: the difference is in how each step is dispatched (TF2's "
                   "tf.function call does its Python-side argument handling on every call; `tfcompare run "
                   "--levers` shows what jit_compile and several steps per call buy)")
    return out


def _ms(seconds) -> str:
    return "-" if seconds is None else f"{seconds * 1e3:.3g} ms"


def speed_lines(timing: dict) -> list[str]:
    if not timing:
        return []
    if not timing.get("timed"):
        return [f"speed: not timed ({timing.get('why')})"]
    one, two, ratio = timing["tf1"], timing["tf2"], timing.get("speedup")
    head = (f"speed (TF1's first batch, {timing['rounds']} interleaved rounds, load {timing['load_1min']:.2f}): "
            f"TF1 step {_ms(one['median_s'])} (IQR {_ms(one['iqr_s'])}), TF2 step {_ms(two['median_s'])} (IQR "
            f"{_ms(two['iqr_s'])})")
    if ratio is None:
        verdict = "too few rounds for an interval"
    elif ratio["low"] <= 1 <= ratio["high"]:
        verdict = (f"no measurable difference: TF2 {ratio['estimate']:.2f}x TF1's speed, 95% CI "
                   f"{ratio['low']:.2f}-{ratio['high']:.2f} (> 1 is faster) holds 1")
    else:
        word = "faster" if ratio["estimate"] > 1 else "slower"
        verdict = (f"TF2 is {word}: {ratio['estimate']:.2f}x TF1's speed, 95% CI {ratio['low']:.2f}-"
                   f"{ratio['high']:.2f} (> 1 is faster)")
    out = [head, f"  {verdict}",
           f"  first call: TF1 {_ms(one['first_call_s'])} (its first Session.run), TF2 {_ms(two['first_call_s'])} "
           "(trace and run, as the script's tf.function runs it)"]
    if timing.get("where"):
        out.append("  where the time goes (TF2 is slower): " + "; ".join(timing["where"]))
    if timing.get("retraces"):
        out.append(f"  TF2 retraced {timing['retraces']} time(s) during the timed rounds: those times hold tracing "
                   "(`tfcompare audit` names why a function retraces)")
    return out
