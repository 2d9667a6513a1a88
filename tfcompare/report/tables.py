"""The side-by-side run table: a `RunResult` as fixed-width text for the terminal and Markdown for TensorBoard.

Other result types render themselves (the lever report, the audit, the inspection, the export, the
claims) from the same vocabulary in `report.format`.
"""

from __future__ import annotations

from pathlib import Path

from tfcompare.core.modes import MODES
from tfcompare.core.results import RunResult
from tfcompare.core.timing import NOISY_HALF_WIDTH
from tfcompare.report.format import format_bytes, format_seconds, grid

__all__ = ["table", "markdown_table", "memory_legend", "peak_text", "per_op_text", "speed_text", "eager_speed_text", "where_text",
           "NOISY_LEGEND"]

# the limit in two columns, one unit each: the share of the GEMM rate for a step that computes, µs per op for
# one that mostly dispatches; a row fills the one that binds it
_COLUMNS = ("case", "mode", "first call", "median step", "IQR", "vs tf1 (>1 is faster; 95% CI)", "x eager (95% CI)",
            "of peak", "µs/op", "peak mem", "max err", "verdict", "noisy")
_COMPUTE_BOUND = 0.05  # from 5% of the GEMM rate on the step computes; below it is op-bound: read its µs per op

NOISY_LEGEND = (f"NOISY = the row's 95% interval (its speed against tf1-graph; tf1-graph's: its median's) reaches "
                f"beyond \u00b1{NOISY_HALF_WIDTH:.0%} of its median; RETRACED xN = tf.function retraced N times "
                "while timing (those times include tracing).")


def _computes(r) -> bool:
    return r.fraction_of_peak is not None and r.fraction_of_peak >= _COMPUTE_BOUND


def peak_text(r) -> str:
    """`87%`: a computing step's FLOP rate as a share of the GEMM rate (`+`: a lower bound); else `-`."""
    return f"{r.fraction_of_peak:.0%}" + ("+" if r.flops_lower_bound else "") if _computes(r) else "-"


def per_op_text(r) -> str:
    """`3.1`: microseconds per op, the limit of an op-bound step (below 5% of peak), `*` when the step has loops
    (their bodies are not counted, so it is an upper bound); else `-`."""
    if r.us_per_op is None or _computes(r):
        return "-"
    return f"{r.us_per_op:.1f}" + ("*" if r.flops_lower_bound else "")


def _ratio_text(estimate: float | None, ci: list[float] | None) -> str:
    if not estimate:
        return "-"
    if not ci:
        return f"{estimate:.2f}x"
    return f"{estimate:.2f}x ({ci[0]:.2f}\u2013{ci[1]:.2f})"


def speed_text(r) -> str:
    """`0.82x (0.79-0.85)`: the speed against tf1-graph (> 1 is faster) with its 95% interval; `-` when not
    measured."""
    return _ratio_text(r.speedup_vs_tf1_graph, r.speedup_ci)


def eager_speed_text(r) -> str:
    """`5.10x (4.80-5.40)`: the speed against the case's tf2-eager, the same way; `-` when the case has no
    eager row, so a learner reads what the graph bought over dynamic execution."""
    return _ratio_text(r.speedup_vs_eager, r.speedup_vs_eager_ci)


def _rows(result: RunResult) -> list[tuple[str, ...]]:
    rows = []
    for r in result.results:
        speed = speed_text(r)
        err = f"{r.max_abs_err:.1e}" if r.max_abs_err is not None else "-"
        noisy = "-" if r.noisy is None else ("NOISY" if r.noisy else "")
        if r.retraces_during_timing:
            noisy = f"RETRACED x{r.retraces_during_timing}"
        rows.append((r.case, r.mode, format_seconds(r.first_call_s), format_seconds(r.step_median_s),
                     format_seconds(r.step_iqr_s), speed, eager_speed_text(r), peak_text(r), per_op_text(r),
                     format_bytes(r.peak_memory_bytes), err, r.status, noisy))
    return rows


def table(result: RunResult) -> str:
    """A fixed-width table, one row per case × mode, its legend, then the errors in full and the machine."""
    lines = grid(_COLUMNS, _rows(result))
    lines.append(NOISY_LEGEND)
    failed = [r for r in result.results if r.error]
    if failed:
        lines.append("")
        lines += [f"{r.case}/{r.mode}: {r.status}: {r.error}" for r in failed]
    env = result.environment
    device = "GPU (TensorFlow sees one; used)" if env.get("gpu") else "CPU only (TensorFlow sees no GPU)"
    lines.append("")
    lines.append(f"TensorFlow {env.get('tf_version')} on {device}; {env.get('cpu_count')} CPUs; threads "
                 f"intra={env.get('intra_op_threads')} inter={env.get('inter_op_threads')} for every mode; "
                 f"'vs tf1' = median over the interleaved rounds of tf1-graph block / mode block (>1 is faster), "
                 f"with its 95% confidence interval (order statistics of the per-round ratios); 'x eager' = the "
                 f"same with tf2-eager's block over the mode's ('-': the case ran no tf2-eager).")
    sampled = [c for c in result.cases if c.get("sampling")]
    if sampled:
        stops = {}
        for c in sampled:
            stops.setdefault(c["sampling"]["stopped"], []).append(f"{c['case']} ({c['sampling']['rounds']})")
        why = {"fixed": "fixed rounds (--repeats)", "target": "precise enough",
               "budget": "time budget spent, interval wider than the target", "max_rounds": "round cap"}
        lines.append("Timing rounds per case: " + "; ".join(f"{why.get(k, k)}: {', '.join(v)}"
                                                            for k, v in stops.items()) + ".")
    peak = env.get("gemm_peak_gflops")
    # a step with loops (rnn, control_flow, keras-lstm) has its While/If bodies counted as one op each: a row that
    # computes marks its share '+' (a lower bound), an op-bound one its µs/op '*' (an upper bound); said when shown
    shown = {text[-1] for r in result.results for text in (peak_text(r), per_op_text(r))}
    bound = "; '+' = loops counted once (a lower bound)" if "+" in shown else ""
    upper = " '*' = the step's loops (While, If) counted as one op each, their bodies not entered: an upper bound." \
        if "*" in shown else ""
    lines.append("of peak = the step's FLOPs (counted from the traced step's static shapes) per second, as a share of "
                 + (f"this machine's float32 GEMM rate, {peak:.0f} GFLOP/s" if peak else
                    f"the GEMM rate ({env.get('gemm_error') or 'not measured'})")
                 + f"{bound}. A step below {_COMPUTE_BOUND:.0%} of it is op-bound and shows µs/op instead = median "
                   f"step / ops per step.{upper}")
    if env.get("gemm_now_gflops") and env.get("gemm_cached"):
        lines[-1] += (f" This run measured {env['gemm_now_gflops']:.0f} GFLOP/s; the limit is the best rate seen on "
                      f"this machine.")
    loops = [m for m in dict.fromkeys(r.mode for r in result.results) if m in MODES and MODES[m].loop]
    if loops:
        lines.append(f"median step = the time of one training step; a loop mode ({', '.join(loops)}) runs K steps "
                     "per call (--loop-steps), and its median step is the call's time / K.")
    if env.get("memory_method"):
        lines.append(memory_legend(env))
    load = env.get("load") or {}
    if load.get("warning"):
        lines.append(f"Warning: {load['warning']}.")
    tolerances = sorted({r.tolerance for r in result.results if r.tolerance})
    if tolerances:
        lines.append(f"Equivalence vs tf1-graph (forward, gradients, K-step losses and weights): {'; '.join(tolerances)}")
    if result.interrupted:
        lines.append("Interrupted: only the cases above finished.")
    return "\n".join(lines)


def markdown_table(result: RunResult) -> str:
    """The same table in Markdown (TensorBoard's text dashboard renders it)."""
    rows = _rows(result)
    out = ["| " + " | ".join(_COLUMNS) + " |", "|" + "---|" * len(_COLUMNS)]
    out += ["| " + " | ".join(cell or " " for cell in row) + " |" for row in rows]
    if result.environment.get("memory_method"):
        out += ["", memory_legend(result.environment)]
    return "\n".join(out)


def memory_legend(env: dict) -> str:
    """What the peak mem column counts, in the words of results.json's `environment.memory_method`."""
    return f"peak mem = {env['memory_method']}."



def where_text(result: RunResult, logdir) -> str:
    """Where the run wrote what it found: results.json, the picture (absolute path) and the TensorBoard command."""
    picture = result.picture or "not drawn"
    return (f"results: {Path(result.run_dir) / 'results.json'}\npicture: {picture}\n"
            f"TensorBoard: tensorboard --logdir {logdir}")
