"""Where the written model code came from, said once per block.

The translation names the TF1 line of every statement it writes (`... # TF1 line 35: layer_1 = ...`): exact,
but a reviewer reads a trailer on every line, and the lines run past 500 characters. Here a run of consecutive
statements at one indentation gets one comment above it (`# TF1 lines 35-37`), the trailers go, and a line
still too long is broken inside its brackets (`line_width`). Only comments tokenize finds are touched (never
text inside a string), and only in the code tfcompare generated: the script's own carried code is never passed
here. The script's own comments on the TF1 lines a statement came from (the comment lines just above one, a
comment at its end: `# Convolution Layer`, `# -> (14, 14, 32)`) are carried above the statement, each once.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

from tfcompare.scripts.convert.line_width import wrap

__all__ = ["model_comments", "per_block", "script_comments"]

_TRAILER = re.compile(r"# TF1 lines? (\d+)(?:-(\d+))?(?::|$)")
_CODING = re.compile(r"#.*?coding[:=]")  # PEP 263's line (1 or 2): not a comment on the code below it
_KEPT = ("TODO(tfcompare)", "not ", "TF1's ")  # a mark, a reason it is written op by op, the weights a layer holds


def _kept(comment: str) -> str:
    """What of a trailer stays on its line: every part after the TF1 excerpt that is a TODO mark (the console's
    list is the file's marks, one for one), a reason, or the TF1 weights a layer stands for."""
    parts = comment.lstrip("# ").split("; ")[1:]
    return "; ".join(p for p in parts if p.startswith(_KEPT))


def _trailers(text: str) -> dict[int, tuple[int, list[int], str]]:
    """Line index -> (column where its trailing TF1 comment starts, the TF1 line numbers it names, what of it
    stays on the line)."""
    found = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type != tokenize.COMMENT or not tok.line[:tok.start[1]].strip():
                continue  # a comment line of its own stays as it is
            m = _TRAILER.match(tok.string)
            if m:
                first, last = int(m[1]), int(m[2] or m[1])
                found[tok.start[0] - 1] = (tok.start[1], list(range(first, last + 1)), _kept(tok.string))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return {}
    return found


def _ranges(numbers: list[int]) -> str:
    numbers = sorted(set(numbers))
    parts, start = [], None
    for i, n in enumerate(numbers):
        start = n if start is None else start
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            parts.append(f"{start}" if start == n else f"{start}-{n}")
            start = None
    return ("TF1 line " if len(numbers) == 1 else "TF1 lines ") + ", ".join(parts)


def script_comments(source: str, trailing: bool = True, blocks: bool = False) -> dict[int, list[str]]:
    """TF1 line number -> the script's own comments on it: the comment lines just above it, then (`trailing`) its
    own trailing comment (tokenized: a `#` inside a string is not one). `blocks`: also the comment blocks above
    those, back to the code line before, a blank line between them as "" (tic-tac-toe's board legend, set off by
    blank lines, belonged to no statement and was lost)."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return {}
    lines = source.split("\n")
    # a comment that holds a character Python reads as a line break (\r, \x0c, U+2028, ...) is not carried: in the
    # written script, what follows it would be code
    tokens = [t for t in tokens if len(t.string.splitlines()) == 1 and "\x00" not in t.string]
    alone = {t.start[0]: t.string for t in tokens if not t.line[:t.start[1]].strip()}
    ends = {t.start[0]: t.string for t in tokens if t.line[:t.start[1]].strip()} if trailing else {}
    out: dict[int, list[str]] = {}
    for n in range(1, len(lines) + 1):
        above, k = [], n - 1
        while k in alone and not alone[k].startswith("#!") and not (k <= 2 and _CODING.match(alone[k])) or \
                blocks and k >= 1 and not lines[k - 1].strip():
            above.insert(0, alone.get(k, ""))
            k -= 1
        while above and not above[0]:
            del above[0]
        found = above + ([ends[n]] if n in ends else [])
        if found and lines[n - 1].strip() and n not in alone:
            out[n] = found
    return out


def model_comments(source: str, tree: ast.Module) -> dict[int, list[str]]:
    """`script_comments` for the model's code: not those of a line that runs the graph (`sess.run`, `.eval`), which
    the rewrite carries as a statement of the script's own, with its comments (char-rnn's "# instrument for
    tensorboard" above its training run was also written above the final state its call returns, which that run
    fetched)."""
    runs = {n.lineno for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr,
                                                                 ast.Return)) and
            any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in ("run", "eval")
                for c in ast.walk(n))}
    return {n: c for n, c in script_comments(source).items() if n not in runs}


def per_block(lines: list[str], comments: dict[int, list[str]] | None = None) -> list[str]:
    """The generated model code with one provenance comment per block of consecutive statements, and the script's
    own `comments` (script_comments) on the TF1 lines each statement came from above it, once each."""
    text = "\n".join(lines) + "\n"
    trailers = _trailers(text)
    carried: set[int] = set()
    source = text.split("\n")[:-1]  # an element may hold several lines (a docstring)
    out, i = [], 0
    last = None  # (indent, TF1 lines) of the comment in force: a block inside it, or after an `if` it holds, from
    while i < len(source):  # the same lines says nothing again (a moving average's update, then its `if` block)
        if i not in trailers:
            line = source[i]
            header = re.search(r":\s*(#.*)?$", line) and line.lstrip().startswith(("if ", "else", "elif ", "with "))
            if line.strip() and (len(re.match(r"\s*", line)[0]) <= (last or (-1,))[0] and not header):
                last = None  # another statement, not the block's own `if` or `with`
            out.append(source[i])
            i += 1
            continue
        indent = re.match(r"\s*", source[i])[0]
        block, numbers = [], []
        while i in trailers and re.match(r"\s*", source[i])[0] == indent:
            column, named, kept = trailers[i]
            for n in named:  # the script's own comments on those lines, above the statement, once each
                if n not in carried:
                    block += [f"{indent}{c}" for c in (comments or {}).get(n, [])]
                    carried.add(n)
            block.append(source[i][:column].rstrip() + (f"  # {kept}" if kept else ""))
            numbers += named
            i += 1
        if last is not None and last[1] == sorted(set(numbers)) and len(indent) >= last[0]:
            out += block
        else:
            out += [f"{indent}# {_ranges(numbers)}", *block]
            last = (len(indent), sorted(set(numbers)))
    return [piece for line in out for piece in wrap(line)]  # within MAX_LINE where brackets allow
