"""Running the claims and writing what they found: claims.json, claims.md, plots, TensorBoard; the terminal text."""

from __future__ import annotations

import json
import traceback
from pathlib import Path
from typing import Callable

from tfcompare.claims.catalogue import CLAIMS
from tfcompare.claims.claim import ClaimResult, Context
from tfcompare.claims.machine import machine_properties
from tfcompare.claims.verdicts import (ALL_OF_RULE, ERROR, FAILS, HOLDS, INCONCLUSIVE, QUICK_NOISE_SCALE, Check,
                                       widened_noise, widening_rule)
from tfcompare.core.files import write_atomic
from tfcompare.core.results import write_json_atomic
from tfcompare.core.trace_log import QuietRetraceWarning
from tfcompare.report.tensorboard import write_claims

__all__ = ["run_claims", "markdown", "write_report", "text", "verdict_line", "written"]


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
            _each(numbers, ctx, results, progress, machine_properties())
        finally:
            write_claims(run_dir / "tensorboard", results, markdown(results, quick))
    return results


def _each(numbers, ctx, results, progress, machine):
    run_dir, quick = ctx.run_dir, ctx.quick
    for i, n in enumerate(numbers):
        claim = CLAIMS[n]
        progress(f"[{i + 1}/{len(numbers)}] claim {n}: {claim.statement}")
        result = ClaimResult(n, claim.statement, machine={k: machine[k] for k in claim.depends_on})
        try:
            measured = claim.measure(ctx)
            result.figures = json.loads(json.dumps(measured, default=str))
            with widened_noise(QUICK_NOISE_SCALE if quick else 1.0):
                judged = claim.judge(measured)
            result.record(judged)
            if claim.plot is not None:
                path = run_dir / f"claim{n}.png"
                claim.plot(measured, path)
                result.plot = str(path)
        except Exception as exc:
            result.verdict, result.error = ERROR, f"{type(exc).__name__}: {exc}"
            result.reason = result.error
            result.figures.setdefault("traceback", traceback.format_exc())
        results.append(result)
        write_report(results, run_dir, quick)


def _word(verdict: str, direction_only: bool) -> str:
    """`holds`, or `direction holds` for a claim that checks only the sign of a quoted figure."""
    return f"direction {verdict}" if direction_only and verdict in (HOLDS, FAILS) else verdict


def _checks(checks: list[dict]) -> str:
    return "; ".join(Check(**c).text() for c in checks)


def verdict_line(r: ClaimResult) -> str:
    """`HOLDS: tf1-graph over eager 27.6x (judged interval 9.1-84x) >= 2.0x`, and the machine properties
    the verdict rests on."""
    line = _word(r.verdict, r.direction_only).upper()
    if r.parts:
        line += ": " + ", ".join(f"{p['key']} {_word(p['verdict'], r.direction_only)}" for p in r.parts)
    elif r.checks:
        line += ": " + _checks(r.checks)
    elif r.verdict in (HOLDS, FAILS):
        line += " (exact: nothing sampled, no interval to judge)"
    if r.machine:
        line += " \u2014 depends on this machine's " + "; ".join(f"{k}: {v}" for k, v in r.machine.items())
    return line


def _why(r: ClaimResult) -> str:
    """The one-line reason; every inconclusive has one."""
    return r.reason or ("the judged figures straddle the threshold" if r.verdict == INCONCLUSIVE else "")


def markdown(results: list[ClaimResult], quick: bool) -> str:
    lines = ["# Static vs dynamic graphs: the claims, measured on this machine", "",
             f"{'Quick run (the same sweeps, fewer samples): ' + widening_rule() if quick else 'Full run'}; every "
             "verdict below is computed from the figures beside it.", "",
             "| # | claim | measured | threshold | judged (interval vs bar) | verdict |", "|---|---|---|---|---|---|"]
    for r in results:
        measured = r.measured or (r.error or "")
        why = f": {_why(r)}" if _why(r) and r.verdict != ERROR else ""
        machine = "; ".join(f"{k}: {v}" for k, v in r.machine.items())
        judged = (f"by part, below; the claim {ALL_OF_RULE}" if r.parts else _checks(r.checks)) + (
            f" (depends on {machine})" if machine else "")
        lines.append(f"| {r.number} | {r.statement} | {measured.replace('|', '/')} | {r.threshold} | {judged} | "
                     f"**{_word(r.verdict, r.direction_only)}**{why} |")
        lines += [f"| {p['key']} | {p['statement']} | {p['measured']} | {p['threshold']} | "
                  f"{Check(**p['check']).text() if p.get('check') else ''} | **{p['verdict']}** |" for p in r.parts]
    for r in results:
        if r.plot:
            lines += ["", f"![claim {r.number}]({Path(r.plot).name})"]
    return "\n".join(lines) + "\n"


def write_report(results: list[ClaimResult], run_dir: Path, quick: bool) -> None:
    """claims.json and claims.md, each replaced atomically."""

    write_json_atomic(run_dir / "claims.json", {"quick": quick, "claims": [r.to_json() for r in results]})
    text = markdown(results, quick)
    write_atomic(run_dir / "claims.md", text)


def _part(p: dict, direction_only: bool) -> str:
    check = Check(**p["check"]) if p.get("check") else None
    line = f"    {p['key']}. {p['statement']}: {_word(p['verdict'], direction_only).upper()}"
    line += f": {check.text()} ({p['measured']})" if check else f" ({p['measured']}; {p['threshold']})"
    return line


def written(results: list[ClaimResult], run_dir: Path) -> list[tuple[str, str]]:
    """Every file and folder a claims run writes, as (absolute path, what it holds), a folder's path ending in
    `/`, so it reads the same from any working folder; runs/ only when a claim timed a harness run."""
    run_dir = Path(run_dir).absolute()
    found = [(run_dir / "claims.md", "the report"), (run_dir / "claims.json", "the figures, checks and verdicts")]
    found += [(Path(r.plot).absolute(), f"claim {r.number}'s picture") for r in results if r.plot]
    found = [(str(path), what) for path, what in found]
    if (run_dir / "runs").is_dir():
        found.append((f"{run_dir / 'runs'}/", "the harness runs the claims timed, each a `tfcompare run` folder"))
    found.append((f"{run_dir / 'tensorboard'}/", "the report and pictures for TensorBoard"))
    return found


def text(results: list[ClaimResult], run_dir: Path, quick: bool = False) -> str:
    """The terminal view: in a quick run, how its judged intervals are widened; then each claim, what was
    measured, its threshold, its verdict with the interval judged and the bar, and why when it does not hold;
    then every file written."""
    lines = [f"Quick run: {widening_rule()}.\n"] if quick else []
    for r in results:
        lines.append(f"{r.number:>2}. {r.statement}\n    measured: {r.measured or r.error}\n"
                     f"    threshold: {r.threshold}\n    verdict: {verdict_line(r)}")
        if r.parts:
            lines.append(f"    parts: the claim {ALL_OF_RULE}")
        if _why(r) and r.verdict != ERROR:
            lines.append(f"    why: {_why(r)}")
        lines += [_part(p, r.direction_only) for p in r.parts]
    files = written(results, run_dir)
    width = max(len(path) for path, _ in files)
    lines += ["\nwrote:"] + [f"  {path:{width}s}  {what}" for path, what in files]
    return "\n".join(lines)
