"""A claim: a statement, the experiment that measures it, the judgement of the figures, and an optional plot.

Experiments share one `Context` per invocation (quick mode, the output folder, and harness runs that
several claims read).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable

from tfcompare.claims.verdicts import ERROR
from tfcompare.registry import CASES
from tfcompare.run import harness

__all__ = ["Claim", "ClaimResult", "Part", "Context", "plot_lines", "resnet_run"]


@dataclasses.dataclass(frozen=True)
class Part:
    """One statement of a claim that bundles several, with a verdict of its own."""

    key: str
    statement: str
    verdict: str
    measured: str
    threshold: str


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

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Claim:
    number: int
    statement: str
    measure: Callable[["Context"], dict]
    judge: Callable[[dict], tuple]  # -> (verdict, what was measured, threshold[, parts])
    plot: Callable[[dict, Path], None] | None = None


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
