"""Timing statistics on an injected clock: exact numbers, no real time involved."""

import pytest

import math

from tfcompare.core.timing import (Measurement, Sampling, Timed, Timer, _order_statistic, interleave, median_interval,
                                   paired_ratio, sample)


class FakeClock:
    """A clock that only moves when a timed function says so."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


def test_measurement_statistics_are_numpy_linear_quartiles():
    # the data set of Wikipedia's quartile example 1; numpy's linear interpolation gives q1=25.5, q3=42.5
    m = Measurement([6, 7, 15, 36, 39, 40, 41, 42, 43, 47, 49])
    assert m.median == 40
    assert m.q1 == 25.5
    assert m.q3 == 42.5
    assert m.iqr == 17
    # n = 11: the 95% interval of the median is [x_(2), x_(10)] = [7, 47]; 33/40 below the median: noisy
    assert (m.interval.low, m.interval.high) == (7, 47)
    assert m.noisy


def test_noise_flag_is_the_medians_interval_over_5_percent():
    assert not Measurement([1.0, 1.0, 1.02, 1.04, 1.05, 1.03]).noisy  # [1.0, 1.05] around 1.025: 2.4%
    assert Measurement([1.0, 1.0, 1.02, 1.04, 1.05, 1.2]).noisy  # [1.0, 1.2] around 1.03: 16.5%
    assert Measurement([1.0, 1.0, 1.0, 1.0, 1.0]).noisy  # five samples cannot give a 95% interval


def test_order_statistic_interval_is_the_exact_binomial_one():
    # the j-th smallest to the j-th largest of n covers the median with probability 1 - 2 P(Bin(n, 1/2) <= j-1)
    assert [_order_statistic(n) for n in (5, 6, 8, 9, 10, 20, 30)] == [None, 1, 1, 2, 2, 6, 10]
    coverage = 1 - 2 * sum(math.comb(20, k) for k in range(6)) / 2 ** 20
    assert coverage == pytest.approx(0.9586, abs=1e-4)  # j = 6 holds 95%; j = 7 would give 88.5%
    values = [float(v) for v in range(1, 21)]
    interval = median_interval(values)
    assert (interval.estimate, interval.low, interval.high, interval.rounds) == (10.5, 6.0, 15.0, 20)
    assert interval.half_width == pytest.approx(4.5 / 10.5)


def test_paired_ratio_pairs_by_round():
    # a slow round slows both modes: paired, it cancels; the per-round ratio is 0.5 in all but one round
    tf1 = [1.0, 2.0, 1.0, 3.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    mode = [2.0, 4.0, 2.0, 6.0, 2.0, 2.0, 2.0, 2.0, 2.0, 1.0]
    interval = paired_ratio(tf1, mode)
    assert (interval.estimate, interval.low, interval.high) == (0.5, 0.5, 0.5)
    assert not interval.noisy
    assert interval.inverse().estimate == 2.0
    assert interval.text() == "0.50x, 95% CI 0.50\u20130.50"
    assert paired_ratio([1.0] * 6, [1.0] * 7) is None  # rounds that do not pair up
    assert paired_ratio([1.0] * 5, [1.0] * 5) is None  # too few rounds for 95%


class _Scheduled:
    """A mode whose k-th call costs `cost(k)` seconds on the fake clock."""

    def __init__(self, clock, cost):
        self.clock, self.cost, self.calls = clock, cost, 0

    def __call__(self):
        self.clock.advance(self.cost(self.calls))
        self.calls += 1


def _round(call):
    """Calibration is call 0 (one call reaches the tiny block); round r is calls 1 + 2r (untimed) and 2 + 2r."""
    return (call - 1) // 2


def test_sampling_stops_when_every_ratio_is_within_the_target():
    clock = FakeClock()
    timer = Timer(clock, min_block_s=1e-9)
    ref = _Scheduled(clock, lambda k: 0.001)
    # rounds 0-2 are off (2.2, 1.8, 2.1 ms), later rounds 2 ms: per-round ratios 1/2.2, 1/1.8, 1/2.1, then 0.5
    off = {0: 0.0022, 1: 0.0018, 2: 0.0021}
    mode = _Scheduled(clock, lambda k: off.get(_round(k), 0.002))
    rule = Sampling(target=0.03, budget_s=10.0, pairs=(("ref", "mode"),))
    found = sample(timer, {"ref": Timed(ref), "mode": Timed(mode)}, rule)
    # n = 6..9: the interval is [min, max] (n <= 8) or [2nd, 2nd last] (n = 9), still reaching 1/1.8 or 1/2.1;
    # n = 10 and 11: [2nd, 2nd last] = [1/2.1, 0.5] is 4.8% wide; n = 12: j = 3, [0.5, 0.5]: within 3%
    assert (found.rounds, found.stopped) == (12, "target")
    interval = found.intervals["ref/mode"]
    assert [interval.estimate, interval.low, interval.high] == pytest.approx([0.5] * 3, rel=1e-12)
    assert found.measurements["mode"].samples[:3] == pytest.approx([0.0022, 0.0018, 0.0021], rel=1e-12)
    assert found.elapsed_s == pytest.approx(0.001 + 0.002 + 12 * 2 * 0.001 + 2 * (0.0061 + 9 * 0.002), rel=1e-12)


def test_sampling_stops_at_the_budget_and_says_so():
    clock = FakeClock()
    timer = Timer(clock, min_block_s=1e-9)
    ref = _Scheduled(clock, lambda k: 0.001)
    mode = _Scheduled(clock, lambda k: 0.002 if _round(k) % 2 == 0 else 0.004)  # ratios 0.5, 0.25, ... forever
    rule = Sampling(target=0.03, budget_s=0.05, pairs=(("ref", "mode"),))
    found = sample(timer, {"ref": Timed(ref), "mode": Timed(mode)}, rule)
    # calibration 1 + 4 ms (call 0 counts as an odd round), then rounds of 6 and 10 ms: 11, 21, 27, 37, 43, 53 ms
    assert (found.rounds, found.stopped) == (6, "budget")
    assert found.elapsed_s == pytest.approx(0.053, rel=1e-12)
    assert found.widest == pytest.approx(1 / 3)  # [0.25, 0.5] around 0.375
    assert found.describe(rule) == "6 rounds in 0.1 s, stopped: the 0.05 s budget ran out; widest 95% interval \u00b133.3%"
    fixed = sample(Timer(FakeClock(), min_block_s=1e-9), {"x": Timed(lambda: None)}, Sampling(rounds=4))
    assert (fixed.rounds, fixed.stopped) == (4, "fixed")


def test_calibrate_doubles_until_block_reaches_minimum():
    clock = FakeClock()
    timer = Timer(clock, min_block_s=0.010)
    calls = []

    def step():
        calls.append(1)
        clock.advance(0.003)

    # blocks of 1, 2, 4 calls last 3, 6, 12 ms; 4 is the first >= 10 ms
    assert timer.calibrate(step) == 4
    assert len(calls) == 1 + 2 + 4
    assert timer.overhead() == 0.0


def test_interleave_rotates_order_and_gives_exact_per_step_times():
    clock = FakeClock()
    timer = Timer(clock, min_block_s=0.004)
    order = []
    costs = {"a": iter([0.001] * 100), "b": iter([0.002] * 100)}

    def make(name, cost_iter):
        def fn():
            order.append(name)
            clock.advance(next(cost_iter))
        return fn

    # c runs 2 steps per call, each call costs 4 ms: 2 ms per step
    c_costs = iter([0.004] * 100)
    timed = {"a": Timed(make("a", costs["a"])), "b": Timed(make("b", costs["b"])),
             "c": Timed(make("c", c_costs), steps_per_call=2)}
    result = interleave(timer, timed, rounds=3)
    assert result["a"].calls_per_block == 4 and result["b"].calls_per_block == 2
    assert result["c"].calls_per_block == 1
    assert result["a"].samples == pytest.approx([0.001] * 3, rel=1e-12)
    assert result["b"].samples == pytest.approx([0.002] * 3, rel=1e-12)
    assert result["c"].samples == pytest.approx([0.002] * 3, rel=1e-12)
    # after calibration: round r starts at mode r; each mode gets one untimed call, then its block
    timed_part = order[-(3 * (1 + 4) + 3 * (1 + 2) + 3 * (1 + 1)):]
    firsts = []
    i = 0
    for _ in range(3):
        round_modes = []
        for _ in range(3):
            name = timed_part[i]
            round_modes.append(name)
            i += 1 + result[name].calls_per_block
        firsts.append(round_modes)
    assert firsts == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]]


def test_interleave_drops_a_failing_mode_and_keeps_the_others():
    clock = FakeClock()
    timer = Timer(clock, min_block_s=0.001)
    n = {"calls": 0}

    def good():
        clock.advance(0.001)

    def flaky():
        n["calls"] += 1
        clock.advance(0.001)
        if n["calls"] > 3:
            raise RuntimeError("boom")

    errors = []
    result = interleave(timer, {"good": Timed(good), "flaky": Timed(flaky)}, rounds=4,
                        on_error=lambda name, exc: errors.append((name, str(exc))))
    assert list(result) == ["good"]
    assert result["good"].samples == pytest.approx([0.001] * 4, rel=1e-12)
    assert errors == [("flaky", "boom")]


def test_variable_block_times_give_exact_median_and_iqr():
    clock = FakeClock()
    timer = Timer(clock, min_block_s=0.001)
    per_call = iter([0.001] + [0.001, 0.003, 0.001, 0.002, 0.001, 0.005, 0.001, 0.004])

    def fn():
        clock.advance(next(per_call))

    # calibration: one call of 1 ms; then rounds of (untimed call, timed block of 1 call)
    m = interleave(timer, {"x": Timed(fn)}, rounds=4)["x"]
    assert m.samples == pytest.approx([0.003, 0.002, 0.005, 0.004], rel=1e-12)
    assert m.median == pytest.approx(0.0035, rel=1e-12)
    assert m.iqr == pytest.approx(0.0015, rel=1e-12)  # q3 4.25 ms - q1 2.75 ms (numpy linear)


def test_timer_rejects_bad_settings():
    with pytest.raises(ValueError, match="min_block_s"):
        Timer(min_block_s=0)
    with pytest.raises(ValueError, match="rounds"):
        interleave(Timer(), {}, rounds=0)


def test_the_budget_never_cuts_below_the_rounds_an_interval_needs():
    clock = FakeClock()
    timer = Timer(clock, min_block_s=1e-9)
    slow = _Scheduled(clock, lambda k: 1.0 if _round(k) % 2 else 3.0)  # per-round ratios alternate: never precise
    found = sample(timer, {"ref": Timed(_Scheduled(clock, lambda k: 1.0)), "slow": Timed(slow)},
                   Sampling(budget_s=0.5, pairs=(("ref", "slow"),)))
    assert (found.rounds, found.stopped) == (6, "budget") and found.intervals["ref/slow"] is not None
