"""The TODO marks of a written script, read back from its text, so that the console's list is the file's marks one
for one, each with the line a user goes to.

Two kinds of mark: a comment `# TODO(tfcompare): ...` (its text continued on `#     ` lines below it), where a
statement or a step's work is left to do, and a call `TODO_tfcompare("...")` inside an expression, where one op of
a forward pass has no translation (it raises when run). Read from the text as written, not from the list the
writer kept: an op whose TODO is written in two methods is two marks, and a mark the writer dropped is none.
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize

from tfcompare.core.parsing import parse
from tfcompare.scripts.convert.line_width import MAX_LINE

__all__ = ["COMMENT", "CALL", "mark_lines", "todo_marks"]

COMMENT = "TODO(tfcompare):"
CALL = "TODO_tfcompare"
_MORE = re.compile(r"#     (\S.*)$")  # a mark's text continued (mark_lines)


def mark_lines(indent: str, lead: str, text: str) -> list[str]:
    """A mark written as `todo_marks` reads it: `{indent}{lead}{text}`, the text continued on `#     ` lines within
    MAX_LINE (a word longer than a line is kept whole: split, the console would read it back as two)."""
    first, more = f"{indent}{lead}", f"{indent}#     "
    parts = textwrap.wrap(text, MAX_LINE - len(first), break_on_hyphens=False, break_long_words=False) or [""]
    return [first + parts[0], *textwrap.wrap(" ".join(parts[1:]), MAX_LINE, initial_indent=more,
                                             subsequent_indent=more, break_on_hyphens=False, break_long_words=False)]


def todo_marks(text: str) -> list[str]:
    """Each mark as `line N: what`, in the order of the file."""
    found = _comments(text) + _calls(text)
    return [f"line {n}: {what}" for n, _, what in sorted(found, key=lambda m: m[:2])]


def _comments(text: str) -> list[tuple[int, int, str]]:
    try:
        comments = [(*tok.start, tok.string) for tok in tokenize.generate_tokens(io.StringIO(text).readline)
                    if tok.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError, IndentationError):  # not Python: every `#` is read as a comment
        comments = [(i, line.index("#"), line[line.index("#"):]) for i, line in enumerate(text.splitlines(), 1)
                    if "#" in line]
    by_line = {n: comment for n, _, comment in comments}
    out = []
    for n, col, comment in comments:
        if COMMENT not in comment:
            continue
        what = comment.split(COMMENT, 1)[1].strip()
        more = n + 1
        while more in by_line and (m := _MORE.match(by_line[more])) and COMMENT not in by_line[more]:
            what += " " + m.group(1).strip()
            more += 1
        out.append((n, col, what))
    return out


def _calls(text: str) -> list[tuple[int, int, str]]:
    try:
        tree = parse(text)
    except SyntaxError:  # not Python: the calls as they read
        return [(text.count("\n", 0, m.start()) + 1, m.start() - text.rfind("\n", 0, m.start()), m.group(2))
                for m in re.finditer(CALL + r"\((['\"])(.*?)\1\)", text)]
    return [(node.lineno, node.col_offset, node.args[0].value) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == CALL
            and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)]
