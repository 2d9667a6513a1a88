"""Padding, strides and window sizes, compared: the convolutions and poolings of both forward passes, in order.

A cause, never a verdict: TF1's SAME padding and Keras's `ZeroPadding2D` before a VALID convolution compute the
same, so a difference here only names why a forward pass that already differs (or whose weights cannot be paired
because an activation changed shape) does so.
"""

from __future__ import annotations

from tfcompare.scripts.child.record import SideRecord

__all__ = ["window_causes"]


def _size(values) -> str:
    return "x".join("?" if v is None else str(v) for v in values) if values else "?"


def _keras(kind: str, what: str, value) -> str:
    if what == "padding":
        return f"padding='{str(value).lower()}'"
    if what == "strides":
        return f"strides={tuple(value) if len(set(value)) > 1 else value[0]}"
    return f"pool_size={tuple(value) if len(set(value)) > 1 else value[0]}" if kind == "pool" else \
        f"kernel_size={tuple(value)}"


def _where(i: int, n: int, a: dict, b: dict) -> str:
    name = "convolution" if a["kind"] == "conv" else "pooling"
    return (f"{name} {i} of {n} (TF1 {a['type']} at {a['site']}, TF2 {b['type']}"
            f"{' in ' + b['scope'] if b['scope'] else ''}{' at ' + b['site'] if b['site'] != '?' else ''})")


def window_causes(tf1: SideRecord, tf2: SideRecord) -> list[str]:
    """The first convolution or pooling whose padding, strides or window differs between the sides (or, where
    they all match, whose output is of another shape), as a sentence naming the Keras setting that is TF1's.
    Nothing when the sides hold other numbers or kinds of these ops (the op counts say so)."""
    one, two = tf1.windows or [], tf2.windows or []
    if not one or len(one) != len(two) or [w["kind"] for w in one] != [w["kind"] for w in two]:
        return []
    counts = {kind: sum(w["kind"] == kind for w in one) for kind in ("conv", "pool")}
    seen = {"conv": 0, "pool": 0}
    for a, b in zip(one, two):
        seen[a["kind"]] += 1
        i, n = seen[a["kind"]], counts[a["kind"]]
        for what in ("padding", "strides", "window"):
            x, y = a.get(what), b.get(what)
            if x is None or y is None or x == y:
                continue
            shown = (lambda v: v) if what == "padding" else _size
            out = f" (its output {_size(a['out'])} in TF1, {_size(b['out'])} in TF2)" if a["out"] != b["out"] else ""
            return [f"{_where(i, n, a, b)}: {what} {shown(x)} in TF1, {shown(y)} in TF2{out}; Keras "
                    f"{_keras(a['kind'], what, x)} is what TF1 does"]
        if a["out"] and b["out"] and None not in a["out"] + b["out"] and a["out"] != b["out"]:
            return [f"{_where(i, n, a, b)}: its output is {_size(a['out'])} in TF1, {_size(b['out'])} in TF2 "
                    "with the same padding, strides and window: its input is of another shape"]
    return []
