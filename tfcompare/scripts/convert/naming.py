"""How the TF2 script's code names and lays out what it writes: a Python identifier for a TF1 name (the
script's own where it is one), never one already taken; the indentation of a block.
"""

from __future__ import annotations

import keyword
import re

__all__ = ["INDENT", "identifier", "fed_key"]

INDENT = "    "


def fed_key(t) -> str:
    """What names a fed tensor among the step's arguments: its op (a placeholder, `placeholder(...) / 255.`), or the
    tensor itself where its op has several outputs (a tf.data iterator's `X, Y = iterator.get_next()`)."""
    return t.name if len(t.op.outputs) > 1 else t.op.name


def identifier(text: str, taken: set) -> str:
    name = text if text.isidentifier() else re.sub(r"\W", "_", text).strip("_") or "v"  # the script's `y_` stays
    if name[0].isdigit() or keyword.iskeyword(name):
        name = f"v_{name}"
    base, n = name, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name
