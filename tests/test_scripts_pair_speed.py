"""`pair` times both training steps after the comparison: interleaved across its two processes in rotating
order (`child.step_timing`), paired by round into TF2's speed-up with a 95% interval (`pair.speed`), first calls
apart, retraces during the timed rounds counted. Statistics are asserted on an injected clock."""

import threading
from pathlib import Path

import pytest

from tfcompare.core.timing import Timer, rotated
from tfcompare.scripts.child import step_timing
from tfcompare.scripts.child.record import SideRecord
from tfcompare.scripts.pair import AGREE, PairOptions, pair_scripts
from tfcompare.scripts.pair.speed import speed_lines, step_speed

PAIRS = Path(__file__).parent / "data" / "pairs"


class _Clock:
    """Each side's own clock: a call of its step moves it by the step's cost, nothing else does."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def _both(folder: Path, cost1: float, cost2: float, rounds: int = 8) -> list[str]:
    events = []

    def side(name, cost):
        clock = _Clock()

        def step():
            clock.now += cost
            events.append(name)
        step_timing.take_turns(name, folder, step, rounds=rounds, timer=Timer(clock), wait_s=30,
                               traces=(lambda: 1) if name == "tf2" else None)
    threads = [threading.Thread(target=side, args=a) for a in (("tf1", cost1), ("tf2", cost2))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return events


def test_turns_rotate_and_the_statistics_are_exact_on_an_injected_clock(tmp_path):
    events = _both(tmp_path, 0.001, 0.002)
    one, two = step_timing.load(tmp_path, "tf1"), step_timing.load(tmp_path, "tf2")
    # calibration doubles the calls until a block lasts 20 ms: 1+2+...+32 calls of 1 ms, 1+...+16 of 2 ms
    assert (one["calls_per_block"], two["calls_per_block"]) == (32, 16)
    assert one["samples"] == pytest.approx([0.001] * 8) and two["samples"] == pytest.approx([0.002] * 8)
    assert one["order"] == ["tf1", "tf2"] * 4  # the side that starts a round rotates
    # blocks never overlap: the events come in runs of one side's whole block
    def runs(seq):
        return [seq[0]] + [b for a, b in zip(seq, seq[1:]) if a != b]
    turns = ["tf1", "tf2"] + [s for r in range(8) for s in rotated(["tf1", "tf2"], r)]
    assert runs(events) == runs(turns)
    timing = step_speed(tmp_path, SideRecord("tf1", "a", first_call_s=0.5), SideRecord("tf2", "b", first_call_s=2.0))
    assert timing["speedup"]["estimate"] == pytest.approx(0.5) and timing["retraces"] == 0
    assert timing["tf1"]["iqr_s"] == pytest.approx(0.0)
    lines = speed_lines(timing)
    assert "TF2 is slower: 0.50x TF1's speed, 95% CI 0.50-0.50 (> 1 is faster)" in lines[1]
    assert "first call: TF1 500 ms (its first Session.run), TF2 2e+03 ms" in lines[2]
    assert lines[3].startswith("  where the time goes (TF2 is slower): both ran on CPU: no host-device copies; the "
                               "same forward ops on both sides")  # the records hold no op counts here


def test_equal_steps_are_no_measurable_difference(tmp_path):
    _both(tmp_path, 0.001, 0.001, rounds=6)
    lines = speed_lines(step_speed(tmp_path, SideRecord("tf1", "a"), SideRecord("tf2", "b")))
    assert "no measurable difference: TF2 1.00x TF1's speed" in lines[1]


def test_a_side_that_cannot_time_releases_the_other(tmp_path):
    step_timing.cannot_time(tmp_path, "tf2", "the TF2 step is Keras's fit: not timed")
    assert step_timing.take_turns("tf1", tmp_path, lambda: None, wait_s=5) is False
    assert speed_lines(step_speed(tmp_path, SideRecord("tf1", "a"), SideRecord("tf2", "b"))) == [
        "speed: not timed (the TF2 step is Keras's fit: not timed)"]


def test_a_real_pair_times_both_steps_on_tf1s_batch_with_no_retrace():
    result = pair_scripts(PAIRS / "tf1_logreg.py", PAIRS / "tf2_logreg.py", PairOptions(steps=2, timing=True))
    assert result.status == AGREE
    t = result.timing
    assert t["timed"] and t["rounds"] == step_timing.ROUNDS and t["retraces"] == 0
    assert t["order"][:4] == ["tf1", "tf2", "tf1", "tf2"]
    assert t["tf1"]["median_s"] > 0 and t["tf2"]["median_s"] > 0
    assert t["tf1"]["first_call_s"] > 0 and t["tf2"]["first_call_s"] > 0
    s = t["speedup"]
    assert s["low"] <= s["estimate"] <= s["high"] and s["rounds"] == step_timing.ROUNDS
    assert any(line.startswith("speed (TF1's first batch, 12 interleaved rounds") for line in result.lines())
    off = pair_scripts(PAIRS / "tf1_logreg.py", PAIRS / "tf2_logreg.py", PairOptions(steps=1))
    assert off.timing == {} and not any(line.startswith("speed") for line in off.lines())


def test_a_slower_tf2_step_says_where_the_time_goes_from_what_each_side_ran():
    from tfcompare.scripts.child.record import SideRecord
    from tfcompare.scripts.pair.speed import _where_time_goes

    tf1 = SideRecord("tf1", "a.py", ops={"MatMul": 2, "Sigmoid": 3, "Transpose": 2})
    tf2 = SideRecord("tf2", "b.py", ops={"MatMul": 3, "Sigmoid": 3, "Transpose": 1, "While loop": 1})
    said = _where_time_goes(tf1, tf2)
    assert said[0].startswith("ops TF2's forward pass runs that TF1's does not (or more of them): MatMul x1, "
                              "While loop x1 (a While loop runs its body once per step")
    assert said[1] == "ops TF1's forward pass runs that TF2's does not (or more of them): Transpose x1"
    assert said[2] == "both ran on CPU: no host-device copies"
    same = _where_time_goes(tf1, SideRecord("tf2", "b.py", ops=dict(tf1.ops)))
    assert same[-1].startswith("the same forward ops on both sides: the difference is in how each step is dispatched")
