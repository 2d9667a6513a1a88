"""What the audit found, as data: every function's traces and retraces, and the hazards; and its text."""

from __future__ import annotations

import dataclasses

from tfcompare.report.format import format_seconds

__all__ = ["Retrace", "FunctionAudit", "Hazard", "AuditReport"]


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


@dataclasses.dataclass
class FunctionAudit:
    name: str
    file: str
    line: int
    calls: int
    traces: int
    tracing_s: float
    function_objects: int = 1
    retraces: list[Retrace] = dataclasses.field(default_factory=list)
    signatures: list[str] = dataclasses.field(default_factory=list)

    @property
    def avoidable_retraces(self) -> int:
        return sum(not r.harmless for r in self.retraces)


@dataclasses.dataclass
class Hazard:
    kind: str
    file: str
    line: int
    message: str


@dataclasses.dataclass
class AuditReport:
    target: str
    status: str = "ok"  # ok / failed
    error: str | None = None
    traceback: str | None = None
    exit_code: int | None = None  # the target's own sys.exit code, if it called sys.exit
    explanations: bool = True
    note: str | None = None
    wall_s: float | None = None
    static_files: int | None = None  # --static: how many files were read (nothing ran)
    functions: list[FunctionAudit] = dataclasses.field(default_factory=list)
    hazards: list[Hazard] = dataclasses.field(default_factory=list)

    @property
    def total_traces(self) -> int:
        return sum(f.traces for f in self.functions)

    def to_json(self) -> dict:
        return {
            "target": self.target, "status": self.status, "error": self.error, "traceback": self.traceback,
            "exit_code": self.exit_code, "explanations": self.explanations, "note": self.note,
            "wall_s": self.wall_s, "static_files": self.static_files,
            "functions": [dict(dataclasses.asdict(f), retraces=[dataclasses.asdict(r) for r in f.retraces])
                          for f in self.functions],
            "hazards": [dataclasses.asdict(h) for h in self.hazards],
        }

    def text(self) -> str:
        """Grouped by function, worst first: every retrace with its argument, cause, cost and fix."""
        lines = [f"tfcompare audit: {self.target}"]
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
            lines.append("no tf.function was traced" if self.status == "ok" else "no tf.function was traced before "
                         "the target stopped")
        for f in self.functions:
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
        if self.hazards:
            lines.append("")
            lines.append("hazards TensorFlow does not warn about:")
            lines += [f"  {h.file}:{h.line}: {h.kind}: {h.message}" for h in self.hazards]
        return "\n".join(lines)
