"""The script's imports of its own TF1 modules, where the rewrite replaced what they gave it.

A repository's training script imports its graph from a module beside it (`from model import Model`, char-rnn's).
That module ran as TF1 code in the TF1 run, and the rewrite writes the graph it built as its own `Model`: the import
is then dead (every name it binds is unused, or bound again by the rewrite before any use) and, in TF 2, it may
fail outright (`tf.contrib` is gone). Such an import is replaced by a note; one whose names the rewrite still reads
(a data helper in `utils.py`) stays.
"""

from __future__ import annotations

import ast
from pathlib import Path

__all__ = ["without_replaced_imports"]


def without_replaced_imports(body: str, folder: Path) -> str:
    """`body` (the written script) with each top-level import of a module of `folder` that imports TensorFlow and
    whose every name is dead in `body` replaced by a NOTE saying so."""
    try:
        tree = ast.parse(body)
    except SyntaxError:
        return body
    bound = {}  # a name the rewrite binds at its top level -> the line
    for s in tree.body:
        names = [s.name] if isinstance(s, (ast.ClassDef, ast.FunctionDef)) else \
            [t.id for t in getattr(s, "targets", []) if isinstance(t, ast.Name)]
        for name in names:
            bound.setdefault(name, s.lineno)
    loads: dict[str, list[int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads.setdefault(node.id, []).append(node.lineno)
    lines = body.split("\n")
    for s in reversed(tree.body):
        if not isinstance(s, (ast.Import, ast.ImportFrom)) or s.end_lineno != s.lineno:
            continue
        module = s.module if isinstance(s, ast.ImportFrom) else s.names[0].name if len(s.names) == 1 else None
        if module is None or getattr(s, "level", 0) or not _tf1_module(folder, module):
            continue
        names = [(a.asname or a.name).split(".")[0] for a in s.names]
        if "*" in names or not all(all(line > bound.get(n, float("inf")) for line in loads.get(n, []))
                                   for n in names):
            continue
        # one line, within 100 columns for a module name of 30 characters (the line numbers stay the script's)
        lines[s.lineno - 1] = f"# NOTE(tfcompare): left out, TF1 graph code written in TF2 below: {ast.unparse(s)}"
    return "\n".join(lines)


def _tf1_module(folder: Path, module: str) -> bool:
    """Whether `module` is a file of `folder` (the script's own code) that imports TensorFlow."""
    path = folder.joinpath(*module.split(".")).with_suffix(".py")
    if not path.is_file():
        return False
    try:
        tree = ast.parse(path.read_text(errors="replace"))
    except (SyntaxError, ValueError, OSError):
        return False
    return any((isinstance(n, ast.Import) and any(a.name.split(".")[0] == "tensorflow" for a in n.names)) or
               (isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "tensorflow")
               for n in ast.walk(tree))
