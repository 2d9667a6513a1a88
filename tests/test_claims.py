"""Claims: verdict logic on injected measurements, the report files, and real end-to-end claims."""

import json

import pytest
from click.testing import CliRunner

from tfcompare import claims
from tfcompare.claims import CLAIMS, ERROR, batch_size, FAILS, HOLDS, INCONCLUSIVE, at_least, at_most, ratio_noise
from tfcompare.cli import cli


def _s(median, iqr=0.0, first_call=0.1, memory=0):
    return {"median": median, "iqr": iqr, "first_call": first_call, "memory": memory, "noisy": False}


def test_threshold_rules():
    assert at_least(2.5, 2.0, 0.1) == HOLDS
    assert at_least(1.5, 2.0, 0.1) == FAILS
    assert at_least(2.05, 2.0, 0.1) == INCONCLUSIVE  # within noise of the threshold
    assert at_most(1.2, 1.5, 0.1) == HOLDS
    assert at_most(2.0, 1.5, 0.1) == FAILS
    assert at_most(1.45, 1.5, 0.1) == INCONCLUSIVE
    assert ratio_noise(_s(1.0, 0.2), _s(2.0, 0.4)) == pytest.approx(0.1)  # (0.2 + 0.2) / 4


def test_claims_judge_the_threshold_against_the_paired_interval():
    from tfcompare.claims import speed_ratio
    # eager is 2.2x slower in 9 of 10 rounds: median 2.2; the 95% interval [x_(2), x_(9)] is [2.2, 2.2]
    eager = [2.2e-3] * 9 + [1.0e-3]
    fn = [1.0e-3] * 10
    a, b = _s(2.2e-3) | {"samples": eager}, _s(1e-3) | {"samples": fn}
    interval = speed_ratio(a, b)
    assert [interval.low, interval.estimate, interval.high] == pytest.approx([2.2] * 3)
    assert at_least(interval, 2.0) == HOLDS
    # two slow rounds of four in one direction: the interval reaches below 2x, the verdict waits
    wide = speed_ratio(a | {"samples": [2.2e-3] * 6 + [1.9e-3] * 4}, b)
    assert (wide.low, wide.high) == pytest.approx((1.9, 2.2)) and at_least(wide, 2.0) == INCONCLUSIVE
    assert at_least(speed_ratio(a | {"samples": [1.8e-3] * 10}, b), 2.0) == FAILS


def test_claim1_verdicts():
    judge = CLAIMS[1].judge
    fast = {"tf1-graph": _s(1e-4, 1e-6), "tf2-function": _s(2e-4, 2e-6), "tf2-eager": _s(1e-2, 1e-4)}
    assert judge(fast).verdict == HOLDS
    slow = dict(fast, **{"tf2-function": _s(9e-3, 1e-5)})  # barely faster than eager
    assert judge(slow).verdict == FAILS
    noisy = {"tf1-graph": _s(1e-4, 1e-6), "tf2-function": _s(4.8e-3, 4e-3), "tf2-eager": _s(1e-2, 8e-3)}
    assert judge(noisy).verdict == INCONCLUSIVE  # ~2.1x, but the spread is larger than the distance to 2x


def test_claim2_and_claim7_verdicts():
    m = {"matmul": {"tf2-eager": _s(4.2e-3, 1e-5), "tf2-function": _s(3.0e-3, 1e-5)},
         "elementwise": {"tf2-eager": _s(1e-2), "tf2-function": _s(3e-4)}}
    found = CLAIMS[2].judge(m)
    verdict, measured, threshold = found.verdict, found.measured, found.threshold
    assert verdict == HOLDS and "1.40x (95% CI 1.40\u20131.40) on matmul" in measured and "1.5x" in threshold
    m["matmul"]["tf2-eager"] = _s(9e-3, 1e-5)
    assert CLAIMS[2].judge(m).verdict == FAILS
    weaker_small = {1: {"tf2-eager": _s(1.0), "tf2-function": _s(0.5)},  # 2x at batch 1
                    64: {"tf2-eager": _s(1.0), "tf2-function": _s(0.2)}}  # 5x at batch 64
    assert CLAIMS[7].judge(weaker_small).verdict == HOLDS
    stronger_small = {1: {"tf2-eager": _s(1.0), "tf2-function": _s(0.1)},
                      64: {"tf2-eager": _s(1.0), "tf2-function": _s(0.5)}}
    assert CLAIMS[7].judge(stronger_small).verdict == FAILS
    assert CLAIMS[7].judge({64: stronger_small[64]}).verdict == INCONCLUSIVE
    lines = batch_size.series(stronger_small)  # the picture's lines: eager is the baseline, 1 at every batch size
    assert lines == {"tf2-eager": ([1, 64], [1.0, 1.0]), "tf2-function": ([1, 64], [10.0, 2.0])}  # no tf1 measured


def test_claim5_claim6_claim8_claim11_verdicts():
    variants = {v: {"traces": t, "total_s": s, "step_s": 1e-3} for v, t, s in
                [("tf1-graph", 0, 0.2), ("no-signature", 4, 1.0), ("none-signature", 1, 0.25),
                 ("reduce-retracing", 2, 0.3), ("buckets", 2, 0.3)]}
    assert CLAIMS[5].judge({1: variants, 4: variants}).verdict == HOLDS
    cheap = dict(variants, **{"no-signature": {"traces": 4, "total_s": 0.26, "step_s": 1e-3}})
    assert CLAIMS[5].judge({4: cheap}).verdict == FAILS
    depth = {1: {"tf1-graph": 0.1, "tf2-function": 0.2, "tf2-xla": 0.5},
             4: {"tf1-graph": 0.2, "tf2-function": 0.5, "tf2-xla": 1.5}}
    assert CLAIMS[6].judge(depth).verdict == HOLDS
    depth[4]["tf2-function"] = 0.2
    assert CLAIMS[6].judge(depth).verdict == FAILS
    assert CLAIMS[8].judge({"tf1-graph": 50, "tf2-eager": 100, "tf2-function": 60, "tf2-xla": 70}).verdict == HOLDS
    assert CLAIMS[8].judge({"tf1-graph": 95, "tf2-eager": 100, "tf2-function": 60, "tf2-xla": 70}).verdict == FAILS
    assert CLAIMS[8].judge({"tf1-graph": 0, "tf2-eager": 0, "tf2-function": 0, "tf2-xla": 0}).verdict == INCONCLUSIVE
    resnet = {"scale": "test", "tf1-graph": _s(1.0), "tf2-xla": _s(1.0),
              "tf2-eager": _s(2.0, 0.01, first_call=0.05, memory=100),
              "tf2-function": _s(1.0, 0.01, first_call=0.5, memory=80)}
    found = CLAIMS[11].judge(resnet)
    verdict, measured = found.verdict, found.measured
    assert verdict == HOLDS and "2.00x eager speed" in measured and "quoted 1.29x" in measured
    resnet["tf2-function"]["memory"] = 100
    assert CLAIMS[11].judge(resnet).verdict == FAILS


def test_report_files_and_an_error_that_does_not_stop_the_others(tmp_path, monkeypatch):
    def broken(ctx):
        raise RuntimeError("the experiment broke")

    monkeypatch.setitem(CLAIMS, 2, claims.Claim(2, CLAIMS[2].statement, broken, CLAIMS[2].judge,
                                                depends_on=CLAIMS[2].depends_on))
    found = claims.run_claims([4, 2, 9], tmp_path / "c", quick=True)
    assert [r.verdict for r in found] == [HOLDS, ERROR, HOLDS]
    assert set(found[1].machine) == set(CLAIMS[2].depends_on) and all(found[1].machine.values())
    assert found[0].machine == {}  # exact counts rest on no machine property
    assert found[1].error == "RuntimeError: the experiment broke"
    doc = json.loads((tmp_path / "c" / "claims.json").read_text())
    assert [c["number"] for c in doc["claims"]] == [4, 2, 9] and doc["quick"] is True
    md = (tmp_path / "c" / "claims.md").read_text()
    assert "| 4 | Tracing records one path" in md and "**holds**" in md and "**error**" in md
    assert list((tmp_path / "c" / "tensorboard").glob("events.out.tfevents.*"))


def test_one_quick_claim_end_to_end_with_a_plot(tmp_path):
    found = claims.run_claims([5], tmp_path / "c5", quick=True)
    result = found[0]
    assert result.verdict in (HOLDS, FAILS, INCONCLUSIVE)
    assert result.figures["4"]["no-signature"]["traces"] == 4 and result.figures["4"]["none-signature"]["traces"] == 1
    assert result.plot and (tmp_path / "c5" / "claim5.png").read_bytes()[:4] == b"\x89PNG"


def test_unknown_claim_is_a_usage_error():
    bad = CliRunner().invoke(cli, ["claims", "--claim", "13"])
    assert bad.exit_code == 2 and "no claim 13; valid claims: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12" in bad.output


def test_a_quick_verdict_is_never_the_opposite_of_the_full_one():
    """Quick judges the same figures with 3x wider noise: decisive only far from the threshold."""
    from tfcompare.claims.verdicts import QUICK_NOISE_SCALE, widened_noise

    for value, noise in [(2.3, 0.1), (1.75, 0.05), (2.05, 0.01), (1.0, 0.2), (3.5, 0.4)]:
        full = at_least(value, 2.0, noise)
        with widened_noise(QUICK_NOISE_SCALE):
            quick = at_least(value, 2.0, noise)
        assert quick in (full, INCONCLUSIVE), (value, noise, full, quick)
    with widened_noise(QUICK_NOISE_SCALE):
        assert at_least(2.2, 2.0, 0.1) == INCONCLUSIVE  # holds in a full run (2.1 >= 2), too close for quick
    assert at_least(2.2, 2.0, 0.1) == HOLDS


def test_claim3_has_a_verdict_per_part():
    m = {"mlp_step_s": 1e-3, "mlp_step_remapping_off_s": 1.2e-3, "mlp_noisy": False, "mlp_fused": 3,
         "xla_instructions_before": 1000, "xla_instructions_after": 200, "xla_fusions": 100,
         "chain_function_step_s": 1e-3, "chain_xla_step_s": 1.05e-3}
    found = CLAIMS[3].judge(m)
    verdict, measured, parts = found.verdict, found.measured, found.parts
    assert [(p.key, p.verdict) for p in parts] == [("3a", HOLDS), ("3b", HOLDS), ("3c", FAILS)]
    assert verdict == FAILS and "3c: XLA ran 0.95x the tf.function speed" in measured


@pytest.mark.benchmark
def test_claim6_quick_and_full_agree_on_this_machine(tmp_path):
    """The claim that flipped (quick 1->3 said no, full 1->6 said yes): now the same depths, fewer samples."""
    quick = claims.run_claims([6], tmp_path / "q", quick=True)[0]
    full = claims.run_claims([6], tmp_path / "f", quick=False)[0]
    assert list(quick.figures) == list(full.figures) == ["1", "2", "4", "6"]
    assert {quick.verdict, full.verdict} != {HOLDS, FAILS}, (quick.measured, full.measured)


def test_claim12_partial_conversion_verdicts():
    recovers = {"elementwise": {"tf2-eager": _s(40e-3, 1e-4), "tf2-partial": _s(1.2e-3, 1e-5),
                                "tf2-function": _s(0.8e-3, 1e-5)},
                "matmul": {"tf2-eager": _s(11.5e-3, 1e-5), "tf2-partial": _s(9.9e-3, 1e-5),
                           "tf2-function": _s(9.5e-3, 1e-5)}}
    found = CLAIMS[12].judge(recovers)
    verdict, measured = found.verdict, found.measured
    assert verdict == HOLDS and "elementwise: partial 1.20 ms recovers 99%" in measured and "recovers 80%" in measured
    recovers["matmul"]["tf2-partial"] = _s(11.2e-3, 1e-5)  # 15% of the gain
    assert CLAIMS[12].judge(recovers).verdict == FAILS


# --- each verdict explains itself: the interval judged, the bar, the reason, the machine -------------------

def _judged_text(number, measured):
    from tfcompare.claims.claim import ClaimResult

    result = ClaimResult(number, CLAIMS[number].statement).record(CLAIMS[number].judge(measured))
    return result, claims.text([result], __import__("pathlib").Path("/tmp/c"))


def _wide_25x():
    """eager 15-40x slower than tf.function over 6 rounds: the paired median 25x, its interval [min, max]."""
    eager = [25e-3, 15e-3, 40e-3, 25e-3, 30e-3, 20e-3]
    return {"tf1-graph": _s(1e-3) | {"samples": [1e-3] * 6}, "tf2-function": _s(1e-3) | {"samples": [1e-3] * 6},
            "tf2-eager": _s(25e-3) | {"samples": eager}}


def test_a_quick_run_widens_a_ratio_on_the_log_scale_so_a_25x_effect_holds_against_2x():
    from tfcompare.claims.verdicts import QUICK_NOISE_SCALE, check, widened_noise
    from tfcompare.core.timing import Interval

    wide = Interval(25.0, 15.0, 40.0, 6)
    with widened_noise(QUICK_NOISE_SCALE):
        found = check(wide, ">=", 2.0)
    # each end moves as a factor: 25 x (15/25)^3 and 25 x (40/25)^3 (linearly, 25 - 3 x 10 would reach below 0)
    assert found.low == pytest.approx(25 * (15 / 25) ** 3) and found.high == pytest.approx(25 * (40 / 25) ** 3)
    assert found.verdict == HOLDS
    with widened_noise(QUICK_NOISE_SCALE):
        assert CLAIMS[1].judge(_wide_25x()).verdict == HOLDS
    # a plain value -/+ noise widens the same way; a fraction ("%") still widens linearly
    with widened_noise(QUICK_NOISE_SCALE):
        assert check(2.0, ">=", 1.0, 1.0).low == pytest.approx(2.0 * 0.5 ** 3)
        assert check(0.5, ">=", 0.1, 0.1, unit="%").low == pytest.approx(0.2)


def test_the_verdict_line_shows_the_judged_interval_and_the_bar():
    from tfcompare.claims.verdicts import QUICK_NOISE_SCALE, widened_noise

    with widened_noise(QUICK_NOISE_SCALE):
        result, out = _judged_text(1, _wide_25x())
    low, high = 25 * (15 / 25) ** 3, 25 * (40 / 25) ** 3
    verdict = next(line for line in out.splitlines() if line.strip().startswith("verdict:"))
    assert verdict.strip().startswith("verdict: HOLDS: tf1-graph speed-up over eager 25x (judged interval")
    assert f"(judged interval {low:.2g}\u2013{high:.0f}x) >= 2.0x" in verdict
    assert [c["low"] for c in result.checks] == pytest.approx([low, low])  # tf1-graph and tf2-function alike
    assert f"tf2-function speed-up over eager 25x (judged interval {low:.2g}\u2013{high:.0f}x) >= 2.0x" in verdict
    doc = result.to_json()
    assert doc["checks"][1]["threshold"] == 2.0 and doc["checks"][1]["bound"] == ">="


def test_every_inconclusive_says_why():
    noisy = {"tf1-graph": _s(1e-4, 1e-6), "tf2-function": _s(4.8e-3, 4e-3), "tf2-eager": _s(1e-2, 8e-3)}
    result, out = _judged_text(1, noisy)
    assert result.verdict == INCONCLUSIVE
    why = next(line for line in out.splitlines() if line.strip().startswith("why:"))
    assert "the judged interval" in why and "of tf2-function speed-up over eager straddles the 2.0x bar" in why
    for number, measured in [(7, {64: {"tf2-eager": _s(1.0), "tf2-function": _s(0.5)}}),
                             (8, {"tf1-graph": 0, "tf2-eager": 0, "tf2-function": 0, "tf2-xla": 0})]:
        result, out = _judged_text(number, measured)
        assert result.verdict == INCONCLUSIVE and result.reason and f"why: {result.reason}" in out
    parts = {"mlp_step_s": 1e-3, "mlp_step_remapping_off_s": 1.06e-3, "mlp_noisy": True, "mlp_fused": 3,
             "xla_instructions_before": 1000, "xla_instructions_after": 200, "xla_fusions": 100,
             "chain_function_step_s": 1e-3, "chain_xla_step_s": 0.5e-3}
    result, out = _judged_text(3, parts)
    assert result.verdict == INCONCLUSIVE and "3a inconclusive: the judged interval" in result.reason
    assert "straddles the 1.05x bar" in result.reason
    part = next(line for line in out.splitlines() if line.strip().startswith("3a."))
    assert "INCONCLUSIVE: remapping's speed-up (off step / on step) 1.06x (judged interval" in part


def test_a_direction_only_claim_says_direction_holds_with_both_magnitudes():
    resnet = {"scale": "test", "tf1-graph": _s(1.0), "tf2-xla": _s(1.0),
              "tf2-eager": _s(2.0, 0.01, first_call=0.05, memory=100),
              "tf2-function": _s(1.0, 0.01, first_call=0.5, memory=80)}
    result, out = _judged_text(11, resnet)
    verdict = next(line for line in out.splitlines() if line.strip().startswith("verdict:"))
    assert result.direction_only and verdict.strip().startswith("verdict: DIRECTION HOLDS:")
    assert "static speed over eager measured 2.0x, quoted 1.29x" in verdict
    assert "static memory over eager measured 0.8x, quoted 0.8x (exact, no noise band) <= 0.9x" in verdict
    assert "static first call over eager measured 10x, quoted 37x" in verdict
    result, out = _judged_text(8, {"tf1-graph": 165, "tf2-eager": 100, "tf2-function": 165, "tf2-xla": 70})
    assert "verdict: DIRECTION DOES NOT HOLD: tf1-graph peak over eager's measured 1.65x, quoted 0.8x" in out
    result, out = _judged_text(1, _wide_25x())
    assert "DIRECTION" not in out  # a claim with its own bar is judged on size


def test_a_verdict_that_rests_on_a_machine_property_names_it_and_its_value(tmp_path):
    from tfcompare.claims.claim import ClaimResult
    from tfcompare.claims.machine import PROPERTIES, _avx, machine_properties
    from tfcompare.claims.report import verdict_line

    assert set(CLAIMS[8].depends_on) == {"oneDNN", "threads"} and set(CLAIMS[4].depends_on) == set()
    assert all(set(c.depends_on) <= set(PROPERTIES) for c in CLAIMS.values())
    result = ClaimResult(8, CLAIMS[8].statement, machine={"oneDNN": "off (TF_ENABLE_ONEDNN_OPTS=0)",
                                                           "threads": "2 CPUs, intra-op 2, inter-op 2"})
    result.record(CLAIMS[8].judge({"tf1-graph": 50, "tf2-eager": 100, "tf2-function": 60, "tf2-xla": 70}))
    assert verdict_line(result).endswith("depends on this machine's oneDNN: off (TF_ENABLE_ONEDNN_OPTS=0); "
                                         "threads: 2 CPUs, intra-op 2, inter-op 2")
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma\n")
    assert _avx(str(info)) == "AVX2 yes, AVX-512 no, AVX-512 VNNI no"
    assert _avx(str(tmp_path / "none")).startswith("unknown")
    found = machine_properties()
    assert set(found) == set(PROPERTIES) and found["oneDNN"].split()[0] in ("on", "off", "unknown")


def test_a_fraction_s_judged_interval_has_both_ends_in_percent():
    from tfcompare.claims.verdicts import check

    found = check(-0.03, ">=", 0.5, 2.605, unit="%", label="matmul gain recovered")
    assert (found.low, found.high) == pytest.approx((-2.635, 2.575))
    assert found.text() == "matmul gain recovered -3% (judged interval -264\u2013258%) >= 50%"
    assert found.reason() == ("the judged interval -264\u2013258% of matmul gain recovered straddles the 50% bar")
    assert check(27.6, ">=", 2.0, 8.6, label="r").text() == "r 27.6x (judged interval 19\u201336.2x) >= 2.0x"


def _claim3(**changed):
    m = {"mlp_step_s": 1e-3, "mlp_step_remapping_off_s": 1.06e-3, "mlp_noisy": True, "mlp_fused": 3,
         "xla_instructions_before": 1000, "xla_instructions_after": 200, "xla_fusions": 100,
         "chain_function_step_s": 1e-3, "chain_xla_step_s": 1.05e-3}
    return _judged_text(3, m | changed)


def test_claim3_says_why_for_every_part_that_does_not_hold_and_how_the_parts_combine():
    result, out = _claim3()
    assert [p["verdict"] for p in result.parts] == [INCONCLUSIVE, HOLDS, FAILS] and result.verdict == FAILS
    lines = out.splitlines()
    assert lines[3] == "    verdict: DOES NOT HOLD: 3a inconclusive, 3b holds, 3c does not hold"
    assert lines[4] == ("    parts: the claim holds when every part holds, does not hold when any part does not, "
                        "otherwise inconclusive")
    assert lines[5] == ("    why: 3a inconclusive: the judged interval 1.01\u20131.11x of remapping's speed-up (off step / "
                        "on step) straddles the 1.05x bar; 3c does not hold: the judged interval 0.905\u20131.0x of "
                        "XLA over tf.function lies wholly below the 1.1x bar")
    # claims.json's checks hold the three parts' checks, in order
    assert [c["label"] for c in result.checks] == ["remapping's speed-up (off step / on step)",
                                                   "fusions per HLO instruction", "XLA over tf.function"]
    md = claims.report.markdown([result], quick=False)
    assert "| by part, below; the claim holds when every part holds, does not hold when any part does not, " \
           "otherwise inconclusive |" in md


def test_a_quick_run_says_once_how_it_widens_and_the_run_lists_every_file_it_wrote(tmp_path):
    from tfcompare.claims.claim import ClaimResult

    result = ClaimResult(1, CLAIMS[1].statement).record(CLAIMS[1].judge(_wide_25x()))
    result.plot = str(tmp_path / "claim1.png")
    (tmp_path / "runs").mkdir()
    other = ClaimResult(4, CLAIMS[4].statement)
    out = claims.text([result, other], tmp_path, quick=True)
    lines = out.splitlines()
    assert lines[0] == (
        "Quick run: each verdict judges a widened interval, not the measured 95% one beside the figures: each end "
        "of a ratio's interval moves 3x as far from the estimate on the log scale (low -> estimate x "
        "(low / estimate)^3, high likewise), each end of a fraction's (%) 3x as far linearly (estimate + 3 x "
        "(end - estimate)); fewer, shorter samples give rougher intervals, so a quick verdict is decisive only far "
        "from its bar.")
    assert sum("widened interval" in line for line in lines) == 1
    assert "faster than eager (95% CI " in out
    wrote = lines[lines.index("wrote:") + 1:]
    assert [line.split()[0] for line in wrote] == [
        f"{tmp_path}/claims.md", f"{tmp_path}/claims.json", f"{tmp_path}/claim1.png",
        f"{tmp_path}/runs/", f"{tmp_path}/tensorboard/"]
    assert "Quick run" not in claims.text([result], tmp_path)
