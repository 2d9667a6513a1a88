"""A TF1 script that builds one graph, trains it, then calls `reset_default_graph()` and builds the next: each graph
is converted and proven on its own, and the rewrites are joined into one TF2 script in the script's order.

Cookbook scripts teach this way (a regression, then `ops.reset_default_graph()`, then a classifier), and a child
that stops at the first training step sees only the first graph. Each graph is a *segment*: the top-level
statements from one reset to the next (the first from the top of the file), split only where the segment before
the reset trains (`minimize` / `apply_gradients`) and the one after it does too. Segment k is run as a TF1 script
of its own: the script's text with every line outside the segment blanked (so line numbers, tracebacks and the
rewrite's provenance stay the script's), keeping the imports, functions and classes defined above it. Its rewrite
is a TF2 script of its own, proven by its own `pair`; `joined` puts the rewrites together: the later ones without
their docstring and without the imports and definitions the earlier ones already hold, each model class with a
name of its own (`Model2`).
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import difflib
import io
import re
import tokenize

from tfcompare.core.parsing import parse

__all__ = ["Segment", "segments", "blanked", "renamed", "clashing_classes", "joined", "joined_lines"]

_RESET = "reset_default_graph"
_TRAINS = ("minimize", "apply_gradients")
_DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclasses.dataclass(frozen=True)
class Segment:
    """The lines (1-based, inclusive) a graph's code spans, and the lines of the definitions above it it keeps."""

    first: int
    last: int
    kept_above: tuple[tuple[int, int], ...] = ()
    assigned_above: tuple[str, ...] = ()  # the kept assignments (ast.dump): the rewrite's copies of them go


    @property
    def lines(self) -> str:
        return f"{self.first}-{self.last}"


def _start(node: ast.stmt) -> int:
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])


def _is_reset(node: ast.stmt) -> bool:
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    func = node.value.func
    return (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) == _RESET


def _trains(nodes: list[ast.stmt]) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _TRAINS
               for node in nodes for n in ast.walk(node))


def segments(source: str) -> list[Segment]:
    """The graphs of a script that builds more than one at its top level, in order; [] for one graph (or when the
    text does not parse)."""
    try:
        body = parse(source).body
    except SyntaxError:
        return []
    cuts = [0]
    for i, node in enumerate(body):
        if i and _is_reset(node) and _trains(body[cuts[-1]:i]):
            cuts.append(i)
    cuts = [c for j, c in enumerate(cuts) if j == 0 or _trains(body[c:cuts[j + 1] if j + 1 < len(cuts) else None])]
    if len(cuts) < 2:
        return []
    total = source.count("\n") + (0 if source.endswith("\n") else 1)
    out = []
    for j, cut in enumerate(cuts):
        first = 1 if j == 0 else body[cut - 1].end_lineno + 1
        last = body[cuts[j + 1] - 1].end_lineno if j + 1 < len(cuts) else total
        above = _kept(body[:cut]) if j else []
        out.append(Segment(first, last, tuple((_start(n), n.end_lineno) for n in above),
                           tuple(ast.dump(n) for n in above if not isinstance(n, _DEFINITIONS))))
    return out


def _kept(nodes: list[ast.stmt]) -> list[ast.stmt]:
    """What a later graph keeps of the code above it: imports, functions and classes, and the assignments that
    need nothing else (the script's data and settings: `batch_size = 20`, `x_vals = np.random.normal(...)`), those
    that touch TensorFlow or a name only other code binds (`sess`, a fetched value) left out."""
    tf_names, bound, out = set(), set(dir(builtins)), []
    for node in nodes:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = {(a.asname or a.name).split(".")[0] for a in node.names}
            module = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
            if (module or "").split(".")[0] == "tensorflow" or any(a.name.startswith("tensorflow")
                                                                    for a in node.names):
                tf_names |= names
            bound |= names
            out.append(node)
        elif isinstance(node, _DEFINITIONS):
            bound.add(node.name)
            out.append(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            loaded = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            if loaded <= bound and not loaded & tf_names:
                bound |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                out.append(node)
    return out


def blanked(source: str, segment: Segment) -> str:
    """The script as segment's own TF1 script: every other line empty, so each kept line keeps its number."""
    spans = [(segment.first, segment.last), *segment.kept_above]
    return "".join(line if any(a <= n <= b for a, b in spans) else "\n"
                   for n, line in enumerate(source.splitlines(keepends=True), 1))


def renamed(text: str, names: dict[str, str]) -> str:
    """`text` with each top-level name in `names` (a class, not an attribute `keras.Model`) spelled anew."""
    if not names:
        return text
    tokens, out, after_dot = list(tokenize.generate_tokens(io.StringIO(text).readline)), [], False
    for tok in tokens:
        if tok.type == tokenize.NAME and tok.string in names and not after_dot:
            tok = tok._replace(string=names[tok.string])
        out.append(tok)
        after_dot = tok.type == tokenize.OP and tok.string == "."
    return tokenize.untokenize(out)


def _docstring_end(tree: ast.Module) -> int:
    first = tree.body[0] if tree.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first.end_lineno
    return 0


def clashing_classes(texts: list[str], text: str) -> dict[str, str]:
    """The model classes of `text` whose names an earlier rewrite's different class holds: each its new name."""
    earlier = {}
    for t in texts:
        earlier.update({n.name: ast.dump(n) for n in parse(t).body if isinstance(n, ast.ClassDef)})
    taken = set(earlier)
    out = {}
    for node in parse(text).body:
        if isinstance(node, ast.ClassDef) and node.name in earlier and earlier[node.name] != ast.dump(node):
            k = 2
            while f"{node.name}{k}" in taken:
                k += 1
            out[node.name] = f"{node.name}{k}"
            taken.add(out[node.name])
    return out


def joined(texts: list[str], heads: list[str], parts: list[Segment] | None = None) -> str:
    """One script of the graphs' rewrites in order: the first as written; each later one after a comment (`heads`)
    without its docstring, its imports going up to the first's, its definitions the text above already holds
    (the same imports, functions and classes) left out, and its copies of the assignments kept above its graph
    (`parts`): the script ran those once, before the first graph."""
    lines = texts[0].rstrip("\n").splitlines()
    for j, (text, head) in enumerate(zip(texts[1:], heads[1:]), 1):
        assigned = list(parts[j].assigned_above) if parts else []
        own = text.splitlines()
        above = parse("\n".join(lines))
        held = {ast.dump(n) for n in above.body if isinstance(n, _DEFINITIONS)}
        tree = parse(text)
        last_import = max((n.end_lineno for n in above.body if isinstance(n, (ast.Import, ast.ImportFrom))),
                          default=_docstring_end(above))
        imports, body, previous = [], [], _docstring_end(tree)
        for node in tree.body[1 if previous else 0:]:
            span = own[previous:node.end_lineno]  # the comments above a statement go with it
            previous = node.end_lineno
            if isinstance(node, _DEFINITIONS) and ast.dump(node) in held:
                continue
            if ast.dump(node) in assigned:  # the first copy of each, as they come first
                assigned.remove(ast.dump(node))
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                imports += own[_start(node) - 1:node.end_lineno]
            else:
                body += span
        while body and not body[0].strip():
            body.pop(0)
        lines = lines[:last_import] + imports + lines[last_import:] + ["", "", f"# {head}", *body]
    return "\n".join(lines) + "\n"


def joined_lines(own: str, whole: str, sites: list[str]) -> list[str]:
    """`sites` (pair's `line N` of a variable in one graph's rewrite, `own`) as the lines of the joined script,
    `whole`, where that rewrite's text now stands (its lines matched in order; a line it lost stays as it was)."""
    matcher = difflib.SequenceMatcher(None, own.splitlines(), whole.splitlines(), autojunk=False)
    moved = {a + i + 1: b + i + 1 for a, b, size in matcher.get_matching_blocks() for i in range(size)}

    def site(text: str) -> str:
        return re.sub(r"\bline (\d+)\b", lambda m: f"line {moved.get(int(m.group(1)), int(m.group(1)))}", text)

    return [site(s) for s in sites]
