"""Graph code the TF1 script builds after its first training step (an accuracy defined after the training loop):
defined now, in the script's graph, so it is translated like what came before it.

The child stops the script at its first training step, so such tensors never exist when the TF2 script is
written. Only plain assignments of TensorFlow expressions over the script's tensors are run (`tf.*` calls,
tensors, literals): nothing that reads files, runs a session or calls the script's own functions, so defining
them has no effect outside the graph. The first statement that is anything else, or fails, ends the search.
"""

from __future__ import annotations

import ast
import types

__all__ = ["define_late_tensors"]


def _statements(body: list, after: int):
    """Top-level statements after line `after`, looking into `with` blocks (a Session's, a graph's), not into loops,
    branches or functions (they may not run)."""
    for s in body:
        if isinstance(s, ast.With):
            yield from _statements(s.body, after)
        elif s.lineno > after:
            yield s


_MISSING = object()


def _root(node) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _plain(stmt, module_dict: dict, tf_names: set, is_graph) -> bool:
    """An assignment of a TensorFlow expression over the script's tensors, and nothing else."""
    if not isinstance(stmt, ast.Assign) or not all(isinstance(t, ast.Name) for t in stmt.targets):
        return False
    for node in ast.walk(stmt.value):
        if isinstance(node, ast.Call):
            if _root(node.func) not in tf_names or (isinstance(node.func, ast.Attribute) and
                                                    node.func.attr in ("run", "eval", "Session", "py_func")):
                return False
        elif isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.comprehension)):
            return False
    for node in ast.walk(stmt.value):
        if isinstance(node, ast.Name) and node.id not in tf_names:
            value = module_dict.get(node.id, _MISSING)
            if value is _MISSING or not (is_graph(value) or isinstance(value, (int, float, str, bool))):
                return False
    return True


def define_late_tensors(script: str, source: str, module_dict: dict, first_step_line: int, graph) -> set[str]:
    """Run the script's plain graph-building assignments that come after its first training step, in its graph and
    its globals (compiled as the script's own lines, so each op names the line that made it); returns the names
    they bound."""
    import tensorflow as tf

    tree = ast.parse(source)
    tf_names = {k for k, v in module_dict.items()
                if isinstance(v, types.ModuleType) and v.__name__.startswith("tensorflow")}

    def is_graph(value) -> bool:
        return isinstance(value, (tf.Tensor, tf.Variable))

    bound: set[str] = set()
    stale: set[str] = set()  # names a skipped statement rebinds: what reads them would read the old value
    for stmt in _statements(tree.body, first_step_line):
        loads = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if loads & stale:
            break
        if not _plain(stmt, module_dict, tf_names, is_graph):
            if isinstance(stmt, (ast.Assign, ast.Expr)):  # e.g. a print or a sess.run: the rewrite carries it
                stale |= {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                continue
            break  # a loop, a branch, a function: what follows may depend on it
        try:
            with graph.as_default():
                exec(compile(ast.Module([stmt], []), script, "exec"), module_dict)
        except Exception:
            break
        bound |= {t.id for t in stmt.targets}
    return bound
