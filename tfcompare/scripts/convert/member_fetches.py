"""Fetches and feeds written as members: `sess.run(ae['cost'], feed_dict={ae['x']: batch})` (a model built by a
function that returns a dict of its tensors, pkmital's tutorials) or `sess.run(model.train_op, {model.x: x})` (a
class's attributes), read as plain names (`ae_cost`, `ae_x`, `model_train_op`) bound to the same graph values, so
they are translated like a script's named tensors.

Only a member whose value at the first training step is a tensor, a list of tensors, a variable or a train op, of
a name the script binds once (not a loop variable: `for net in nets: sess.run(net.train)` reads another network
each time); the source's line numbers are kept (`late.with_inline_fetches` replaces each span).
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re

from tfcompare.scripts.convert.rnn_state import cell_feed_loops, state_tensors, zero_state_runs

__all__ = ["define_member_fetches"]


def _member(node) -> bool:
    """`a['key']`, `a.b`, `a.b['c']`: constant keys and attributes on a name."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Subscript) and not (isinstance(node.slice, ast.Constant) and
                                                    isinstance(node.slice.value, (str, int))):
            return False
        node = node.value
    return isinstance(node, ast.Name)


def _root(node) -> str:
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id


def _parts(node) -> list[str]:
    out = []
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        out.append(str(node.slice.value) if isinstance(node, ast.Subscript) else node.attr)
        node = node.value
    return [node.id, *reversed(out)]


# the rewrite's own globals (writer): a member named so would read as them
_WRITTEN = {"model", "Model", "optimizer", "train_step", "tf", "keras", "np", "main"}


def _stores_seen_from(tree, node) -> set[str]:
    """The names bound where `node` is: at module level and in the functions around it, not in other functions
    (`build_vae`'s own `x` and `loss` are no clash for a member read outside it)."""
    out: set[str] = set()

    def visit(n):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) and not (
                n.lineno <= node.lineno <= (n.end_lineno or n.lineno)):
            return
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        for child in ast.iter_child_nodes(n):
            visit(child)

    visit(tree)
    return out


def _member_name(parts: list[str], stores: set, namespace: dict) -> str:
    """`ae['y']` -> `ae_y`; a dict or object named `model`, the rewrite's own instance, loses that part
    (`model['recon']` -> `recon`, read `model.recon(z)`, not `model.model_recon(model_z)`) where the name left is
    free: not bound by the script, not one of the rewrite's globals, a builtin or a keyword."""
    def joined(names):
        name = re.sub(r"\W", "_", "_".join(names))
        return name if name.isidentifier() else f"m_{name}"

    if parts[0] == "model" and len(parts) > 1:
        short = joined(parts[1:])
        if short.isidentifier() and not keyword.iskeyword(short) and short not in stores and \
                short not in namespace and short not in _WRITTEN and not hasattr(builtins, short):
            return short
    return joined(parts)


def _candidates(tree, sessions: set) -> list:
    """Members fetched by `S.run(...)` (alone or in a list / tuple) or fed as a dict literal's keys (a feed_dict,
    inline or bound to a name first: only a graph value passes `define_member_fetches`'s check)."""
    out = [k for node in ast.walk(tree) if isinstance(node, ast.Dict)
           for k in node.keys if isinstance(k, (ast.Subscript, ast.Attribute)) and _member(k)]
    out += [state for _, state, _ in cell_feed_loops(tree) if isinstance(state, (ast.Subscript, ast.Attribute)) and
            _member(state)]
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run" and
                isinstance(node.func.value, ast.Name) and node.func.value.id in sessions):
            continue
        fetches = node.args[0] if node.args else None
        items = list(fetches.elts) if isinstance(fetches, (ast.List, ast.Tuple)) else [fetches]
        if isinstance(fetches, ast.Call) and isinstance(fetches.func, ast.Attribute) and \
                fetches.func.attr == "assign":  # tf.assign(model.lr, value), model.lr.assign(value)
            items = fetches.args[:1] if len(fetches.args) == 2 else [fetches.func.value]
        feed = next((k.value for k in node.keywords if k.arg == "feed_dict"), None)
        if feed is None and len(node.args) > 1:
            feed = node.args[1]
        if isinstance(feed, ast.Dict):
            items += [k for k in feed.keys if k is not None]
        out += [i for i in items if i is not None and isinstance(i, (ast.Subscript, ast.Attribute)) and _member(i)]
    return out


def _tensor_list(value, tf) -> bool:
    """A list of the graph's tensors (`self.layer_input = [tf_x]`, appended to per layer), fetched as one: TF1
    returns the list of their values (`list_fetches`)."""
    return isinstance(value, list) and bool(value) and all(isinstance(v, tf.Tensor) for v in value)


def define_member_fetches(source: str, namespace: dict, train_ops: list) -> dict:
    """Bind each member fetch or feed of the script to a plain name in `namespace` (the script's globals, and the
    locals of the function it trains in): a tensor, a variable or one of `train_ops` (an iterator's `initializer`
    and other ops keep their own handling); returns {(line, col, end line, end col): name} for
    `with_inline_fetches`."""
    import tensorflow as tf

    tree = ast.parse(source)
    sessions = {k for k, v in namespace.items() if isinstance(v, tf.compat.v1.Session)}
    stores: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
    named: dict[str, str] = {}  # the member's source -> its name
    spans: dict = {}
    for node in _candidates(tree, sessions):
        root = _root(node)
        if stores.get(root, 0) != 1 or root not in namespace:
            continue
        key = ast.unparse(node)
        if key not in named:
            try:
                value = eval(compile(ast.Expression(node), "<member>", "eval"), {}, dict(namespace))
            except Exception:
                continue
            if not (isinstance(value, (tf.Tensor, tf.Variable)) or any(value is op for op in train_ops) or
                    _tensor_list(value, tf) or state_tensors(value, tf) is not None):
                continue
            name = _member_name(_parts(node), _stores_seen_from(tree, node), namespace)
            while name in namespace and namespace[name] is not value:
                name += "_"
            namespace[name] = value
            named[key] = name
        spans[(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)] = named[key]
    spans.update(zero_state_runs(tree, namespace, sessions, tf))  # sess.run(cell.zero_state(1, tf.float32))
    for loop, state, value in cell_feed_loops(tree):  # a stack's state fed cell by cell: the whole state fed
        key = ast.unparse(state)
        name = named.get(key, state.id if isinstance(state, ast.Name) else None)
        if name is not None and state_tensors(namespace.get(name), tf) is not None:
            feed = ast.unparse(loop.body[0].targets[0].value)
            spans[(loop.lineno, loop.col_offset, loop.end_lineno, loop.end_col_offset)] = f"{feed}[{name}] = {value}"
    return spans
