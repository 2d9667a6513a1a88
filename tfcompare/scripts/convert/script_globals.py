"""The TF1 script's globals at its first training step: the global name of each tensor and variable, the names
bound to graph things (tensors, ops, variables, optimizers, sessions), to the train op and to the tensorflow
module; and, from its source, the names it fetches.
"""

from __future__ import annotations

import ast
import re
import types

__all__ = ["read_globals", "fetched_names", "global_value"]


def read_globals(module_dict: dict, train_op, tf) -> tuple[dict, dict, set, set, set]:
    """(tensor name -> global name, variable op name -> global name (a dict's or list's variable as KEY_k or
    KEY_i), the names bound to graph things, to the train op, to the tensorflow module)."""
    names: dict[str, str] = {}  # tensor name -> global name
    var_globals: dict[str, str] = {}
    graph_names, train_names, tf_names = set(), set(), set()
    for key, value in module_dict.items():
        if key.startswith("__"):
            continue
        if isinstance(value, types.ModuleType):
            if value.__name__.startswith("tensorflow") and "tutorials" not in value.__name__:
                tf_names.add(key)
            continue
        if isinstance(value, tf.Variable):
            var_globals.setdefault(value.op.name, key)
        elif isinstance(value, tf.Tensor):
            names.setdefault(value.name, key)
        elif isinstance(value, tf.Operation) and value is train_op:
            train_names.add(key)
        elif isinstance(value, dict):
            for k, v in value.items():
                if isinstance(v, tf.Variable) and isinstance(k, str):
                    var_globals.setdefault(v.op.name, f"{key}_{k}")
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value[:50]):  # `t_vars = tf.trainable_variables()`: its index names a variable
                if isinstance(v, tf.Variable) and re.fullmatch(r"Variable(_\d+)?", v.op.name):  # only TF1 named none
                    var_globals.setdefault(v.op.name, f"{key}_{i}")
        if _is_graph_value(value, tf):
            graph_names.add(key)
    return names, var_globals, graph_names, train_names, tf_names


def _is_graph_value(value, tf) -> bool:
    if isinstance(value, (tf.Tensor, tf.Operation, tf.Variable, tf.compat.v1.train.Optimizer)):
        return True
    if isinstance(value, tf.compat.v1.Session) or type(value).__name__ in ("Session", "InteractiveSession"):
        return True
    if isinstance(value, dict):
        return any(_is_graph_value(v, tf) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_is_graph_value(v, tf) for v in value[:50])
    members = getattr(value, "__dict__", None)  # an instance of the script's model class (`model = LSTMRNN(...)`)
    if isinstance(members, dict) and not isinstance(value, (type, types.ModuleType, types.FunctionType)) and any(
            isinstance(v, (tf.Tensor, tf.Operation, tf.Variable)) for v in list(members.values())[:200]):
        return True
    module = type(value).__module__ or ""
    return module.startswith(("tensorflow.python", "tfcompare.scripts.legacy")) and not isinstance(value, types.ModuleType)


def fetched_names(tree) -> set:
    """Global names the script passes to `Session.run` or calls `.eval()` on."""
    import ast

    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "run" and node.args:
                fetch = node.args[0]
                items = fetch.elts if isinstance(fetch, (ast.List, ast.Tuple)) else [fetch]
                names |= {i.id for i in items if isinstance(i, ast.Name)}
            elif node.func.attr == "eval" and isinstance(node.func.value, ast.Name):
                names.add(node.func.value.id)
    return names


def global_value(node, module_dict: dict, missing=None):
    """The value of a literal, `name` or `name['key']` among the script's globals (a call's argument, the
    variable in `weights['wd1'].get_shape()`), else `missing`."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return module_dict.get(node.id, missing)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        container = global_value(node.value, module_dict, missing)
        try:
            return container[node.slice.value] if isinstance(container, (dict, list, tuple)) else missing
        except (KeyError, IndexError, TypeError):
            return missing
    return missing
