"""The findings of `tfcompare debug` as data: one line each on the terminal, the document with `--json`."""

from __future__ import annotations

import dataclasses
import json

from tfcompare.core.results import finite_safe

__all__ = ["NonFinite", "PassSearch", "Divergence", "DebugReport"]


@dataclasses.dataclass
class NonFinite:
    """Where a mode's numbers first stop being finite, or that they stay finite: over the training steps, and on
    the comparison batch (the forward output and gradients that `run` and the bisection compare)."""

    mode: str
    finite: bool
    steps: int
    step: int | None = None  # the first training step (1-based) that went non-finite; None: the steps stayed finite
    op_type: str | None = None
    op_name: str | None = None
    kind: str | None = None  # NaN, Inf, -Inf
    source: str | None = None  # the user's file:line (function) that created the op
    how: str = ""  # how it was located (the check used), and anything that qualifies it
    error: str | None = None
    comparison: dict = dataclasses.field(default_factory=dict)  # "forward" / "gradients['w']" -> "14 of 32"

    def _comparison(self) -> str:
        return ", ".join(f"{k}: {v}" for k, v in self.comparison.items())

    def line(self) -> str:
        if self.error:
            return f"numerics {self.mode}: error: {self.error}"
        if self.finite:
            return (f"numerics {self.mode}: finite: the forward output and gradients on the comparison batch, and "
                    f"{self.steps} step{'s' * (self.steps != 1)}")
        if self.step is None:
            where = f"on the comparison batch ({self._comparison()} values non-finite; every step stayed finite)"
        else:
            where = f"at step {self.step} of {self.steps}"
            if self.comparison:
                where += f" (and on the comparison batch: {self._comparison()} values non-finite)"
        if self.op_type is None:
            return f"numerics {self.mode}: non-finite {where}; {self.how}"
        at = f" at {self.source}" if self.source else ""
        return (f"numerics {self.mode}: first non-finite value ({self.kind}) {where}: "
                f"op {self.op_name!r} ({self.op_type}){at}; {self.how}")


@dataclasses.dataclass
class PassSearch:
    """A graph mode against eager with the whole Grappler off and each pass off in turn."""

    mode: str
    against: str
    differs: bool
    error_before: str
    all_off: dict | None = None  # {"agrees": bool, "error": str}
    passes: list[dict] = dataclasses.field(default_factory=list)  # {"pass", "agrees", "error"}
    seconds: float = 0.0
    error: str | None = None
    both_non_finite: dict = dataclasses.field(default_factory=dict)  # what is non-finite in this mode and in eager

    @property
    def culprits(self) -> list[str]:
        return [p["pass"] for p in self.passes if p["agrees"]]

    def line(self) -> str:
        if self.error:
            return f"grappler {self.mode}: error: {self.error}"
        if self.both_non_finite and not self.differs:
            what = ", ".join(f"{k}: {v}" for k, v in self.both_non_finite.items())
            return (f"grappler {self.mode}: not compared: it and {self.against} are both non-finite ({what} values "
                    f"in {self.mode}); the same NaN is not agreement, so there is nothing to bisect until the first "
                    "non-finite op (numerics) is fixed")
        if not self.differs:
            return f"grappler {self.mode}: agrees with {self.against} (no bisection needed)"
        head = f"grappler {self.mode} vs {self.against}: differs ({self.error_before})"
        if self.all_off and not self.all_off["agrees"]:
            return f"{head}; still differs with Grappler off ({self.all_off['error']}): not a Grappler rewrite"
        if not self.culprits:
            return f"{head}; agrees with Grappler off, but with no single pass off: passes act together"
        return (f"{head}; switched off alone, {', '.join(self.culprits)} brings it back to {self.against} "
                f"({self.passes[[p['pass'] for p in self.passes].index(self.culprits[0])]['error']}); "
                f"bisection took {self.seconds:.1f} s over {len(self.passes) + 1} reruns")


@dataclasses.dataclass
class Divergence:
    """The first training step at which a mode leaves tolerance against tf1-graph."""

    mode: str
    against: str
    steps: int
    first_step: int | None
    left_first: list[str] = dataclasses.field(default_factory=list)  # the loss and/or variables, worst first
    losses: list[float] = dataclasses.field(default_factory=list)
    reference_losses: list[float] = dataclasses.field(default_factory=list)
    error: str | None = None
    non_finite_step: int | None = None  # both this mode and the reference are non-finite from this step
    non_finite: list[str] = dataclasses.field(default_factory=list)  # the loss and/or variables non-finite in both

    def line(self) -> str:
        if self.error:
            return f"divergence {self.mode}: error: {self.error}"
        if self.non_finite_step is not None:
            return (f"divergence {self.mode}: not comparable from step {self.non_finite_step} of {self.steps}: "
                    f"{self.mode} and {self.against} are both non-finite there (in {', '.join(self.non_finite)}); "
                    "the same NaN is not agreement (see the numerics lines)")
        if self.first_step is None:
            return f"divergence {self.mode}: within tolerance of {self.against} at every one of {self.steps} steps"
        return (f"divergence {self.mode}: leaves tolerance of {self.against} at step {self.first_step} of "
                f"{self.steps}, first in {', '.join(self.left_first)}")


@dataclasses.dataclass
class DebugReport:
    case: str
    modes: list[str]
    steps: int
    tolerance: str
    numerics: list[NonFinite] = dataclasses.field(default_factory=list)
    grappler: list[PassSearch] = dataclasses.field(default_factory=list)
    divergence: list[Divergence] = dataclasses.field(default_factory=list)
    dumps: dict[str, list[str]] = dataclasses.field(default_factory=dict)  # mode -> files written
    debugger_v2: str | None = None
    overhead: list[dict] = dataclasses.field(default_factory=list)  # step time with and without numeric checking
    notes: list[str] = dataclasses.field(default_factory=list)
    interrupted: bool = False  # Ctrl-C: the findings are those that finished

    def failed(self) -> bool:
        """Whether a mode (or the case) could not be run, or could not be compared because it and tf1-graph are
        both non-finite: there is no result to read, only the numerics findings."""
        return any(f.error for f in [*self.numerics, *self.grappler, *self.divergence]) or \
            any(d.non_finite_step is not None for d in self.divergence)

    def lines(self) -> list[str]:
        out = [f.line() for f in self.numerics] + [g.line() for g in self.grappler]
        out += [d.line() for d in self.divergence]
        out += [f"dump {mode}: {len(files)} files in {files[0].rsplit('/', 2)[0] if files else '-'}"
                for mode, files in self.dumps.items()]
        out += [f"overhead {o['mode']}: numeric checking makes a step {o['ratio']:.2f}x as long "
                f"({o['plain_s'] * 1e3:.3g} ms -> {o['checked_s'] * 1e3:.3g} ms, medians, interleaved)"
                + (" NOISY" if o["noisy"] else "") for o in self.overhead]
        if self.debugger_v2:
            out.append(f"debugger-v2: dump in {self.debugger_v2}: tensorboard --logdir {self.debugger_v2}, Debugger V2 tab "
                       "(the plugin reads a dump only at the logdir itself)")
        out += [f"note: {n}" for n in self.notes]
        if self.interrupted:
            out.append("interrupted (Ctrl-C): the findings above are the ones that finished")
        return out

    def to_json(self) -> dict:
        doc = dataclasses.asdict(self)
        for search, item in zip(self.grappler, doc["grappler"]):
            item["culprits"] = search.culprits
        return doc

    def json_text(self) -> str:
        # finite-safe as results.json: a NaN found is "nan", never the invalid JSON token NaN
        return json.dumps(finite_safe(self.to_json()), indent=2, allow_nan=False, default=str)
