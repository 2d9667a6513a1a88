"""Python source that tfcompare writes (a converted script, a cases file): whatever comes from outside goes in
as data, never as code.

A file name may hold quotes, triple quotes, backslashes, newlines, `#` or `{}`: put unescaped into a docstring, a
name with three double quotes, then `+__import__("os").system(...)+` and three more, is code that runs every time
the file is imported. `in_docstring` escapes text for the inside of a triple-quoted literal, so it reads back as
itself and stays on its line. A number
is NaN or infinite as often as not in a diverging model, and `repr(float("inf"))` is `inf`, a NameError:
`literal` writes `float("inf")`, in a list or a dict too.
"""

from __future__ import annotations

import math

__all__ = ["in_docstring", "literal"]


def in_docstring(text: str) -> str:
    """`text` as the inside of a triple-double-quoted string literal that reads back as `text`: backslashes and
    double quotes escaped, and every character that is not printable (a newline, a form feed, a lone surrogate of
    an undecodable file name) as its escape, so it cannot end the literal or start a line."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(repr(ch)[1:-1])  # \n, \r, \x0c, \u2028, \udcff
    return "".join(out)


def _float(value: float) -> str:
    if math.isnan(value):
        return 'float("nan")'
    if math.isinf(value):
        return 'float("inf")' if value > 0 else '-float("inf")'
    return repr(value)


def literal(value) -> str:
    """A Python expression that evaluates to `value` (None, bool, int, float, str, bytes, and lists, tuples and
    dicts of them; a numpy scalar or array as its list), non-finite floats included."""
    import numpy as np

    if isinstance(value, np.ndarray):
        value = value.tolist()
    elif isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, str, bytes)):
        return repr(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(literal(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no Python literal for a {type(value).__name__}")
