"""A claim: a statement, the experiment that measures it, the judgement of the figures, and an optional plot.

Experiments share one `Context` per invocation (quick mode, the output folder, and harness runs that
several claims read). A judgement is a `Judged`: the verdict with the checks that decided it, so the
report can show what was compared, not only the word.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable

from tfcompare.claims.verdicts import ERROR, HOLDS, INCONCLUSIVE, Check
from tfcompare.registry import CASES
from tfcompare.run import harness

__all__ = ["Claim", "ClaimResult", "Judged", "Part", "Context", "plot_lines", "resnet_run"]


@dataclasses.dataclass(frozen=True)
class Part:
    """One statement of a claim that bundles several, with a verdict of its own."""

    key: str
    statement: str
    verdict: str
    measured: str
    threshold: str
    check: Check | None = None  # the judgement behind `verdict`, None for exact counts

    def reason(self) -> str:
        return self.check.reason() if self.check is not None else ""


@dataclasses.dataclass(frozen=True)
class Judged:
    """What a claim's `judge` returns: the verdict, the figures in words, the threshold, and the checks
    (or parts, each with its own) that decided it."""

    verdict: str
    measured: str
    threshold: str
    checks: tuple[Check, ...] = ()
    parts: tuple[Part, ...] = ()
    reason: str = ""  # why, where no check can say it (nothing to judge: an inconclusive without figures)
    direction_only: bool = False  # the claim checks the sign of a quoted figure, not its size

    def why(self) -> str:
        """One line: the judge's own reason, then those of the inconclusive checks, or (for a claim in parts)
        of every part that does not hold: each of them moves the verdict off `holds`."""
        found = [self.reason] if self.reason else []
        if self.parts:
            found += [f"{p.key} {p.verdict}: {p.reason() or 'nothing to judge'}" for p in self.parts
                      if p.verdict != HOLDS]
        else:
            found += [c.reason() for c in self.checks if c.verdict == INCONCLUSIVE]
        return "; ".join(found)


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
    parts: list = dataclasses.field(default_factory=list)  # Part as dicts, for claims that bundle statements
    checks: list = dataclasses.field(default_factory=list)  # Check as dicts: the judged intervals and bars
    reason: str = ""  # why the verdict is what it is; always set for an inconclusive one
    direction_only: bool = False  # the verdict is on the direction of a quoted figure, not its size
    machine: dict = dataclasses.field(default_factory=dict)  # the machine properties the verdict depends on

    def record(self, judged: Judged) -> "ClaimResult":
        """Take the verdict, the words and the checks of a judgement (parts and checks as JSON-ready dicts)."""
        self.verdict, self.measured, self.threshold = judged.verdict, judged.measured, judged.threshold
        self.parts = [dataclasses.asdict(p) for p in judged.parts]
        self.checks = [c.to_json() for c in judged.checks]
        self.reason, self.direction_only = judged.why(), judged.direction_only
        return self

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Claim:
    number: int
    statement: str
    measure: Callable[["Context"], dict]
    judge: Callable[[dict], Judged]
    plot: Callable[[dict, Path], None] | None = None
    depends_on: tuple[str, ...] = ()  # machine properties (claims.machine.PROPERTIES) the verdict rests on


class Context:
    """Shared across claims in one invocation: quick mode, output folder, and runs reused by several claims."""

    def __init__(self, run_dir: Path, quick: bool, seed: int):
        self.run_dir, self.quick, self.seed = run_dir, quick, seed
        self.cache: dict = {}

    def harness(self, key: str, cases, modes, *, accept=("ok",), **kw):
        """A quick interleaved harness run (cached by key); returns {(case, mode): stats}.

        A row whose status is not in `accept` raises (a claim about timing may accept `mismatch`).
        """
        if key not in self.cache:
            registry = dict(CASES)
            for name, case in kw.pop("registry", {}).items():
                registry[name] = case
            settings = dict(steps=2, repeats=6 if self.quick else 11, min_block_s=0.01 if self.quick else 0.03,
                            optimized_graphs=False,
                            seed=self.seed)
            settings.update(kw)
            config = harness.RunConfig(cases=tuple(cases), modes=tuple(modes), **settings)
            result = harness.run(config, registry, self.run_dir / "runs", key)
            self.cache[key] = {(r.case, r.mode): stats(r, accept) for r in result.results}
        return self.cache[key]


def stats(row, accept=("ok",)) -> dict:
    if row.status not in accept:
        raise RuntimeError(f"{row.case}/{row.mode} {row.status}: {row.error}")
    return {"median": row.step_median_s, "iqr": row.step_iqr_s, "first_call": row.first_call_s,
            "memory": row.peak_memory_bytes, "noisy": row.noisy, "samples": list(row.step_times_s)}


def resnet_run(ctx: Context) -> dict:
    """The resnet case in the four core modes: claims 8 (memory) and 11 (the quoted figures) read one run."""
    return ctx.harness("c8-resnet", ["resnet"], ["tf1-graph", "tf2-eager", "tf2-function", "tf2-xla"])


def plot_lines(path: Path, title: str, xlabel: str, ylabel: str, series: dict, logx: bool = False) -> None:
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
