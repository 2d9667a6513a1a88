"""The small formatting vocabulary every text report shares: seconds, bytes, fixed-width grids.

Imports no TensorFlow, so any result type can render itself without pulling in an engine.
"""

from __future__ import annotations

__all__ = ["format_seconds", "format_bytes", "grid", "counts"]


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


def grid(head, body) -> list[str]:
    """Fixed-width columns: the header, a rule, then one line per row."""
    widths = [max(len(row[i]) for row in [head] + list(body)) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in [head] + list(body)]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def counts(mapping) -> str:
    """`{"While": 2}` -> `While x2`; `none` when empty."""
    return ", ".join(f"{k} x{v}" for k, v in mapping.items()) or "none"
