"""The script's own code around the graph, carried over: data loading, batch size, loops, logging.

The TF1 script's syntax tree is rewritten statement by statement: graph-building statements (they bound a
placeholder, variable, tensor, optimizer or session when the script reached its first training step) become
the generated model; `with tf.Session() as sess:` gives way to its body; `sess.run(...)` / `t.eval(...)` become
calls of the generated step and model methods; `input_data.read_data_sets` (gone from TF 2) becomes a loader
written into the script; what remains of TF1 becomes `pass  # TODO(tfcompare): ...`, never a silent change.
"""

from __future__ import annotations

import ast
import io
import textwrap
import tokenize

from tfcompare.scripts.convert.feed_dicts import inline_feed_dicts
from tfcompare.scripts.convert.line_width import fill
from tfcompare.scripts.convert.plan import GENERATED, NOTE_MARK, TODO_MARK, Carried, Plan
from tfcompare.scripts.convert.provenance import script_comments
from tfcompare.scripts.convert.statements import Rewriter

__all__ = ["Plan", "Carried", "rewrite", "TODO_MARK", "NOTE_MARK", "GENERATED"]


def spaces_for_tabs(source: str) -> str:
    """The source with each line's indentation in spaces (a tab to the next multiple of 4 columns, or of 8 where
    4 would change the program), lines inside a string left as they are: the rewrite indents with spaces, and a
    block of tab-indented lines carried into it would be invalid Python. Line numbers are unchanged."""
    if "\t" not in source:
        return source
    spans = _string_spans(source)
    if spans is None:
        return source
    inside = {n for start, end in spans for n in range(start + 1, end + 1)}
    for width in (4, 8):  # 4 columns a tab reads as the script was laid out; 8 is how Python reads it
        lines = source.split("\n")
        for n, line in enumerate(lines, 1):
            body = line.lstrip(" \t")
            if n not in inside and "\t" in line[:len(line) - len(body)]:
                lines[n - 1] = line[:len(line) - len(body)].expandtabs(width) + body
        spaced = "\n".join(lines)
        try:
            if ast.dump(ast.parse(spaced)) == ast.dump(ast.parse(source)):
                return spaced
        except SyntaxError:
            continue
    return source


def _string_spans(code: str) -> list[tuple[int, int]] | None:
    """(first line, last line) of each string in `code` that spans lines; None when `code` does not tokenize."""
    try:
        return [(tok.start[0], tok.end[0]) for tok in tokenize.generate_tokens(io.StringIO(code).readline)
                if tok.type == tokenize.STRING and tok.end[0] > tok.start[0]]
    except (tokenize.TokenError, SyntaxError):
        return None


_PLAIN = (ast.Constant, ast.Name, ast.BinOp, ast.UnaryOp, ast.Tuple, ast.List, ast.operator, ast.unaryop,
          ast.expr_context)


def _constants_first(head: list, tail: list, tree: ast.Module, first_step_line: int) -> tuple[list, list]:
    """`n_filters_2 = 16` written among the graph's statements (a tutorial's layer by layer), moved before the
    model, which may read it: a name bound once at the top level to numbers and names already bound there. The
    other statements keep their place and every statement its order among its kind."""
    bound_once = _top_names(tree.body, once=True)
    known = _top_names(head)
    moved, kept = [], []
    for s in tail:
        plain = isinstance(s, ast.Assign) and getattr(s, "lineno", first_step_line + 1) < first_step_line and \
            all(isinstance(t, ast.Name) and t.id in bound_once for t in s.targets) and \
            all(isinstance(n, _PLAIN) for n in ast.walk(s.value)) and \
            all(n.id in known for n in ast.walk(s.value) if isinstance(n, ast.Name))
        (moved if plain and not _kept_binds(kept, s) else kept).append(s)
        if plain:
            known |= {t.id for t in s.targets}
    return head + moved, kept


def _kept_binds(kept: list, s: ast.Assign) -> bool:
    """A statement left in place binds or reads a name `s` binds before `s` would now run."""
    names = {t.id for t in s.targets}
    return any(isinstance(n, ast.Name) and n.id in names for k in kept for n in ast.walk(k))


def _top_names(body: list, once: bool = False) -> set:
    counts: dict = {}
    for s in body:
        targets = s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, (ast.AnnAssign,
                                                                                          ast.AugAssign)) else []
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    counts[n.id] = counts.get(n.id, 0) + 1
        if isinstance(s, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
            names = [s.name] if hasattr(s, "name") else [(a.asname or a.name).split(".")[0] for a in s.names]
            for name in names:
                counts[name] = counts.get(name, 0) + 1
    return {k for k, v in counts.items() if v == 1} if once else set(counts)


def _wrapped(code: str, depth: int) -> str:
    """Unparsed `code` (one logical line per line) within MAX_LINE columns where it will stand, `depth` blocks in;
    a line a string spans is never broken (nor any line, when the code does not tokenize)."""
    indent = "    " * depth
    spans = _string_spans(code)
    inside = {n for start, end in spans for n in range(start, end + 1)} if spans is not None else \
        set(range(1, code.count("\n") + 2))
    out = []
    for n, line in enumerate(code.split("\n"), 1):
        out.extend([line] if n in inside else [p[len(indent):] for p in fill(indent + line)])
    return "\n".join(out)


def rewrite(source: str, plan: Plan, first_step_line: int, main: str | None = None) -> Carried:
    """Carry the script's statements over; the generated model goes where its graph code was (before `main`, the
    function the script trains in, if it does). A statement that comes through unchanged keeps its own text
    (comments inside it, line breaks); a rewritten one is unparsed."""
    source = spaces_for_tabs(source)
    tree = ast.parse(source)
    lines = source.split("\n")  # Python's lines (str.splitlines also splits at a form feed, U+2028, ...)
    original = {id(n): ast.dump(n) for n in ast.walk(tree) if isinstance(n, ast.stmt)}
    rewriter = Rewriter(plan, lines)
    rewriter.tree = tree
    rewriter.first_step_line = first_step_line
    head, tail, imports = [], [], []
    placed = False
    body = tree.body
    docstring = ""
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) and \
            isinstance(body[0].value.value, str):
        docstring = ast.get_source_segment(source, body[0]) or ""  # kept as written: the authors' credits
        body = body[1:]
    last_import = max((n.lineno for n in body if isinstance(n, (ast.Import, ast.ImportFrom))), default=0)
    imported: set[str] = set()

    starts = {id(n): n.body[0].lineno for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While, ast.If))}
    headers = {id(n): ast.dump(n.target if isinstance(n, ast.For) else n.test) for n in ast.walk(tree)
               if isinstance(n, (ast.For, ast.While, ast.If))}
    iters = {id(n): ast.dump(n.iter) for n in ast.walk(tree) if isinstance(n, ast.For)}
    mains = {id(n): n.body[0].lineno for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == main}

    above_lines = script_comments(source, trailing=False, blocks=True)  # the comment lines above each statement
    written_anchor = [0]  # the line whose comments the statement written last carried

    def text(node, depth: int = 0, opens_block: bool = False) -> str:
        """`node`'s code at column 0; `depth`: the blocks it is written in (a rewritten line is wrapped there);
        the comment lines right above it come with it, unless it `opens_block` (the block's header carried
        them)."""
        line = getattr(node, "lineno", 0)  # 0: a statement this rewrite made
        anchor = getattr(node, "comments_from", line)  # a statement that took over one it replaced: that one's
        # the second statement of a line (`a; b`) or of a statement's rewrite: the comments and the blank line
        # above that line came with the first
        again, written_anchor[0] = anchor > 0 and anchor == written_anchor[0], anchor
        comments = [] if opens_block or again else above_lines.get(anchor, [])
        above = anchor - len(comments)
        gap = "\n" if above >= 2 and not lines[above - 2].strip() and not again else ""
        gap += "".join(c + "\n" for c in comments)
        if id(node) in original and ast.dump(node) == original[id(node)]:
            segment = ast.get_source_segment(source, node)
            if segment is not None:
                # its trailing comment too (`num_input = 28 # MNIST data input (img shape: 28*28)`), where nothing
                # but the comment follows it on its last line
                rest = lines[node.end_lineno - 1][node.end_col_offset:].rstrip()
                return gap + textwrap.dedent(" " * node.col_offset + segment) + (
                    rest if rest.lstrip().startswith("#") else "")
        if id(node) in mains and id(node) not in original:  # the main function: its own header, its body rewritten
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            header = "\n".join(lines[i] for i in range(first - 1, mains[id(node)] - 1)).rstrip()
            inner = "\n".join(text(child, depth + 1, i == 0) for i, child in enumerate(node.body))
            return gap + header + "\n" + textwrap.indent(inner, "    ")
        if id(node) in starts and not node.orelse and \
                headers[id(node)] == ast.dump(node.target if isinstance(node, ast.For) else node.test) and \
                (not isinstance(node, ast.For) or iters[id(node)] == ast.dump(node.iter)):
            header = textwrap.dedent("\n".join(" " * node.col_offset + lines[i].lstrip() if i == node.lineno - 1
                                               else lines[i] for i in range(node.lineno - 1, starts[id(node)] - 1)))
            inner = "\n".join(text(child, depth + 1, i == 0) for i, child in enumerate(node.body))
            return gap + header + "\n" + textwrap.indent(inner, "    ")
        return gap + _wrapped(ast.unparse(node), depth)

    for s in body:
        before = s.lineno <= first_step_line and not (s.lineno <= first_step_line <= s.end_lineno)
        if isinstance(s, ast.FunctionDef) and s.name == main and s.lineno <= first_step_line <= s.end_lineno:
            # the function the script trains in: its body rewritten as a script's top level is, the model
            # written before it (the function reads the model, the optimizer and the steps as globals)
            placed = True
            s.body = [x for stmt in s.body for x in rewriter.statement(
                stmt, stmt.lineno <= first_step_line and not (stmt.lineno <= first_step_line <= stmt.end_lineno))] \
                or [ast.Pass()]
            tail.append(s)
            original.pop(id(s), None)
            continue
        new = rewriter.statement(s, before)
        if isinstance(s, ast.ImportFrom) and s.module == "__future__":
            new = _future_kept(s)
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            imports.extend(new)
            imported.update((a.asname or a.name).split(".")[0] for a in s.names)
            continue
        if s.lineno < last_import and _configures(s, imported):
            imports.extend(new)  # `matplotlib.use('Agg')` stays between the imports it was written between
            continue
        if not placed and (rewriter.model_parts or not before):
            placed = True  # the first graph statement: the model goes here
        (tail if placed else head).extend(new)
    if rewriter.saves and "os" not in imported:  # save_checkpoint splits its path with os.path (saving.save_helper)
        imports.append(ast.Import([ast.alias("os")]))
    head, tail = _constants_first(head, tail, tree, first_step_line)
    inline_feed_dicts([head, tail], set(rewriter.feed_vars), frozenset(above_lines))
    return Carried([text(x) for x in head], [text(x) for x in tail], [ast.unparse(x) for x in imports],
                   rewriter.todos, rewriter.loader, rewriter.summaries, docstring, rewriter.restores,
                   rewriter.saves)


# Python 2 compatibility imports, no-ops in Python 3 (a reviewer reads them as dead code); `annotations` is not
_NO_OP_FUTURES = {"division", "print_function", "absolute_import", "unicode_literals", "generators",
                  "nested_scopes", "with_statement", "generator_stop"}


def _future_kept(node: ast.ImportFrom) -> list:
    """`from __future__ import ...` without the features Python 3 always has: [] when nothing is left."""
    names = [a for a in node.names if a.name not in _NO_OP_FUTURES]
    return [ast.ImportFrom(module="__future__", names=names, level=0)] if names else []


def _configures(node, imported: set[str]) -> bool:
    """A call among the imports on modules imported above it (`matplotlib.use('Agg')`, `sys.path.append(...)`):
    it must run before the imports below it, as written."""
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and all(
        n.id in imported for n in ast.walk(node) if isinstance(n, ast.Name))
