"""Claim 3: the gain comes from fusion and removed dispatch."""

from __future__ import annotations

from tfcompare.claims.claim import Claim, Judged, Part
from tfcompare.claims.verdicts import all_of, check
from tfcompare.registry import CASES
from tfcompare.tools.inspect import inspect_case

__all__ = ["CLAIM"]


def measure(ctx):
    repeats = 6 if ctx.quick else 11  # 6: the fewest rounds with a 95% interval
    mlp = inspect_case(CASES["mlp"], ("tf2-function",), {"remapping": False}, repeats=repeats)
    chain = inspect_case(CASES["elementwise"], ("tf2-function", "tf2-xla"), repeats=repeats)
    return {"mlp_step_s": mlp.step("tf2-function"), "mlp_step_remapping_off_s": mlp.step("tf2-function", {"remapping": False}),
            "mlp_noisy": any(mlp.noisy.values()),
            "mlp_fused": sum(len(g.fused) for g in mlp.graphs if g.variant.options == ()),
            "xla_instructions_before": chain.hlo.instructions_before,
            "xla_instructions_after": chain.hlo.instructions_after, "xla_fusions": chain.hlo.fusions,
            "chain_function_step_s": chain.step("tf2-function"), "chain_xla_step_s": chain.step("tf2-xla")}


def judge(m):
    off = m["mlp_step_remapping_off_s"] / m["mlp_step_s"]
    fusion_gain = check(off, ">=", 1.05, 0.05 * off if m["mlp_noisy"] else 0.02 * off,
                        label="remapping's speed-up (off step / on step)")
    fused_few = check(m["xla_fusions"] / max(m["xla_instructions_before"], 1), "<=", 0.25, unit="%",
                      label="fusions per HLO instruction")
    xla_speed = m["chain_function_step_s"] / m["chain_xla_step_s"]
    xla_faster = check(xla_speed, ">=", 1.1, 0.05 * xla_speed, label="XLA over tf.function")
    parts = [
        Part("3a", "no remapping (Grappler's fusion) loses part of the gain", fusion_gain.verdict,
             f"mlp tf.function step: remapping on runs at {off:.2f}x the speed of remapping off ({m['mlp_fused']} "
             "fused kernels with it on)", "remapping on >= 1.05x the speed of off", fusion_gain),
        Part("3b", "XLA fuses an element-wise chain into few kernels", fused_few.verdict,
             f"{m['xla_instructions_before']} HLO instructions into {m['xla_fusions']} fusions",
             "fusions <= 25% of HLO instructions", fused_few),
        Part("3c", "XLA is faster still", xla_faster.verdict, f"XLA ran {xla_speed:.2f}x the tf.function speed",
             "XLA >= 1.1x tf.function", xla_faster),
    ]
    return Judged(all_of([p.verdict for p in parts]), "; ".join(f"{p.key}: {p.measured}" for p in parts),
                  "; ".join(f"{p.key}: {p.threshold}" for p in parts), tuple(p.check for p in parts), tuple(parts))


# which kernels Grappler's remapper fuses (and so what turning it off loses) differs with oneDNN on
CLAIM = Claim(3, "The gain comes from fusion and removed dispatch: no remapping loses part of it; XLA fuses "
             "an element-wise chain into few kernels and is faster still", measure, judge, depends_on=("oneDNN",))
