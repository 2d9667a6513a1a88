"""What the audit found, as data: every function's traces and retraces, and the hazards; and its text."""

from __future__ import annotations

import dataclasses

from tfcompare.report.format import format_seconds

__all__ = ["Retrace", "FunctionAudit", "Hazard", "AuditReport"]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


@dataclasses.dataclass
class Retrace:
    """One trace after the first of a function, and why it happened."""

    trace: int
    argument: str
    cause: str
    detail: str
    call_site: str
    suggestion: str
    tracing_s: float | None = None
    harmless: bool = False
    compared_with: int | None = None  # the earlier trace this one differs least from: `detail` is against it


@dataclasses.dataclass
class FunctionAudit:
    name: str
    file: str
    line: int
    calls: int
    traces: int
    tracing_s: float
    function_objects: int = 1
    nested: bool = False  # only traced inside another tf.function: its tracing time is counted in that one
    retraces: list[Retrace] = dataclasses.field(default_factory=list)
    signatures: list[str] = dataclasses.field(default_factory=list)
    first_call_site: str = ""  # trace #1, which every function pays once: where, and what it cost
    first_tracing_s: float | None = None

    @property
    def avoidable_retraces(self) -> int:
        """Traces (not arguments: one retrace can have several) with a cause that is not expected."""
        return len({r.trace for r in self.retraces if not r.harmless})


@dataclasses.dataclass
class Hazard:
    kind: str
    file: str
    line: int
    message: str


@dataclasses.dataclass
class AuditReport:
    target: str
    status: str = "ok"  # ok / failed / interrupted
    error: str | None = None
    traceback: str | None = None
    exit_code: int | None = None  # the target's own sys.exit code, if it called sys.exit
    explanations: bool = True
    note: str | None = None
    wall_s: float | None = None
    static_files: int | None = None  # --static: how many files were read (nothing ran)
    library_traces: dict[str, int] = dataclasses.field(default_factory=dict)  # TF/Keras-internal function -> traces
    functions: list[FunctionAudit] = dataclasses.field(default_factory=list)
    hazards: list[Hazard] = dataclasses.field(default_factory=list)

    @property
    def total_traces(self) -> int:
        return sum(f.traces for f in self.functions)

    def to_json(self) -> dict:
        return {
            "target": self.target, "status": self.status, "error": self.error, "traceback": self.traceback,
            "exit_code": self.exit_code, "explanations": self.explanations, "note": self.note,
            "wall_s": self.wall_s, "static_files": self.static_files, "library_traces": self.library_traces,
            "functions": [dict(dataclasses.asdict(f), retraces=[dataclasses.asdict(r) for r in f.retraces])
                          for f in self.functions],
            "hazards": [dataclasses.asdict(h) for h in self.hazards],
        }

    def text(self) -> str:
        """Grouped by function, worst first: every retrace with its argument, cause, cost and fix."""
        lines = [f"tfcompare audit: {self.target}"]
        if self.status == "interrupted":
            lines.append(f"{self.error}: the traces observed until then follow")
        if self.status == "failed":
            lines.append(f"TARGET FAILED: {self.error}")
            if self.traceback:
                lines.append(self.traceback.rstrip())
            lines.append("(the traces observed before the failure follow)")
        if self.note:
            lines.append(f"note: {self.note}")
        if self.static_files is not None:
            lines.append(f"static scan: read {self.static_files} Python file{'s' * (self.static_files != 1)}, "
                         f"ran nothing (so no traces to count); {len(self.hazards)} "
                         f"hazard{'s' * (len(self.hazards) != 1)} found")
        elif not self.functions:
            stopped = "" if self.status == "ok" else " before the target stopped"
            lines.append(f"no tf.function of yours was traced{stopped}"
                         + (" (only the library's, in the note above)" if self.library_traces else ""))
        for f in self.functions:
            lines.append("")
            objects = f" from {f.function_objects} tf.function objects" if f.function_objects > 1 else ""
            lines.append(f"{f.name}  ({f.file}:{f.line})")
            cost = ("tracing time counted in the tf.function that calls it" if f.nested else
                    f"{format_seconds(f.tracing_s)} tracing")
            lines.append(f"  {_count(f.calls, 'call')}, {_count(f.traces, 'trace')}{objects}, {cost}; "
                         f"{_count(f.avoidable_retraces, 'avoidable retrace')}")
            if f.first_call_site:
                cost = f", {format_seconds(f.first_tracing_s)}" if f.first_tracing_s is not None else ""
                lines.append(f"  trace #1 at {f.first_call_site}{cost}  (the first: every function traces once)")
            by_trace: dict[int, list[Retrace]] = {}
            for r in f.retraces:
                by_trace.setdefault(r.trace, []).append(r)
            for index, causes in by_trace.items():  # one trace, with every argument that changed
                first = causes[0]
                cost = f", {format_seconds(first.tracing_s)}" if first.tracing_s is not None else ""
                against = (f", against trace #{first.compared_with} (the earlier trace it differs least from)"
                           if first.compared_with else "")
                flag = "  (expected)" if all(r.harmless for r in causes) else ""
                lines.append(f"  trace #{index} at {first.call_site}{cost}{against}{flag}")
                lines += [f"    why: {r.cause}: {r.argument}: {r.detail}" for r in causes]
                lines += [f"    fix: {fix}" for fix in dict.fromkeys(r.suggestion for r in causes)]
        if self.hazards:
            lines.append("")
            lines.append("hazards TensorFlow does not warn about:")
            lines += [f"  {h.file}:{h.line}: {h.kind}: {h.message}" for h in self.hazards]
        return "\n".join(lines)
