"""A line of the TF2 code convert writes (its code and the comment that says where it came from), and a constant
written as the literal that reads back the same."""

from __future__ import annotations

import dataclasses
import re

import numpy as np

from tfcompare.core.generated_code import literal

__all__ = ["Line", "number", "return_lines"]


@dataclasses.dataclass
class Line:
    code: str
    comment: str = ""

    def text(self, indent: str) -> str:
        return f"{indent}{self.code}" + (f"  # {self.comment}" if self.comment else "")


def return_lines(body: list[Line], expr: str, indent: str, own=()) -> list[str]:
    """`body`'s lines and the return of `expr`. A name the rewrite made up for the returned value alone (`t1 = x @ w
    + b` then `return t1`: no name of the script's, none of `own`) is not written: its expression is returned."""
    last = body[-1] if body else None
    if last is not None and expr not in own and re.fullmatch(r"[A-Za-z_]+\d+", expr) and \
            last.code.startswith(f"{expr} = "):
        body = [*body[:-1], Line(f"return {last.code.split(' = ', 1)[1]}", last.comment)]
        return [line.text(indent) for line in body]
    return [line.text(indent) for line in body] + [f"{indent}return {expr}"]


def number(value) -> str:
    """A float32/int constant as the shortest literal that reads back the same; NaN and infinities as
    `float("nan")` / `float("inf")` / `-float("inf")` (a bare `inf` is a NameError in the written script)."""
    value = np.asarray(value)
    if value.dtype.kind == "b":
        return repr(bool(value))
    if value.dtype.kind in "iu":
        return repr(int(value))
    if not np.isfinite(value):
        return literal(float(value))
    return str(np.float32(value)) if value.dtype == np.float32 else repr(float(value))
