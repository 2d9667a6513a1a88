"""Timing statistics on an injected clock: exact numbers, no real time involved."""

import pytest

from tfcompare.core.timing import Measurement, Timed, Timer, interleave


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
    assert m.noisy  # 17 / 40 = 42.5% > 10%


def test_noise_flag_threshold():
    assert not Measurement([1.0, 1.0, 1.02, 1.04, 1.05]).noisy  # IQR 0.04 / median 1.02 = 3.9%
    assert Measurement([1.0, 1.0, 1.2, 1.3, 1.3]).noisy  # IQR 0.3 / 1.2 = 25%
    assert Measurement([1.0, 1.0]).noisy  # too few samples to tell


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
