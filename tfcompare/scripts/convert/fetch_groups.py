"""Tensors fetched together: `loss, acc = sess.run([loss_op, accuracy], feed_dict=...)` is one forward pass in TF1,
the loss and the accuracy computed from the same activations (and, in a VAE, the same noise draw). Written as one
method per tensor, the rewrite ran the network once per value, and a reviewer of five rewrites pointed at it (the
VAE's printed reconstruction and KL terms came from two different draws). Each such run gets one method returning
the values together from one forward pass (`def loss_and_accuracy(self, x, y)`), read as
`loss, acc = [value.numpy() for value in model.loss_and_accuracy(batch_x, batch_y)]`.
"""

from __future__ import annotations

import ast

from tfcompare.scripts.convert.list_fetches import list_method

__all__ = ["group_methods", "without_superseded"]

_MOST = 3  # names joined into the method's name (`loss_and_accuracy`); more: `fetches_4`


def _groups(tree) -> list[tuple[str, ...]]:
    """Each list of two or more distinct names the script passes to `Session.run` (`sess.run([a, b], ...)`), once."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run" and \
                node.args and isinstance(node.args[0], (ast.List, ast.Tuple)):
            items = node.args[0].elts
            names = tuple(i.id for i in items if isinstance(i, ast.Name))
            if len(names) == len(items) >= 2 and len(set(names)) == len(names) and names not in out:
                out.append(names)
    return out


def group_methods(tree, module_dict: dict, tr, feed_tensors: list, arguments: dict, placeholder_global: dict,
                  method_taken: set, plan_methods: dict, skip: set, tf) -> tuple[list[str], dict]:
    """(the methods' code lines, {fetched names: (method prefix, placeholder names)}) for the runs that fetch only
    tensors with a model method each (`plan_methods`, none in `skip`: lists, summaries, untranslated); a run that
    also trains, reads a variable or a summary keeps its calls, and so does one whose joint translation needs a
    TODO or a moving-average switch."""
    code, planned = [], {}
    for names in _groups(tree):
        values = [module_dict.get(n) for n in names]
        if any(not isinstance(v, tf.Tensor) or n not in plan_methods or n in skip or
               not plan_methods[n][0].startswith("model") for n, v in zip(names, values)):
            continue
        # a batch norm's update switch: each method keeps its own
        made = list_method(values, "_and_".join(names) if len(names) <= _MOST else f"fetches_{len(names)}", tr,
                           feed_tensors, arguments, method_taken, updates=False)
        if made is not None:
            method, lines, args = made
            code += lines
            planned[names] = (f"model.{method}", [placeholder_global[a] for a in args])
    return code, planned


def without_superseded(text: str, names: list, plan_methods: dict, keep: str) -> str:
    """`text` without the model's single-value methods of `names` that a group's method replaced everywhere (the
    script fetched `accuracy` only together with the loss: `def accuracy` would be dead code); `keep`: a method
    kept whether called or not ("" for none)."""
    candidates = {plan_methods[n][0].split(".", 1)[1] for n in names
                  if plan_methods.get(n, ("",))[0].startswith("model.")} - {keep}
    if not candidates:
        return text
    try:
        tree = ast.parse(text)
    except SyntaxError:  # not Python yet at this point (the writer finishes it later): every method kept
        return text
    lines = text.split("\n")
    drop = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for method in node.body:
            if isinstance(method, ast.FunctionDef) and method.name in candidates:
                first = min([method.lineno, *(d.lineno for d in method.decorator_list)])
                span = range(first - 1, method.end_lineno)
                rest = "\n".join(line for i, line in enumerate(lines) if i not in span)
                if f".{method.name}(" not in rest:
                    drop |= set(span) | ({method.end_lineno} if method.end_lineno < len(lines)
                                         and not lines[method.end_lineno].strip() else set())
    return "\n".join(line for i, line in enumerate(lines) if i not in drop)
