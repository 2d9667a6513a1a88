"""`tfcompare claims`: the textbook statements about static and dynamic graphs, measured here.

Each claim is an experiment (`measure`, which runs TensorFlow) and a judgement (`judge`, a pure function
of the measurements that states its threshold). A verdict is `holds`, `does not hold`, or `inconclusive`
when the noise is larger than the distance to the threshold; an experiment that fails is `error`.
Nothing here states a verdict in advance: every verdict is computed from this run's numbers.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
import traceback
from pathlib import Path
from typing import Callable

import numpy as np

__all__ = ["Claim", "ClaimResult", "CLAIMS", "at_least", "at_most", "ratio_noise", "run_claims", "HOLDS",
           "FAILS", "INCONCLUSIVE", "ERROR"]

HOLDS, FAILS, INCONCLUSIVE, ERROR = "holds", "does not hold", "inconclusive", "error"


def at_least(value: float, threshold: float, noise: float) -> str:
    """The claim is `value >= threshold`; `noise` is the absolute uncertainty of `value`."""
    if value - noise >= threshold:
        return HOLDS
    if value + noise < threshold:
        return FAILS
    return INCONCLUSIVE


def at_most(value: float, threshold: float, noise: float) -> str:
    """The claim is `value <= threshold`."""
    if value + noise <= threshold:
        return HOLDS
    if value - noise > threshold:
        return FAILS
    return INCONCLUSIVE


def ratio_noise(a: dict, b: dict) -> float:
    """Relative uncertainty of median(a)/median(b): the mean of the two relative IQRs, halved.

    Half an IQR is the spread around the median that half of the samples stay within; averaging the two
    relative spreads is deliberately cautious for a ratio of two medians from the same interleaved run.
    """
    return (a["iqr"] / a["median"] + b["iqr"] / b["median"]) / 4


def _all(verdicts: list[str]) -> str:
    if all(v == HOLDS for v in verdicts):
        return HOLDS
    if any(v == FAILS for v in verdicts):
        return FAILS
    return INCONCLUSIVE


@dataclasses.dataclass
class ClaimResult:
    number: int
    statement: str
    measured: str = ""
    figures: dict = dataclasses.field(default_factory=dict)
    threshold: str = ""
    verdict: str = ERROR
    error: str | None = None
    plot: str | None = None

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Claim:
    number: int
    statement: str
    measure: Callable[["_Context"], dict]
    judge: Callable[[dict], tuple[str, str, str]]  # -> (verdict, what was measured, threshold)
    plot: Callable[[dict, Path], None] | None = None


class _Context:
    """Shared across claims in one invocation: quick mode, output folder, and runs reused by several claims."""

    def __init__(self, run_dir: Path, quick: bool, seed: int):
        self.run_dir, self.quick, self.seed = run_dir, quick, seed
        self.cache: dict = {}

    def harness(self, key: str, cases, modes, *, accept=("ok",), **kw):
        """A quick interleaved harness run (cached by key); returns {(case, mode): stats}.

        A row whose status is not in `accept` raises (a claim about timing may accept `mismatch`).
        """
        if key not in self.cache:
            from tfcompare import harness
            from tfcompare.registry import CASES

            registry = dict(CASES)
            for name, case in kw.pop("registry", {}).items():
                registry[name] = case
            settings = dict(steps=2, repeats=5 if self.quick else 11, min_block_s=0.01 if self.quick else 0.03,
                            seed=self.seed)
            settings.update(kw)
            config = harness.RunConfig(cases=tuple(cases), modes=tuple(modes), **settings)
            result = harness.run(config, registry, self.run_dir / "runs", key)
            self.cache[key] = {(r.case, r.mode): _stats(r, accept) for r in result.results}
        return self.cache[key]


def _stats(row, accept=("ok",)) -> dict:
    if row.status not in accept:
        raise RuntimeError(f"{row.case}/{row.mode} {row.status}: {row.error}")
    return {"median": row.step_median_s, "iqr": row.step_iqr_s, "first_call": row.first_call_s,
            "memory": row.peak_memory_bytes, "noisy": row.noisy}


# --- the experiments ------------------------------------------------------------------------------------------

def _m1(ctx):
    runs = ctx.harness("c1-elementwise", ["elementwise"], ["tf1-graph", "tf2-eager", "tf2-function"])
    return {m: runs[("elementwise", m)] for m in ("tf1-graph", "tf2-eager", "tf2-function")}


def _j1(m):
    threshold = 2.0
    verdicts, parts = [], []
    for mode in ("tf1-graph", "tf2-function"):
        speedup = m["tf2-eager"]["median"] / m[mode]["median"]
        verdicts.append(at_least(speedup, threshold, speedup * ratio_noise(m["tf2-eager"], m[mode])))
        parts.append(f"{mode} {speedup:.1f}x faster than eager")
    return _all(verdicts), f"elementwise (240 small ops per step): {', '.join(parts)}", \
        f"each compiled mode >= {threshold}x eager, beyond noise"


def _m2(ctx):
    small = _m1(ctx)
    runs = ctx.harness("c2-matmul", ["matmul"], ["tf2-eager", "tf2-function"])
    return {"matmul": {m: runs[("matmul", m)] for m in ("tf2-eager", "tf2-function")},
            "elementwise": {m: small[m] for m in ("tf2-eager", "tf2-function")}}


def _j2(m):
    threshold = 1.5
    big = m["matmul"]["tf2-eager"]["median"] / m["matmul"]["tf2-function"]["median"]
    small = m["elementwise"]["tf2-eager"]["median"] / m["elementwise"]["tf2-function"]["median"]
    noise = big * ratio_noise(m["matmul"]["tf2-eager"], m["matmul"]["tf2-function"])
    return at_most(big, threshold, noise), (f"eager/function step time: {big:.2f}x on matmul vs {small:.1f}x on "
                                            f"elementwise"), f"matmul eager/function <= {threshold}x, beyond noise"


def _m3(ctx):
    from tfcompare.compiler import inspect_case
    from tfcompare.registry import CASES

    repeats = 5 if ctx.quick else 11
    mlp = inspect_case(CASES["mlp"], ("tf2-function",), {"remapping": False}, repeats=repeats)
    chain = inspect_case(CASES["elementwise"], ("tf2-function", "tf2-xla"), repeats=repeats)
    return {"mlp_step": mlp.step_s, "mlp_noisy": mlp.noisy,
            "mlp_fused": sum(len(g.fused) for g in mlp.graphs if g.mode == "tf2-function"),
            "xla_instructions_before": chain.hlo.instructions_before,
            "xla_instructions_after": chain.hlo.instructions_after, "xla_fusions": chain.hlo.fusions,
            "chain_step": chain.step_s}


def _j3(m):
    off = m["mlp_step"]["tf2-function [remapping=False]"] / m["mlp_step"]["tf2-function"]
    fusion_gain = at_least(off, 1.05, 0.05 * off if any(m["mlp_noisy"].values()) else 0.02 * off)
    fused_few = at_most(m["xla_fusions"] / max(m["xla_instructions_before"], 1), 0.25, 0.0)
    xla_speed = m["chain_step"]["tf2-function"] / m["chain_step"]["tf2-xla"]
    xla_faster = at_least(xla_speed, 1.1, 0.05 * xla_speed)
    return _all([fusion_gain, fused_few, xla_faster]), (
        f"mlp tf.function step with remapping off: {off:.2f}x the time with it on ({m['mlp_fused']} fused kernels); XLA fused "
        f"the element-wise chain's {m['xla_instructions_before']} HLO instructions into {m['xla_fusions']} fusions "
        f"and ran {xla_speed:.2f}x the tf.function speed"), (
        "remapping off >= 1.05x slower; fusions <= 25% of HLO instructions; XLA >= 1.1x tf.function")


def _m4(ctx):
    from tfcompare.pitfalls import run_pitfalls

    found = {p.name: p for p in run_pitfalls(["print", "python-branch-and-global"])}
    return {name: {"holds": p.holds, "measured": p.measured, "error": p.error} for name, p in found.items()}


def _j4(m):
    p, b = m["print"]["measured"], m["python-branch-and-global"]["measured"]
    ok = p["python_print"] == 1 and p["tf_print"] == p["calls"] and b["flag_traces"] == 2 \
        and b["global_result_after"] == b["global_result_before"]
    return (HOLDS if ok else FAILS), (
        f"print ran {p['python_print']}x in {p['calls']} calls (tf.print {p['tf_print']}x); a Python bool branch "
        f"gave {b['flag_traces']} traces; a changed global left the result at {b['global_result_after']}"), \
        "exact counts (no noise): print once per trace, one trace per Python value, global frozen"


def _distinct_lengths(ctx):
    return (1, 2, 4) if ctx.quick else (1, 2, 4, 8)


def _m5(ctx):
    from tfcompare.environment import session_config
    from tfcompare.registry import CASES, rnn_batch
    from tfcompare.shapes import run_variants

    case = CASES["rnn"]
    weights = case.init_weights(np.random.default_rng(ctx.seed))
    rng = np.random.default_rng(ctx.seed + 1)
    pool = [7, 13, 20, 31, 9, 17, 26, 11]
    out = {}
    for k in _distinct_lengths(ctx):
        lengths = (pool[:k] * (8 // k + 1))[:8]
        found = run_variants(case, weights, lambda n: rnn_batch(rng, 8, steps=n), lengths, passes=2,
                             session_config=session_config(2, 2))
        out[k] = {v.variant: {"traces": v.traces, "total_s": v.total_s, "step_s": v.step_median_s} for v in found}
    return out


def _j5(m):
    k = max(m, key=int)
    worst = m[k]
    eaten = worst["no-signature"]["total_s"] / worst["none-signature"]["total_s"]
    restored = min(worst[v]["total_s"] for v in ("none-signature", "buckets", "reduce-retracing"))
    traces_ok = worst["no-signature"]["traces"] == int(k) and worst["none-signature"]["traces"] == 1
    verdict = at_least(eaten, 1.5, 0.15 * eaten) if traces_ok else FAILS
    return verdict, (f"{k} distinct lengths: no signature traced {worst['no-signature']['traces']}x, total "
                     f"{worst['no-signature']['total_s'] * 1e3:.0f} ms vs {restored * 1e3:.0f} ms for the best fix "
                     f"({eaten:.1f}x)"), "no-signature total >= 1.5x the None-signature total; traces = distinct lengths"


def _p5(m, path):
    _plot_lines(path, "total time vs distinct lengths", "distinct lengths in the stream", "total seconds (8 batches x 2)",
                {v: ([int(k) for k in m], [m[k][v]["total_s"] for k in m]) for v in next(iter(m.values()))})


def _depths(ctx):
    return (1, 2, 3) if ctx.quick else (1, 2, 4, 6)


def _m6(ctx):
    from tfcompare.registry import CASES

    out = {}
    for depth in _depths(ctx):
        case = CASES["resnet"].with_options(depth=depth)
        # first-call time is what this claim needs; a deeper resnet's XLA gradients may exceed the
        # equivalence tolerance (reported by `tfcompare run`), which does not change its compile time
        runs = ctx.harness(f"c6-depth{depth}", ["resnet"], ["tf1-graph", "tf2-function", "tf2-xla"], repeats=2,
                           min_block_s=0.005, registry={"resnet": case}, accept=("ok", "mismatch"))
        out[depth] = {m: runs[("resnet", m)]["first_call"] for m in ("tf1-graph", "tf2-function", "tf2-xla")}
    return out


def _j6(m):
    depths = sorted(m, key=int)
    lo, hi = m[depths[0]], m[depths[-1]]
    verdicts, parts = [], []
    for mode in ("tf2-function", "tf2-xla"):
        growth = hi[mode] / lo[mode]
        verdicts.append(at_least(growth, 1.2, 0.1 * growth))  # first calls are single samples: 10% noise
        parts.append(f"{mode} {lo[mode]:.2f} s -> {hi[mode]:.2f} s")
    return _all(verdicts), f"first call from depth {depths[0]} to {depths[-1]}: {'; '.join(parts)}", \
        "first call grows >= 1.2x from the shallowest to the deepest network (10% single-sample noise)"


def _p6(m, path):
    modes = next(iter(m.values()))
    _plot_lines(path, "first call vs depth (resnet)", "residual blocks", "first call (s)",
                {mode: ([int(d) for d in m], [m[d][mode] for d in m]) for mode in modes})


def _batches(ctx):
    return (1, 8, 128) if ctx.quick else (1, 4, 8, 32, 128, 512)


def _m7(ctx):
    out = {}
    for bs in _batches(ctx):
        runs = ctx.harness(f"c7-batch{bs}", ["mlp"], ["tf1-graph", "tf2-eager", "tf2-function"], batch_size=bs)
        out[bs] = {m: runs[("mlp", m)] for m in ("tf1-graph", "tf2-eager", "tf2-function")}
    return out


def _j7(m):
    sizes = sorted(m, key=int)
    speed = {bs: m[bs]["tf2-eager"]["median"] / m[bs]["tf2-function"]["median"] for bs in sizes}
    small = [speed[b] for b in sizes if int(b) < 8]
    large = [speed[b] for b in sizes if int(b) >= 8]
    if not small or not large:
        return INCONCLUSIVE, "need batch sizes on both sides of 8", "speedup below batch 8 < speedup at >= 8"
    ratio = np.mean(large) / np.mean(small)  # > 1 means the advantage is weaker at small batch, as claimed
    noise = ratio * np.mean([ratio_noise(m[b]["tf2-eager"], m[b]["tf2-function"]) for b in sizes])
    trend = ", ".join(f"batch {b}: {speed[b]:.1f}x" for b in sizes)
    return at_least(ratio, 1.1, noise), f"tf.function speedup over eager by batch size: {trend}", \
        "the speedup at batch >= 8 is >= 1.1x the speedup below 8 (the claimed weakening), beyond noise"


def _p7(m, path):
    sizes = sorted(m, key=int)
    _plot_lines(path, "speedup over eager vs batch size (mlp)", "batch size", "eager step / mode step",
                {mode: ([int(b) for b in sizes], [m[b]["tf2-eager"]["median"] / m[b][mode]["median"] for b in sizes])
                 for mode in ("tf1-graph", "tf2-function")}, logx=True)


def _resnet_run(ctx):
    return ctx.harness("c8-resnet", ["resnet"], ["tf1-graph", "tf2-eager", "tf2-function", "tf2-xla"])


def _m8(ctx):
    runs = _resnet_run(ctx)
    return {m: runs[("resnet", m)]["memory"] for m in ("tf1-graph", "tf2-eager", "tf2-function", "tf2-xla")}


def _j8(m):
    if not m["tf2-eager"]:
        return INCONCLUSIVE, "the allocator counted no large buffer in eager", "static peak <= 0.9x eager peak"
    ratios = {k: m[k] / m["tf2-eager"] for k in ("tf1-graph", "tf2-function")}
    verdict = _all([at_most(r, 0.9, 0.0) for r in ratios.values()])  # allocator bytes are exact, not sampled
    return verdict, ("resnet peak memory vs eager: " + ", ".join(f"{k} {r:.2f}x" for k, r in ratios.items())
                     + f" (eager {m['tf2-eager'] / 2**20:.1f} MiB)"), "each static mode's peak <= 0.9x eager's"


def _p8(m, path):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar(list(m), [v / 2**20 for v in m.values()])
    ax.set_ylabel("peak MiB (allocator, large buffers)")
    ax.set_title("memory per mode (resnet)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _m9(ctx):
    from tfcompare.pitfalls import run_pitfalls

    return run_pitfalls(["shape-error"])[0].measured


def _j9(m):
    ok = m.get("tf1-graph", "").startswith("graph construction") and m.get("tf2-eager", "").startswith("run time") \
        and "line" in m.get("tf2-eager", "")
    return (HOLDS if ok else FAILS), "; ".join(f"{k}: {v}" for k, v in m.items()), \
        "TF1 raises while building (no data); eager raises on data, naming the user's line"


def _m10(ctx):
    from tfcompare.export import export_case
    from tfcompare.registry import CASES

    with tempfile.TemporaryDirectory() as tmp:
        report = export_case(CASES["mlp"], Path(tmp) / "mlp")
    return report.to_json()


def _j10(m):
    f = {x["format"]: x for x in m["formats"]}
    q, fl = f.get("tflite-dynamic-range", {}), f.get("tflite-float", {})
    ok = m["ok"] and m["reload_imported"] == [] and q.get("size_bytes", 1) < fl.get("size_bytes", 0)
    return (HOLDS if ok else FAILS), (
        f"mlp SavedModels reloaded in a process with no model code (max err {f['savedmodel-tf2']['max_abs_err']:.1e}); "
        f"TFLite float {fl.get('size_bytes', 0) / 1024:.0f} KiB -> dynamic-range {q.get('size_bytes', 0) / 1024:.0f} KiB, "
        f"error {q.get('max_rel_err') or 0:.1e} of the output range"), \
        "reload agrees within 1e-5 without model code; quantised file smaller and within 5e-2 of the range"


def _m11(ctx):
    from tfcompare.environment import memory_device

    runs = _resnet_run(ctx)
    return {"scale": "resnet case (CPU-sized, 2 residual blocks, batch 16)"
                     + (" on a GPU" if memory_device().startswith("GPU") else " on the CPU"),
            **{m: runs[("resnet", m)] for m in ("tf1-graph", "tf2-eager", "tf2-function", "tf2-xla")}}


def _j11(m):
    eager, static = m["tf2-eager"], m["tf2-function"]
    faster = eager["median"] / static["median"]
    v_speed = at_least(faster, 1.1, faster * ratio_noise(eager, static))
    v_mem = at_most(static["memory"] / eager["memory"], 0.9, 0.0) if eager["memory"] else INCONCLUSIVE
    start = static["first_call"] / eager["first_call"]
    v_start = at_least(start, 3.0, 0.1 * start)
    mem = f"{static['memory'] / eager['memory']:.2f}x" if eager["memory"] else "n/a"
    return _all([v_speed, v_mem, v_start]), (
        f"{m['scale']}: static (tf.function) {faster:.2f}x eager speed per step (quoted 1.29x), memory {mem} of eager "
        f"(quoted 0.8x), first call {static['first_call']:.2f} s vs eager {eager['first_call']:.2f} s "
        f"(quoted 3.7 s vs 0.1 s)"), "the direction of each quoted figure: >= 1.1x faster, <= 0.9x memory, >= 3x first call"


CLAIMS: dict[int, Claim] = {c.number: c for c in [
    Claim(1, "Compiled graphs beat eager on models made of many small ops (per-op dispatch disappears)", _m1, _j1),
    Claim(2, "On a model dominated by one large matmul the difference nearly vanishes", _m2, _j2),
    Claim(3, "The gain comes from fusion and removed dispatch: no remapping loses part of it; XLA fuses "
             "an element-wise chain into few kernels and is faster still", _m3, _j3),
    Claim(4, "Tracing records one path: a Python-value branch is frozen per trace; print runs only while tracing",
          _m4, _j4),
    Claim(5, "Variable input lengths cause retracing that can eat the gain; buckets or a None signature restore it",
          _m5, _j5, _p5),
    Claim(6, "Compiled modes pay a first-call cost that grows with network depth", _m6, _j6, _p6),
    Claim(7, "The static-graph advantage weakens below batch size 8", _m7, _j7, _p7),
    Claim(8, "Static graphs use less memory than eager execution (about 20% on ResNet-50)", _m8, _j8, _p8),
    Claim(9, "Static graphs catch shape errors before any data runs; eager errors point at the user's line", _m9, _j9),
    Claim(10, "A static graph serialises and runs without its Python code, and is the path to quantisation",
          _m10, _j10),
    Claim(11, "ResNet-50: static ~29% faster per step, ~20% less memory, ~3.7 s vs ~0.1 s first start", _m11, _j11),
]}


def _plot_lines(path: Path, title: str, xlabel: str, ylabel: str, series: dict, logx: bool = False) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for label, (xs, ys) in series.items():
        ax.plot(xs, ys, marker="o", label=label)
    if logx:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def run_claims(numbers, run_dir: Path, *, quick: bool = False, seed: int = 0,
               progress: Callable[[str], None] = lambda line: None) -> list[ClaimResult]:
    """Run each claim's experiment and judgement; a failing one is an `error` verdict, the others go on.

    The report (claims.json, claims.md, plots, TensorBoard) is rewritten after every claim, so an
    interrupt keeps what finished.
    """
    import matplotlib

    matplotlib.use("Agg")
    from tfcompare.audit import QuietRetraceWarning

    run_dir.mkdir(parents=True, exist_ok=True)
    ctx = _Context(run_dir, quick, seed)
    results = []
    with QuietRetraceWarning():
        try:
            _each(numbers, ctx, results, progress)
        finally:
            from tfcompare.summaries import write_claims

            write_claims(run_dir / "tensorboard", results, markdown(results, quick))
    return results


def _each(numbers, ctx, results, progress):
    run_dir, quick = ctx.run_dir, ctx.quick
    for i, n in enumerate(numbers):
        claim = CLAIMS[n]
        progress(f"[{i + 1}/{len(numbers)}] claim {n}: {claim.statement}")
        result = ClaimResult(n, claim.statement)
        try:
            measured = claim.measure(ctx)
            result.figures = json.loads(json.dumps(measured, default=str))
            result.verdict, result.measured, result.threshold = claim.judge(measured)
            if claim.plot is not None:
                path = run_dir / f"claim{n}.png"
                claim.plot(measured, path)
                result.plot = str(path)
        except Exception as exc:
            result.verdict, result.error = ERROR, f"{type(exc).__name__}: {exc}"
            result.figures.setdefault("traceback", traceback.format_exc())
        results.append(result)
        write_report(results, run_dir, quick)


def markdown(results: list[ClaimResult], quick: bool) -> str:
    lines = ["# Static vs dynamic graphs: the claims, measured on this machine", "",
             f"{'Quick run (fewer samples, noisier)' if quick else 'Full run'}; every verdict below is computed "
             "from the figures beside it.", "",
             "| # | claim | measured | threshold | verdict |", "|---|---|---|---|---|"]
    for r in results:
        measured = r.measured or (r.error or "")
        lines.append(f"| {r.number} | {r.statement} | {measured.replace('|', '/')} | {r.threshold} | **{r.verdict}** |")
    for r in results:
        if r.plot:
            lines += ["", f"![claim {r.number}]({Path(r.plot).name})"]
    return "\n".join(lines) + "\n"


def write_report(results: list[ClaimResult], run_dir: Path, quick: bool) -> None:
    """claims.json and claims.md, each replaced atomically."""
    from tfcompare.results import write_json_atomic

    write_json_atomic(run_dir / "claims.json", {"quick": quick, "claims": [r.to_json() for r in results]})
    text = markdown(results, quick)
    tmp = run_dir / ".claims.md.tmp"
    tmp.write_text(text)
    tmp.replace(run_dir / "claims.md")
