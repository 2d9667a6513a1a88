"""Claims: verdict logic on injected measurements, the report files, and real end-to-end claims."""

import json

import pytest
from click.testing import CliRunner

from tfcompare import claims
from tfcompare.claims import CLAIMS, ERROR, FAILS, HOLDS, INCONCLUSIVE, at_least, at_most, ratio_noise
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
    assert judge(fast)[0] == HOLDS
    slow = dict(fast, **{"tf2-function": _s(9e-3, 1e-5)})  # barely faster than eager
    assert judge(slow)[0] == FAILS
    noisy = {"tf1-graph": _s(1e-4, 1e-6), "tf2-function": _s(4.8e-3, 4e-3), "tf2-eager": _s(1e-2, 8e-3)}
    assert judge(noisy)[0] == INCONCLUSIVE  # ~2.1x, but the spread is larger than the distance to 2x


def test_claim2_and_claim7_verdicts():
    m = {"matmul": {"tf2-eager": _s(4.2e-3, 1e-5), "tf2-function": _s(3.0e-3, 1e-5)},
         "elementwise": {"tf2-eager": _s(1e-2), "tf2-function": _s(3e-4)}}
    verdict, measured, threshold = CLAIMS[2].judge(m)
    assert verdict == HOLDS and "1.40x (1.40\u20131.40) on matmul" in measured and "1.5x" in threshold
    m["matmul"]["tf2-eager"] = _s(9e-3, 1e-5)
    assert CLAIMS[2].judge(m)[0] == FAILS
    weaker_small = {1: {"tf2-eager": _s(1.0), "tf2-function": _s(0.5)},  # 2x at batch 1
                    64: {"tf2-eager": _s(1.0), "tf2-function": _s(0.2)}}  # 5x at batch 64
    assert CLAIMS[7].judge(weaker_small)[0] == HOLDS
    stronger_small = {1: {"tf2-eager": _s(1.0), "tf2-function": _s(0.1)},
                      64: {"tf2-eager": _s(1.0), "tf2-function": _s(0.5)}}
    assert CLAIMS[7].judge(stronger_small)[0] == FAILS
    assert CLAIMS[7].judge({64: stronger_small[64]})[0] == INCONCLUSIVE


def test_claim5_claim6_claim8_claim11_verdicts():
    variants = {v: {"traces": t, "total_s": s, "step_s": 1e-3} for v, t, s in
                [("tf1-graph", 0, 0.2), ("no-signature", 4, 1.0), ("none-signature", 1, 0.25),
                 ("reduce-retracing", 2, 0.3), ("buckets", 2, 0.3)]}
    assert CLAIMS[5].judge({1: variants, 4: variants})[0] == HOLDS
    cheap = dict(variants, **{"no-signature": {"traces": 4, "total_s": 0.26, "step_s": 1e-3}})
    assert CLAIMS[5].judge({4: cheap})[0] == FAILS
    depth = {1: {"tf1-graph": 0.1, "tf2-function": 0.2, "tf2-xla": 0.5},
             4: {"tf1-graph": 0.2, "tf2-function": 0.5, "tf2-xla": 1.5}}
    assert CLAIMS[6].judge(depth)[0] == HOLDS
    depth[4]["tf2-function"] = 0.2
    assert CLAIMS[6].judge(depth)[0] == FAILS
    assert CLAIMS[8].judge({"tf1-graph": 50, "tf2-eager": 100, "tf2-function": 60, "tf2-xla": 70})[0] == HOLDS
    assert CLAIMS[8].judge({"tf1-graph": 95, "tf2-eager": 100, "tf2-function": 60, "tf2-xla": 70})[0] == FAILS
    assert CLAIMS[8].judge({"tf1-graph": 0, "tf2-eager": 0, "tf2-function": 0, "tf2-xla": 0})[0] == INCONCLUSIVE
    resnet = {"scale": "test", "tf1-graph": _s(1.0), "tf2-xla": _s(1.0),
              "tf2-eager": _s(2.0, 0.01, first_call=0.05, memory=100),
              "tf2-function": _s(1.0, 0.01, first_call=0.5, memory=80)}
    verdict, measured, _ = CLAIMS[11].judge(resnet)
    assert verdict == HOLDS and "2.00x eager speed" in measured and "quoted 1.29x" in measured
    resnet["tf2-function"]["memory"] = 100
    assert CLAIMS[11].judge(resnet)[0] == FAILS


def test_report_files_and_an_error_that_does_not_stop_the_others(tmp_path, monkeypatch):
    def broken(ctx):
        raise RuntimeError("the experiment broke")

    monkeypatch.setitem(CLAIMS, 2, claims.Claim(2, CLAIMS[2].statement, broken, CLAIMS[2].judge))
    found = claims.run_claims([4, 2, 9], tmp_path / "c", quick=True)
    assert [r.verdict for r in found] == [HOLDS, ERROR, HOLDS]
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
    verdict, measured, threshold, parts = CLAIMS[3].judge(m)
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
    verdict, measured, _ = CLAIMS[12].judge(recovers)
    assert verdict == HOLDS and "elementwise: partial 1.20 ms recovers 99%" in measured and "recovers 80%" in measured
    recovers["matmul"]["tf2-partial"] = _s(11.2e-3, 1e-5)  # 15% of the gain
    assert CLAIMS[12].judge(recovers)[0] == FAILS
