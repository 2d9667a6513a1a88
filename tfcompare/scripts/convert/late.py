"""Graph code the TF1 script builds after its first training step (an accuracy defined after the training loop):
defined now, in the script's graph, so it is translated like what came before it.

The child stops the script at its first training step, so such tensors never exist when the TF2 script is
written. Only plain assignments of TensorFlow expressions over the script's tensors are run (`tf.*` calls,
tensors, literals): nothing that reads files, runs a session or calls the script's own functions, so defining
them has no effect outside the graph. The first statement that is anything else, or fails, ends the search, as
does one that rebinds a name the script had bound before its step (a second model after `reset_default_graph()`
reuses `a`, `x_data`, `loss`: defining it would change what the first model's code reads), unless that name held a
computed tensor no run or feed before it read (a decoder rebuilt on a noise input after training). Only names bound
to graph tensors are the model's; a number assigned there stays the script's statement.
"""

from __future__ import annotations

import ast
import types

import numpy as np

__all__ = ["define_late_tensors", "define_inline_fetches", "with_inline_fetches"]


def _statements(body: list, after: int):
    """Top-level statements after line `after`, looking into `with` blocks (a Session's, a graph's), not into loops,
    branches or functions (they may not run)."""
    for s in body:
        if isinstance(s, ast.With):
            yield from _statements(s.body, after)
        elif s.lineno > after:
            yield s


_MISSING = object()
_CODE: list = []


def _kept(tree, script: str, mode: str):
    """`tree` compiled as the script's own lines, the code object kept for the life of the process: an op's
    traceback points at the code that made it without holding it, and reading it after that code was freed fails
    (`RuntimeError: basic_string::_M_construct null not valid`)."""
    code = compile(tree, script, mode)
    _CODE.append(code)
    return code


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
            if value is _MISSING or not (is_graph(value) or isinstance(value, (int, float, str, bool))
                                         or _of_graph(value, is_graph)):
                return False
    return True


def _of_graph(value, is_graph) -> bool:
    """A dict, list or tuple of the script's tensors and variables (`weights['decoder_h1']`)."""
    items = list(value.values()) if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else []
    return bool(items) and all(is_graph(v) for v in items)


def _tf_names(module_dict: dict) -> set[str]:
    """The script's names for TensorFlow modules (`tf`, `tensorflow`, `ops`)."""
    return {k for k, v in module_dict.items()
            if isinstance(v, types.ModuleType) and v.__name__.startswith("tensorflow")}


def _is_graph(value) -> bool:
    import tensorflow as tf

    return isinstance(value, (tf.Tensor, tf.Variable))


def _is_tensor(value) -> bool:
    """A tensor, not a variable: a name the script rebinds from one computed tensor to another (a decoder rebuilt
    on a noise input after training) may be rebound here; a variable's name, never (a second model's)."""
    import tensorflow as tf

    return isinstance(value, tf.Tensor)


def _literal_array(stmt, module_dict: dict) -> bool:
    """`test_X = numpy.asarray([6.83, 4.668, ...])`: NumPy data written out in the script, after its training."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call) and not stmt.value.keywords and len(stmt.value.args) == 1):
        return False
    root = module_dict.get(_root(stmt.value.func))
    if not (isinstance(root, types.ModuleType) and root.__name__.split(".")[0] == "numpy"):
        return False
    try:
        ast.literal_eval(stmt.value.args[0])
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return getattr(stmt.value.func, "attr", "") in ("asarray", "array")


def _inline_runs(stmt, sessions: set) -> list:
    """The `sess.run(EXPR, ...)` calls in `stmt` whose fetch is an expression, not a name or a list of names."""
    found = []
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run" and \
                isinstance(node.func.value, ast.Name) and node.func.value.id in sessions and node.args and \
                not isinstance(node.args[0], (ast.Name, ast.List, ast.Tuple, ast.Dict, ast.Constant)):
            found.append(node)
    return found


def define_inline_fetches(script: str, source: str, module_dict: dict, first_step_line: int, graph) -> dict:
    """Each TensorFlow expression the script builds inside a `sess.run(...)` after its first training step
    (`testing_cost = sess.run(tf.reduce_sum(tf.pow(pred - Y, 2)) / (2 * test_X.shape[0]), feed_dict=...)`),
    defined now in the script's graph under a global name (the assignment's target, else the TF function called,
    `argmax`, else `value_line<N>`), so it is translated like a named tensor. NumPy arrays the script writes out
    after training (`test_X = numpy.asarray([...])`) are bound first, for such an expression to read their shape.
    Returns {(line, col, end line, end col) of the expression: its name}, for `with_inline_fetches`."""
    import tensorflow as tf

    tree = ast.parse(source)
    tf_names = _tf_names(module_dict)
    sessions = {k for k, v in module_dict.items() if isinstance(v, tf.compat.v1.Session)}
    is_graph = _is_graph

    def plain(expr) -> bool:
        """A TensorFlow expression over the script's tensors and numbers, NumPy arrays read for their shape."""
        probe = ast.Assign([ast.Name("_", ast.Store())], expr)
        arrays = {k: v for k, v in module_dict.items() if isinstance(v, np.ndarray)}
        seen = {k: (0 if isinstance(v, np.ndarray) else v) for k, v in module_dict.items()}  # arrays read as data
        return _plain(probe, seen, tf_names, is_graph) and not any(
            isinstance(n, ast.Name) and n.id in arrays and not _shape_read(expr, n) for n in ast.walk(expr))

    inline: dict = {}
    stale: set[str] = set()  # names a statement not run here rebinds: an expression reading one is left alone
    for stmt in _statements(tree.body, first_step_line):
        if _new_graph(stmt):
            break
        if _literal_array(stmt, module_dict) and stmt.targets[0].id not in module_dict:
            exec(_kept(ast.Module([stmt], []), script, "exec"), module_dict)
            continue
        if isinstance(stmt, (ast.For, ast.While, ast.If, ast.With, ast.FunctionDef, ast.ClassDef, ast.Try)):
            break  # what follows may depend on it; inside it, a name may hold another value each time
        for call in _inline_runs(stmt, sessions):
            expr = call.args[0]
            if {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)} & stale or not plain(expr):
                continue
            try:
                with graph.as_default():
                    value = eval(_kept(ast.Expression(expr), script, "eval"), module_dict)
            except Exception:
                continue
            if not is_graph(value):
                continue
            target = stmt.targets[0].id if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name) and stmt.value is call else ""
            called = expr.func.attr if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) else ""
            name = target if target and target not in module_dict else called or f"value_line{expr.lineno}"
            while name in module_dict:
                name += "_"
            module_dict[name] = value
            inline[(expr.lineno, expr.col_offset, expr.end_lineno, expr.end_col_offset)] = name
        stale |= {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} - \
            set(inline.values())
    return inline


def _shape_read(expr, name: ast.Name) -> bool:
    """`name` is read only for its shape (`test_X.shape[0]`): a number fixed when the line ran."""
    return any(isinstance(n, ast.Attribute) and n.value is name and n.attr in ("shape", "size", "ndim")
               for n in ast.walk(expr))


def with_inline_fetches(source: str, inline: dict) -> str:
    """`source` with each inline fetch expression (`define_inline_fetches`) replaced by its name, the line breaks
    inside it kept (so every line number stays the script's)."""
    lines = [line.encode() for line in source.split("\n")]  # ast columns are UTF-8 byte offsets
    for (line, col, end_line, end_col), name in sorted(inline.items(), reverse=True):
        head, tail = lines[line - 1][:col], lines[end_line - 1][end_col:]
        lines[line - 1:end_line] = [head + name.encode() + tail] + [b""] * (end_line - line)
    return "\n".join(line.decode() for line in lines)


def define_late_tensors(script: str, source: str, module_dict: dict, first_step_line: int, graph) -> set[str]:
    """Run the script's plain graph-building assignments that come after its first training step, in its graph and
    its globals (compiled as the script's own lines, so each op names the line that made it); returns the names
    they bound."""
    tree = ast.parse(source)
    tf_names, is_graph = _tf_names(module_dict), _is_graph
    bound: set[str] = set()
    stale: set[str] = set()  # names a skipped statement rebinds: what reads them would read the old value
    for stmt in _statements(tree.body, first_step_line):
        loads = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if loads & stale or _new_graph(stmt):
            break
        if isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id in module_dict and
                (not _is_tensor(module_dict[t.id]) or t.id in _run_reads(tree, stmt.lineno)) for t in stmt.targets):
            break  # it rebinds a name the code before the step used (a second model, `x_val = 5.`): not ours to move
        if not _plain(stmt, module_dict, tf_names, is_graph):
            if isinstance(stmt, (ast.Assign, ast.Expr)):  # e.g. a print or a sess.run: the rewrite carries it
                stale |= {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                continue
            break  # a loop, a branch, a function: what follows may depend on it
        try:
            with graph.as_default():
                exec(_kept(ast.Module([stmt], []), script, "exec"), module_dict)
        except Exception:
            break
        bound |= {t.id for t in stmt.targets if is_graph(module_dict.get(t.id))}  # a number stays in the script
    return bound


def _run_reads(tree, before: int) -> set[str]:
    """The names read before line `before` where a session may run them: in a `run`/`eval` call, a dict (a feed),
    a loop's body. A tensor read there is the old one: rebinding its name would map those reads to the new one.
    (`decoder = tf.matmul(noise_input, ...)` after training, in a script that never ran its old `decoder`, may
    go.)"""
    names: set[str] = set()
    for node in ast.walk(tree):
        runs = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("run", "eval")
        if (runs or isinstance(node, (ast.Dict, ast.For, ast.While))) and node.lineno < before:
            names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                      and n.lineno < before}
    return names


def _new_graph(stmt) -> bool:
    """`tf.reset_default_graph()` / `ops.reset_default_graph()`, `with tf.Graph().as_default():`: what follows
    builds another model, in another graph."""
    return any(isinstance(n, ast.Attribute) and n.attr in ("reset_default_graph", "Graph") for n in ast.walk(stmt))
