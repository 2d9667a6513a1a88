"""Which line of the TF1 script an op of its graph came from: what every provenance comment of the rewrite names
(`# TF1 lines 42-44`), and the TODOs and notes that point into the script.
"""

from __future__ import annotations

__all__ = ["source_line", "provenance_line"]


def source_line(op, script: str, lines: list[str]) -> tuple[int, str] | None:
    """(line number, source text) of the script line that created `op`: the innermost of the script's frames
    (what the rewrite reads the script's own expressions from)."""
    frames = [f for f in (op.traceback or []) if f.filename == script]
    return _line(frames[-1].lineno, lines) if frames else None


def provenance_line(op, script: str, lines: list[str]) -> tuple[int, str] | None:
    """The line a provenance comment names for `op`: `source_line`'s, or, where that is in a helper the script
    calls from several lines (`dense(x, 20, 64, 'enc_hidden')`, then `dense(z, ...)` for the decoder), the line
    that called it: the helper's own line would name every call."""
    frames = [f for f in (op.traceback or []) if f.filename == script]
    if not frames:
        return None
    callers = _callers(op.graph, script)
    i = len(frames) - 1
    while i > 0 and len(callers.get(frames[i].name, ())) > 1:
        i -= 1
    return _line(frames[i].lineno, lines)


def _line(n: int, lines: list[str]) -> tuple[int, str]:
    return n, lines[n - 1].strip() if 0 < n <= len(lines) else ""


_CALLERS: dict = {}


def _callers(graph, script: str) -> dict[str, set[int]]:
    """The script's function names -> the lines of the script that call them, over the graph's ops (read once per
    graph and script while the graph grows no op)."""
    key = (id(graph), script, graph.version)
    if key not in _CALLERS:
        _CALLERS.clear()
        out: dict[str, set[int]] = {}
        for op in graph.get_operations():
            frames = [f for f in (op.traceback or []) if f.filename == script]
            for caller, callee in zip(frames, frames[1:]):
                out.setdefault(callee.name, set()).add(caller.lineno)
        _CALLERS[key] = out
    return _CALLERS[key]
