"""A fed `keep_prob` as the `training` argument TF2 code takes.

TF1 scripts switch dropout off by feeding its keep probability: `keep_prob: 0.8` in the training run, `keep_prob:
1.0` wherever they evaluate. Carried over as it is, the rewrite keeps that plumbing (a float argument every call
passes). Where the script does exactly that, the rewrite takes `training` instead: the dropout is
`tf.cond(training, lambda: tf.nn.dropout(x, rate=1 - 0.8), lambda: x)`, the training step calls the loss with
`training=True` and every other call passes `training=False`. Only where it is exactly that: the placeholder is a
float scalar read by nothing but dropouts' keep probability, and every feed of it after the graph is built is a
dict entry of a call whose value is a number (or a name bound to one) equal to the training step's value or to
1.0. Anything else keeps the argument as it was.
"""

from __future__ import annotations

import ast
import dataclasses

__all__ = ["Flag", "training_flags", "switch_argument"]


@dataclasses.dataclass
class Flag:
    placeholder: object  # the TF1 placeholder
    name: str  # its global name in the script
    keep: float  # the training step's keep probability
    values: dict  # ast.dump of each value the script feeds it -> True (training) or False (evaluation)
    keep_text: str  # the script's expression of it (`0.8`, `dropout`, `args.dropout`), or its value
    param: str = "training"  # the argument's name in the rewrite


def switch_argument(param: str, training: bool, last: bool) -> str:
    """The switch's value in a call: `training=True` where no positional argument follows it, else `True`."""
    return f"{param}={training!r}" if last else repr(training)


def training_flags(tree: ast.AST, module_dict: dict, feed: dict, feed_tensors: list, names: dict, groups: dict,
                   first_step_line: int) -> list[Flag]:
    """The fed keep probabilities that are a training switch and nothing else."""
    out = []
    for t in feed_tensors:
        name = names.get(t.name)
        if name is None or t.op.type != "Placeholder" or not t.dtype.is_floating or t.shape.rank not in (None, 0):
            continue
        keep = _number(_fed_value(feed, t))
        if keep is None or not 0 < keep < 1 or not _only_dropout_keeps(t, groups):
            continue
        found = _fed_values(tree, name, module_dict, keep, first_step_line)
        if found:
            out.append(Flag(t, name, keep, *found))
    return out


def _fed_value(feed: dict, t):
    for key, value in feed.items():
        if key is t or getattr(key, "name", key) in (t.name, t.op.name):
            return value
    return None


def _number(value) -> float | None:
    try:
        import numpy as np

        array = np.asarray(value)
        return float(array) if array.ndim == 0 and array.dtype.kind in "fi" else None
    except (TypeError, ValueError):
        return None


def _only_dropout_keeps(t, groups: dict) -> bool:
    """Every op reading `t` is inside a dropout whose keep probability `t` is."""
    inside = set()
    for group in {id(g): g for g in groups.values()}.values():
        if group.kind == "dropout" and group.params.get("keep") and group.inputs[1].name == t.name:
            inside |= group.outputs_ops
    readers = list(t.consumers())
    return bool(readers) and all(op.name in inside for op in readers)


def _fed_values(tree: ast.AST, name: str, module_dict: dict, keep: float,
                first_step_line: int) -> tuple[dict, str] | None:
    """({ast.dump(value): training?} of every feed of `name` in the script's code after its graph, the training
    value's text), or None where one is not a dict entry of a call with a value of `keep` or 1.0, the training
    value is not one expression, or the name is read any other way there."""
    keys, values, texts = set(), {}, set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            if not isinstance(arg, ast.Dict):
                continue
            for key, value in zip(arg.keys, arg.values):
                if isinstance(key, ast.Name) and key.id == name:
                    number = _number(_literal(value, module_dict))
                    if number not in (keep, 1.0):
                        return None
                    keys.add(id(key))
                    values[ast.dump(value)] = number == keep
                    if number == keep:
                        texts.add(_text(value, tree))
    loads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
             and n.lineno >= first_step_line]
    if any(id(n) not in keys for n in loads) or len(texts) != 1 or None in texts:
        return None
    return values, texts.pop()


def _literal(node, module_dict: dict):
    """The value of a number, a name bound to one, or an attribute of a name (`args.dropout`)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return module_dict.get(node.id)
    if isinstance(node, ast.Attribute):
        owner = _literal(node.value, module_dict)
        return getattr(owner, node.attr, None) if owner is not None else None
    return None


def _text(node, tree: ast.AST) -> str | None:
    """The value's own text where the model can read it: a number, or a name (or its attribute) the script binds
    at its top level; None otherwise (a local of the function it trains in)."""
    if isinstance(node, ast.Constant):
        return repr(node.value)
    root = node
    while isinstance(root, ast.Attribute):
        root = root.value
    top = {t.id for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))
           for t in ast.walk(n) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
    return ast.unparse(node) if isinstance(root, ast.Name) and root.id in top else None
