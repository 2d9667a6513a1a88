"""Running the claims and writing what they found: claims.json, claims.md, plots, TensorBoard; the terminal text."""

from __future__ import annotations

import dataclasses
import json
import traceback
from pathlib import Path
from typing import Callable

from tfcompare.claims.catalogue import CLAIMS
from tfcompare.claims.claim import ClaimResult, Context
from tfcompare.claims.verdicts import ERROR, QUICK_NOISE_SCALE, widened_noise
from tfcompare.core.files import write_atomic
from tfcompare.core.results import write_json_atomic
from tfcompare.core.trace_log import QuietRetraceWarning
from tfcompare.report.tensorboard import write_claims

__all__ = ["run_claims", "markdown", "write_report", "text"]


def run_claims(numbers, run_dir: Path, *, quick: bool = False, seed: int = 0,
               progress: Callable[[str], None] = lambda line: None) -> list[ClaimResult]:
    """Run each claim's experiment and judgement; a failing one is an `error` verdict, the others go on.

    The report (claims.json, claims.md, plots, TensorBoard) is rewritten after every claim, so an
    interrupt keeps what finished.
    """
    import matplotlib

    matplotlib.use("Agg")
    run_dir.mkdir(parents=True, exist_ok=True)
    ctx = Context(run_dir, quick, seed)
    results = []
    with QuietRetraceWarning():
        try:
            _each(numbers, ctx, results, progress)
        finally:
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
            with widened_noise(QUICK_NOISE_SCALE if quick else 1.0):
                judged = claim.judge(measured)
            result.verdict, result.measured, result.threshold = judged[:3]
            result.parts = [dataclasses.asdict(p) for p in (judged[3] if len(judged) > 3 else [])]
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
             f"{'Quick run (the same sweeps, fewer samples; noise bands 3x wider, so a verdict it cannot separate is inconclusive)' if quick else 'Full run'}; every verdict below is computed "
             "from the figures beside it.", "",
             "| # | claim | measured | threshold | verdict |", "|---|---|---|---|---|"]
    for r in results:
        measured = r.measured or (r.error or "")
        lines.append(f"| {r.number} | {r.statement} | {measured.replace('|', '/')} | {r.threshold} | **{r.verdict}** |")
        lines += [f"| {p['key']} | {p['statement']} | {p['measured']} | {p['threshold']} | **{p['verdict']}** |"
                  for p in r.parts]
    for r in results:
        if r.plot:
            lines += ["", f"![claim {r.number}]({Path(r.plot).name})"]
    return "\n".join(lines) + "\n"


def write_report(results: list[ClaimResult], run_dir: Path, quick: bool) -> None:
    """claims.json and claims.md, each replaced atomically."""

    write_json_atomic(run_dir / "claims.json", {"quick": quick, "claims": [r.to_json() for r in results]})
    text = markdown(results, quick)
    write_atomic(run_dir / "claims.md", text)


def text(results: list[ClaimResult], run_dir: Path) -> str:
    """The terminal view: each claim, what was measured, its threshold and its verdict."""
    lines = []
    for r in results:
        lines.append(f"{r.number:>2}. {r.statement}\n    measured: {r.measured or r.error}\n"
                     f"    threshold: {r.threshold}\n    verdict: {r.verdict.upper()}")
        lines += [f"    {p['key']}. {p['statement']}: {p['verdict'].upper()} ({p['measured']}; {p['threshold']})"
                  for p in r.parts]
    lines.append(f"\nreport: {run_dir / 'claims.md'}")
    return "\n".join(lines)
