"""What one instance of a class computes, and what its constructor's arguments change in it.

A script that builds `Net(tf.nn.relu, 'relu')`, `Net(tf.nn.tanh, 'tanh')` and `Net(tf.nn.tanh, 'wide',
n_hidden=100)` builds graphs that differ, op by op, only where an argument reaches them: an activation's op type,
a width's dimensions. Such a class is still one TF2 class, written from the first instance with those places
read from the argument (`self.activation(...)`, `[1, n_hidden]`); any other difference (a constant, a placeholder's
shape, another structure) leaves the instances not one class, and the caller writes one model.
"""

from __future__ import annotations

import ast
import dataclasses

import numpy as np

from tfcompare.core.graphs import ancestors

__all__ = ["Varying", "argument_values", "signature", "varying"]

# attributes that name an op or seed it, not what it computes
_NAMING = ("seed", "seed2", "_class", "shared_name", "container", "value", "debug_name")
_UNKNOWN = object()


@dataclasses.dataclass(frozen=True)
class Varying:
    """Where the first instance's graph reads a constructor argument: {op name: the parameter whose function
    computes it} and {variable op name: its shape, each dimension the int or the parameter it is}."""

    activations: dict
    dims: dict


def _ops(entry: dict) -> list:
    roots = [entry["loss"].op] + [v.initializer for _, v in entry["grads_and_vars"]]
    return sorted(ancestors(roots), key=lambda o: o._id)


def _attr(value):
    if value.HasField("shape"):
        return tuple(d.size for d in value.shape.dim) if not value.shape.unknown_rank else None
    return str(value)


def _describe(op) -> tuple:
    from tensorflow.python.framework import tensor_util

    value = None
    if op.type == "Const":
        array = tensor_util.MakeNdarray(op.get_attr("value"))
        value = tuple(array.ravel().tolist()) if array.dtype.kind in "iu" and array.size <= 16 else array.tobytes()
        value = (str(array.dtype), array.shape, value)
    attrs = tuple(sorted((k, _attr(v)) for k, v in op.node_def.attr.items() if k not in _NAMING))
    shapes = tuple(None if o.shape.rank is None else tuple(o.shape.as_list()) for o in op.outputs)
    return op.type, shapes, value, attrs


def signature(entry: dict) -> list:
    """What one instance's graph computes, names aside: each op of its loss and of its variables' initializers, in
    order, by type, output shapes, attributes (not seeds, names or colocation) and constant values."""
    return [_describe(op) for op in _ops(entry)]


def _arguments(init: ast.FunctionDef, call: ast.Call) -> dict:
    """{parameter: the expression the call gives it, or its default's}."""
    params = [a.arg for a in init.args.args[1:]]
    nodes = dict(zip(params[len(params) - len(init.args.defaults):], init.args.defaults))
    nodes.update(zip(params, call.args))
    nodes.update((k.arg, k.value) for k in call.keywords if k.arg)
    return nodes


def argument_values(init: ast.FunctionDef, call: ast.Call, module_dict: dict) -> dict:
    """{parameter: its value in the call (or its default's)}, where that is a literal or a dotted name."""
    return {p: v for p, n in _arguments(init, call).items() if (v := _value(n, module_dict)) is not _UNKNOWN}


def _value(node, module_dict: dict):
    """A literal's value, or a dotted name's (`tf.nn.relu`) in the script's globals; anything else _UNKNOWN (never
    evaluated)."""
    if node is None:
        return _UNKNOWN
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    path = []
    while isinstance(node, ast.Attribute):
        path.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in module_dict:
        return _UNKNOWN
    value = module_dict[node.id]
    for part in path:
        value = getattr(value, part, _UNKNOWN)
        if value is _UNKNOWN:
            return _UNKNOWN
    return value


def _op_type(function) -> str | None:
    """The one op type `function(x)` adds to a graph (`tf.nn.relu` -> Relu), or None where it adds more."""
    import tensorflow as tf

    try:
        with tf.Graph().as_default() as g:
            x = tf.compat.v1.placeholder(tf.float32, [2])
            before = len(g.get_operations())
            y = function(x)
            added = g.get_operations()[before:]
    except Exception:  # not an activation: whatever it raised, the instances are not parameterised by it
        return None
    return added[0].type if len(added) == 1 and getattr(y, "op", None) is added[0] else None


def _in_tf2(function) -> bool:
    """The function is TF2's too under its own path (`tf.nn.relu`), so the rewrite's constructor call keeps it."""
    import tensorflow as tf

    name = getattr(function, "__name__", "")
    return any(getattr(getattr(tf, space, None), name, None) is not None for space in ("nn", "math"))


def varying(init: ast.FunctionDef, calls: list[ast.Call], entries: list[dict], module_dict: dict,
            skip: set) -> Varying | None:
    """Where the instances' graphs (in `entries`, the first instance's first) differ only as their constructor
    arguments (`calls`, in the same order) explain, where the first's graph reads which; None otherwise. `skip`:
    the parameters only the optimizer reads (the rewrite's `optimizer` argument)."""
    nodes = [_arguments(init, c) for c in calls]
    # the parameters given otherwise by some call (written the same, they are the same), each by its value
    params = [p for p in set().union(*nodes) - set(skip)
              if len({ast.dump(n[p]) if p in n else None for n in nodes}) > 1]
    values = [{p: _value(n.get(p), module_dict) for p in params} for n in nodes]
    if any(v[p] is _UNKNOWN for p in params for v in values):
        return None
    widths = [p for p in params if all(type(v[p]) is int for v in values)]
    functions = {p: [_op_type(v[p]) for v in values] for p in params if all(callable(v[p]) for v in values)}
    if any(None in types or not all(_in_tf2(v[p]) for v in values) for p, types in functions.items()):
        return None
    ops = [_ops(e) for e in entries]
    described = [[_describe(op) for op in o] for o in ops]
    # the initializers are compared as the rewrite writes them (`class_code`), here only what reads the variables
    first = set(ancestors([v.initializer for _, v in entries[0]["grads_and_vars"]])) - \
        set(ancestors([entries[0]["loss"].op]))
    shaped = {i for i, op in enumerate(ops[0]) if op.type in ("VariableV2", "VarHandleOp")}
    activations: dict = {}
    for k in range(1, len(entries)):
        if len(described[k]) != len(described[0]):
            return None
        for i, (a, b) in enumerate(zip(described[0], described[k])):
            if a == b or ops[0][i] in first:
                continue
            if a[0] != b[0]:  # another op type: an activation argument's, and only that
                found = [p for p, types in functions.items() if types[0] == a[0] and types[k] == b[0]]
                if len(found) != 1 or a[2:] != b[2:] or not _explained(a[1], b[1], values[0], values[k], widths) \
                        or activations.setdefault(ops[0][i].name, found[0]) != found[0]:
                    return None
                continue
            # what is written the same: constants, attributes (a variable's shape aside); output shapes may differ
            attrs = [[x for x in d[3] if i not in shaped or x[0] != "shape"] for d in (a, b)]
            if a[2] != b[2] or attrs[0] != attrs[1] or not _explained(a[1:], b[1:], values[0], values[k], widths):
                return None
    for name, p in activations.items():  # each instance's op there is its own argument's
        i = next(j for j, op in enumerate(ops[0]) if op.name == name)
        if any(described[k][i][0] != functions[p][k] for k in range(len(entries))):
            return None
    dims = {}
    trained = [sorted((v for _, v in e["grads_and_vars"]), key=lambda v: v.op._id) for e in entries]
    for j, v in enumerate(trained[0]):
        shapes = [tuple(t[j].shape.as_list()) for t in trained]
        if len({len(s) for s in shapes}) != 1:
            return None
        dim = []
        for d, size in enumerate(shapes[0]):
            if all(s[d] == size for s in shapes):
                dim.append(size)
                continue
            found = [p for p in widths if all(s[d] == values[k][p] for k, s in enumerate(shapes))]
            if len(found) != 1:
                return None
            dim.append(found[0])
        if any(isinstance(d, str) for d in dim):
            dims[v.op.name] = tuple(dim)
    return Varying(activations, dims)


def _explained(a, b, first: dict, other: dict, widths: list[str]) -> bool:
    """Two descriptions differ only in ints that are one width parameter's value in each instance."""
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_explained(x, y, first, other, widths) for x, y in zip(a, b))
    if isinstance(a, (int, np.integer)) and isinstance(b, (int, np.integer)) and a != b:
        return sum(first[p] == a and other[p] == b for p in widths) == 1
    return a == b
