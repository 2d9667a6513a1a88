"""The side-by-side table: the one place that turns results into text for people."""

from __future__ import annotations

from tfcompare.audit import AuditReport
from tfcompare.levers import TARGET_RATIO, LeverRow
from tfcompare.results import RunResult

__all__ = ["format_seconds", "format_bytes", "table", "markdown_table", "lever_table", "audit_text", "variants_table",
           "inspection_text", "export_text"]

_COLUMNS = ("case", "mode", "first call", "median step", "IQR", "vs tf1", "peak mem", "max err", "verdict", "noisy")


def format_seconds(s: float | None) -> str:
    if s is None:
        return "-"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


def format_bytes(n: int | None) -> str:
    if n is None:
        return "-"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def _grid(head, body) -> list[str]:
    """Fixed-width columns: the header, a rule, then one line per row."""
    widths = [max(len(row[i]) for row in [head] + list(body)) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in [head] + list(body)]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def _rows(result: RunResult) -> list[tuple[str, ...]]:
    rows = []
    for r in result.results:
        speed = f"{r.speedup_vs_tf1_graph:.2f}x" if r.speedup_vs_tf1_graph else "-"
        err = f"{r.max_abs_err:.1e}" if r.max_abs_err is not None else "-"
        noisy = "-" if r.noisy is None else ("NOISY" if r.noisy else "")
        if r.retraces_during_timing:
            noisy = f"RETRACED x{r.retraces_during_timing}"
        rows.append((r.case, r.mode, format_seconds(r.first_call_s), format_seconds(r.step_median_s),
                     format_seconds(r.step_iqr_s), speed, format_bytes(r.peak_memory_bytes), err, r.status, noisy))
    return rows


def table(result: RunResult) -> str:
    """A fixed-width table, one row per case × mode, then the errors in full and the machine."""
    lines = _grid(_COLUMNS, _rows(result))
    failed = [r for r in result.results if r.error]
    if failed:
        lines.append("")
        lines += [f"{r.case}/{r.mode}: {r.status}: {r.error}" for r in failed]
    env = result.environment
    device = "GPU (TensorFlow sees one; used)" if env.get("gpu") else "CPU only (TensorFlow sees no GPU)"
    lines.append("")
    lines.append(f"TensorFlow {env.get('tf_version')} on {device}; {env.get('cpu_count')} CPUs; threads "
                 f"intra={env.get('intra_op_threads')} inter={env.get('inter_op_threads')} for every mode; "
                 f"'vs tf1' = tf1-graph median / mode median (>1 is faster); noisy = IQR/median > 10%.")
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
    return "\n".join(out)


def _missing_lever(case: str, rows: list[LeverRow]) -> str:
    """Why no lever reached the target, read off the same run's numbers."""
    by_mode = {r.mode: r for r in rows if r.case == case}
    eager = by_mode.get("tf2-eager")
    if eager is not None and eager.ratio_to_tf1 is not None and eager.ratio_to_tf1 < 2:
        xla = by_mode.get("tf2-xla")
        xla_note = f"; XLA's fusion gained {xla.gain_vs_parent:.2f}x" if xla and xla.gain_vs_parent else ""
        return (f"even eager is only {eager.ratio_to_tf1:.2f}x tf1 time, so per-op dispatch is a small share of "
                f"this step and the rest is kernel time (compute-bound), which no dispatch lever removes{xla_note}")
    return "dispatch is a large share of this step, but none of the measured levers removed enough of it"


def lever_table(rows: list[LeverRow]) -> str:
    """Per case: each TF2 mode's step time as a fraction of tf1-graph's and what its lever bought."""
    head = ("case", "mode", "step", "x tf1 time", "lever (over parent)", "gain", "")
    body = []
    for r in rows:
        ratio = f"{r.ratio_to_tf1:.2f}" if r.ratio_to_tf1 is not None else "-"
        gain = f"{r.gain_vs_parent:.2f}x" if r.gain_vs_parent is not None else "-"
        lever = f"{r.lever} (over {r.parent})" if r.parent else r.lever
        mark = ("BEST" + ("" if r.meets_target is None else (" <= target" if r.meets_target else " > target"))
                if r.best else "") + (" noisy" if r.noisy else "")
        body.append((r.case, r.mode, format_seconds(r.step_s), ratio, lever, gain, mark.strip()))
    lines = _grid(head, body)
    lines.append(f"x tf1 time = mode step / tf1-graph step (< 1 is faster); target: best TF2 mode <= {TARGET_RATIO}. "
                 "gain = parent step / mode step, from the same interleaved run.")
    for r in rows:
        if r.best and r.meets_target is False:
            lines.append(f"{r.case}: best TF2 mode {r.mode} at {r.ratio_to_tf1:.2f}x tf1 time, short of the "
                         f"{TARGET_RATIO} target: {_missing_lever(r.case, rows)}.")
    return "\n".join(lines)


def audit_text(report: AuditReport) -> str:
    """The audit, grouped by function, worst first: every retrace with its argument, cause, cost and fix."""
    lines = [f"tfcompare audit: {report.target}"]
    if report.status == "failed":
        lines.append(f"TARGET FAILED: {report.error}")
        if report.traceback:
            lines.append(report.traceback.rstrip())
        lines.append("(the traces observed before the failure follow)")
    if report.exit_code not in (None, 0):
        lines.append(f"the target called sys.exit({report.exit_code})")
    if report.note:
        lines.append(f"note: {report.note}")
    if not report.functions:
        lines.append("no tf.function was traced")
    for f in report.functions:
        lines.append("")
        objects = f" from {f.function_objects} tf.function objects" if f.function_objects > 1 else ""
        lines.append(f"{f.name}  ({f.file}:{f.line})")
        lines.append(f"  {f.calls} calls, {f.traces} traces{objects}, {format_seconds(f.tracing_s)} tracing; "
                     f"{f.avoidable_retraces} avoidable retraces")
        for r in f.retraces:
            cost = f", {format_seconds(r.tracing_s)}" if r.tracing_s is not None else ""
            flag = "  (expected)" if r.harmless else ""
            lines.append(f"  trace #{r.trace} at {r.call_site}{cost}{flag}")
            lines.append(f"    why: {r.cause}: {r.argument}: {r.detail}")
            lines.append(f"    fix: {r.suggestion}")
    if report.hazards:
        lines.append("")
        lines.append("hazards TensorFlow does not warn about:")
        lines += [f"  {h.file}:{h.line}: {h.kind}: {h.message}" for h in report.hazards]
    return "\n".join(lines)


def variants_table(rows: list[dict]) -> str:
    """The variable-shape stream per variant: traces, total time with tracing, steady-state step."""
    head = ("case", "variant", "traces", "total (with tracing)", "first pass", "steady step", "error")
    body = [(r["case"], r["variant"], str(r["traces"]), format_seconds(r["total_s"]), format_seconds(r["first_pass_s"]),
             format_seconds(r["step_median_s"]), r["error"] or "") for r in rows]
    lines = _grid(head, body)
    if rows:
        lines.append(f"lengths streamed: {rows[0]['lengths']}; passes interleaved across variants; "
                     "the first pass carries every trace")
    return "\n".join(lines)


def inspection_text(found) -> str:
    """Graphs before and after optimisation, fused kernels, HLO counts, and step times per variant."""
    from tfcompare.compiler import fused_summary

    lines = [f"tfcompare inspect {found.case}", ""]
    head = ("graph", "nodes built", "nodes run", "fused kernels (ops absorbed)", "constants folded")
    body = [(g.mode, str(g.nodes_before), str(g.nodes_after), fused_summary(g), str(g.constants_folded))
            for g in found.graphs]
    lines += _grid(head, body)
    lines.append("nodes run: TF1 = the Session's partition graph; tf.function = the post-optimisation graph "
                 "(oneDNN builds show _MklNative* kernels in TF1)")
    if found.hlo:
        lines.append(f"XLA: {found.hlo.instructions_before} HLO instructions in ENTRY before optimisation, "
                     f"{found.hlo.instructions_after} after; {found.hlo.fusions} fusions")
    lines.append("")
    lines.append("step time (interleaved):")
    base = {k: v for k, v in found.step_s.items() if "[" not in k}
    for key, value in found.step_s.items():
        ratio = ""
        if "[" in key:
            plain = base.get(key.split(" [")[0])
            if plain:
                ratio = f"  ({value / plain:.2f}x the time with every optimisation on)"
        noisy = "  noisy" if found.noisy.get(key) else ""
        lines.append(f"  {key:45s} {format_seconds(value)}{ratio}{noisy}")
    return "\n".join(lines)


def export_text(report) -> str:
    lines = [f"tfcompare export {report.case} -> {report.dir}", ""]
    head = ("format", "status", "size", "max err", "load", "first call", "steady", "original steady")
    body = []
    for f in report.formats:
        err = "-" if f.max_abs_err is None else (f"{f.max_abs_err:.1e}" + (f" ({f.max_rel_err:.1e} of range)"
                                                                             if f.max_rel_err is not None else ""))
        body.append((f.format, f.status, format_bytes(f.size_bytes), err, format_seconds(f.load_s),
                     format_seconds(f.first_call_s), format_seconds(f.steady_s), format_seconds(f.original_steady_s)))
    lines += _grid(head, body)
    lines.append(f"inputs checked: {report.batch_shapes}")
    if report.reload_imported is not None:
        lines.append("SavedModels reloaded in a fresh Python process that imported "
                     + ("no model code" if not report.reload_imported else f"{report.reload_imported} (!)"))
    if report.interpreter:
        lines.append(f"TFLite interpreter: {report.interpreter}")
    lines += [f"{f.format}: {f.error}" for f in report.formats if f.error]
    return "\n".join(lines)
