"""The written model code within MAX_LINE columns: a statement too long for a line is broken inside its brackets.

Only where tokenize says the brackets are (never inside a string), and only the code tfcompare generated. A long
`input_signature` decorator is written one spec per line, a long `def` with its parameters on the next line(s). A
trailing comment that makes the line too long goes on a line of its own above it. Any other long line is split at
its outermost call (or list) that closes at the line's end (an attribute or a constant index after it,
`f(...).y`, `f(...)[1]`, stays after it): the arguments on the next line if they fit, else one per line, the
closing bracket on a line of its own; an argument still too long is broken the same way. Where that leaves the
first line too long (`t = (a - b) * (`), the value's first brackets are broken instead, else an assignment's value
is put in brackets. A line with no bracket to break at is left as it is.
"""

from __future__ import annotations

import io
import re
import tokenize

__all__ = ["MAX_LINE", "fill", "wrap"]

MAX_LINE = 100
_SIGNATURE = re.compile(r"^(?P<indent>\s*)@tf\.function\((?P<head>[^\[]*)input_signature=\[(?P<specs>.*)\]\)$")
_OPEN, _CLOSE = "([{", ")]}"
_ASSIGNED = re.compile(r"^(?P<indent>\s*)(?P<targets>[\w.]+(?:, [\w.]+)*) = (?P<value>\S.*)$")
_DEF = re.compile(r"^(?P<indent>\s*)def (?P<name>\w+)\((?P<params>[\w, =.]*)\)(?P<tail>(?: -> [\w.\[\], ]+)?:)$")


def _signature(line: str) -> list[str] | None:
    m = _SIGNATURE.match(line)
    if not m:
        return None
    specs = re.split(r"(?<=\)), (?=tf\.TensorSpec\()", m["specs"])
    inner = m["indent"] + " " * 4
    return [f"{m['indent']}@tf.function({m['head']}input_signature=[", *[f"{inner}{s}," for s in specs],
            f"{m['indent']}])"]


def _definition(line: str) -> list[str] | None:
    """`def name(a, b):` too long: its parameters on the next line, indented twice (PEP 8's hanging indent for a
    definition), or one per line where they do not fit on one."""
    m = _DEF.match(line)
    if not m:
        return None
    inner = m["indent"] + " " * 8
    params = [p.strip() for p in m["params"].split(",")]
    if len(inner) + len(m["params"]) + 2 + len(m["tail"]) <= MAX_LINE:
        return [f"{m['indent']}def {m['name']}(", f"{inner}{m['params']}){m['tail']}"]
    return [f"{m['indent']}def {m['name']}(", *[f"{inner}{p}," for p in params[:-1]],
            f"{inner}{params[-1]}){m['tail']}"]


def _first_brackets(line: str) -> list[str] | None:
    """The line broken inside its first top-level brackets of its value (after an assignment's `=`; a call's or a
    group's, not a subscript's), what follows them on the closing line (`t = (`, `    a - b`, `) * (1.0 - 0.9)`),
    where the first and the last fit (the middle breaks again)."""
    tokens = [t for t in _tokens(line) or [] if t.type not in (tokenize.INDENT, tokenize.COMMENT)]
    depth, start = 0, 0
    for i, t in enumerate(tokens):  # the value starts after an `=` at depth 0 (a keyword argument's is inside)
        depth += (t.string in _OPEN) - (t.string in _CLOSE) if t.type == tokenize.OP else 0
        start = i + 1 if t.type == tokenize.OP and t.string == "=" and depth == 0 else start
    depth, opened = 0, None
    for i, t in enumerate(tokens[start:], start):
        if t.type != tokenize.OP:
            continue
        if t.string in _OPEN:
            subscript = t.string == "[" and i and (tokens[i - 1].type == tokenize.NAME or tokens[i - 1].string in
                                                   ")]")
            if depth == 0 and opened is None and not subscript:
                opened = i
            depth += 1
        elif t.string in _CLOSE:
            depth -= 1
            if depth == 0 and opened is not None:
                indent = re.match(r"\s*", line)[0]
                head, tail = line[:tokens[opened].end[1]], indent + line[t.start[1]:]
                inner = indent + "    " + line[tokens[opened].end[1]:t.start[1]].strip()
                if i == opened + 1 or max(len(head), len(tail)) > MAX_LINE or \
                        tail.strip() == line[t.start[1]:].strip() == t.string:
                    return None  # empty, still too long, or what the last bracket's split already is
                return [head, inner, tail]
    return None


def _right_hand(line: str) -> list[str] | None:
    """`name = value` as `name = (`, the value on the next line, `)`: where breaking the value's own last bracket
    leaves its first line too long (`t = (self.long_average - tf.squeeze(mean, axis=[0])) * (1.0 - 0.9)`)."""
    m = _ASSIGNED.match(line)
    if not m or not _tokens(line) or _tokens(line)[-1].type == tokenize.COMMENT:
        return None
    return [f"{m['indent']}{m['targets']} = (", f"{m['indent']}    {m['value']}", f"{m['indent']})"]


def _tokens(line: str):
    try:
        return [t for t in tokenize.generate_tokens(io.StringIO(line + "\n").readline)
                if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT,
                                  tokenize.DEDENT)]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None


def _bracket(line: str):
    """The outermost bracket that closes at the end of `line`'s code: (tokens, index of its opening, commas
    directly inside it, its comment, where the code ends), or None."""
    tokens = _tokens(line)
    if not tokens:
        return None
    comment = tokens[-1].string if tokens[-1].type == tokenize.COMMENT else ""
    code = tokens[:-1] if comment else tokens
    end = code[-1].end[1] if code else 0
    if len(code) > 1 and code[-1].string == ",":
        code = code[:-1]  # an argument line of an outer break: its comma stays after the bracket
    while True:  # `f(...).y`, `f(...)[1]`, `f(...).numpy()`: what follows the closing bracket stays after it
        if len(code) > 2 and code[-1].type == tokenize.NAME and code[-2].string == ".":
            code = code[:-2]
        elif len(code) > 4 and [t.string for t in code[-2:]] == ["(", ")"] and code[-3].type == tokenize.NAME and \
                code[-4].string == ".":
            code = code[:-4]
        elif len(code) > 3 and code[-1].string == "]" and code[-2].type == tokenize.NUMBER and code[-3].string == "[":
            code = code[:-3]
        else:
            break
    if not code or code[-1].string not in _CLOSE:
        return None
    depth, opened, commas = 0, None, []
    for i, tok in enumerate(code):  # the bracket that the last token closes, and the commas directly inside it
        if tok.type == tokenize.OP and tok.string in _OPEN:
            if depth == 0 and opened is None:
                opened = i
            depth += 1
        elif tok.type == tokenize.OP and tok.string in _CLOSE:
            depth -= 1
            if depth == 0 and i != len(code) - 1:
                opened, commas = None, []  # it closed before the end: not the one to break
        elif tok.type == tokenize.OP and tok.string == "," and depth == 1 and opened is not None:
            commas.append(i)
    if opened is None or opened + 1 == len(code) - 1:
        return None
    return code, opened, commas, comment, end


def _called(code: list, opened: int) -> tuple[int, list] | None:
    """Where the bracket closing just before `opened` opens, and the commas directly inside it: the first call of
    `f(a)(b)` (an initializer's `VarianceScaling(...)([784, 10])`), broken instead where its head is too long."""
    if opened == 0 or code[opened - 1].string not in _CLOSE:
        return None
    depth, commas = 0, []
    for i in range(opened - 1, -1, -1):
        tok = code[i]
        if tok.type == tokenize.OP and tok.string in _CLOSE:
            depth += 1
        elif tok.type == tokenize.OP and tok.string in _OPEN:
            depth -= 1
            if depth == 0:  # a call's brackets (after a name), not a parenthesised expression's
                called = i > 0 and code[i].string == "(" and code[i - 1].type == tokenize.NAME
                return (i, sorted(commas)) if called and i + 1 < opened - 1 else None
        elif tok.type == tokenize.OP and tok.string == "," and depth == 1:
            commas.append(i)
    return None


def _split(line: str) -> list[str] | None:
    found = _bracket(line)
    if found is None:
        return None
    code, opened, commas, comment, end = found
    col = lambda t: t.start[1]  # noqa: E731 (one physical line: columns are offsets)
    indent = re.match(r"\s*", line)[0]
    earlier = _called(code, opened) if col(code[opened]) + 1 > MAX_LINE and not comment else None
    if earlier is not None:  # break the first call's brackets; the second call's stay after them
        opened, commas = earlier
        code = code[:found[1]]  # up to the first call's closing bracket
        tail = indent + line[col(code[-1]):end]
        head = line[:col(code[opened]) + 1]
        inner = line[col(code[opened + 1]):col(code[-1])].rstrip().rstrip(",")
        if len(indent) + 4 + len(inner) <= MAX_LINE:
            return [head, f"{indent}    {inner}", tail]
        bounds = [opened] + commas + [len(code) - 1]
        args = [line[col(code[a + 1]):col(code[b])].strip().rstrip(",") for a, b in zip(bounds, bounds[1:])]
        return [head, *_items(args, indent, code), tail]
    head = line[:col(code[opened]) + 1] + (f"  {comment}" if comment else "")
    inner = line[col(code[opened + 1]):col(code[-1])].rstrip().rstrip(",")
    if commas == [len(code) - 2]:  # `(x,)`: the comma makes the tuple
        inner += ","
    tail = indent + line[col(code[-1]):end]
    if len(indent) + 4 + len(inner) <= MAX_LINE:
        return [head, f"{indent}    {inner}", tail]
    bounds = [opened] + [c for c in commas if c < len(code) - 2] + [len(code) - 1]
    args = [line[col(code[a + 1]):col(code[b])].strip().rstrip(",") for a, b in zip(bounds, bounds[1:])]
    return [head, *_items(args, indent, code), tail]


def _items(args: list[str], indent: str, code: list) -> list[str]:
    """One line per item, each with its comma; a lone item (a comprehension, `[v.numpy() for v in f(...)]`,
    where a comma is a syntax error) only if it had one (a 1-tuple)."""
    args = [a for a in args if a]
    if len(args) == 1 and not (len(code) > 1 and code[-2].string == ","):
        return [f"{indent}    {args[0]}"]
    return [f"{indent}    {a}," for a in args]


def wrap(line: str) -> list[str]:
    """`line`, or the lines it is broken into when it is longer than MAX_LINE."""
    if len(line) <= MAX_LINE:
        return [line]
    tokens = _tokens(line)
    if tokens and tokens[-1].type == tokenize.COMMENT and len(tokens) > 1:
        code, indent = line[:tokens[-1].start[1]].rstrip(), re.match(r"\s*", line)[0]
        return [indent + tokens[-1].string, *wrap(code)]  # the comment on a line of its own, above
    pieces = _signature(line) or _definition(line) or _split(line)
    if not pieces or len(pieces[0]) > MAX_LINE:  # `t = (a - b) * (` still too long: its first brackets, or
        pieces = _first_brackets(line) or _right_hand(line) or pieces  # the value in brackets
    if not pieces:
        return [line]
    return [p for piece in pieces for p in wrap(piece)]  # each piece is shorter: an argument too long breaks again


def fill(line: str) -> list[str]:
    """`line` within MAX_LINE columns as a person breaks a call of the script's own code: the arguments filled
    onto lines aligned after the opening bracket (`print('a', x,\n      'b', y)`); `wrap`'s one argument per line
    where that bracket stands too far right or an argument does not fit."""
    if len(line) <= MAX_LINE:
        return [line]
    found = _bracket(line)
    if found is None or found[3]:  # a trailing comment goes above the line: `wrap` does that
        return wrap(line)
    code, opened, commas, _, end = found
    col = code[opened].start[1] + 1
    bounds = [opened] + [c for c in commas if c < len(code) - 2] + [len(code) - 1]
    args = [line[code[a + 1].start[1]:code[b].start[1]].strip().rstrip(",") for a, b in zip(bounds, bounds[1:])]
    args = [a for a in args if a]
    closing = line[code[-1].start[1]:end]
    if col > MAX_LINE // 2 or not args:
        return wrap(line)
    out, current = [], line[:col] + args[0]
    for arg in args[1:]:
        if len(current) + 2 + len(arg) + (len(closing) if arg is args[-1] else 1) <= MAX_LINE:
            current += ", " + arg
        else:
            out.append(current + ",")
            current = " " * col + arg
    out.append(current + closing)
    return out if all(len(x) <= MAX_LINE for x in out) else wrap(line)
