"""A Session.run's TF2 expression as the statements a reviewer reads: `_, c = (None, train_step(x).numpy())` as
`c = train_step(x).numpy()`; the immediately-called lambda that keeps TF1's order of a step fetched with other
tensors as one statement per value, in that order.
"""

from __future__ import annotations

import ast
import copy

__all__ = ["picked", "unpacked"]


def picked(elts: list, index) -> list | None:
    """The elements a slice of literal bounds picks; None for any other subscript."""
    if not isinstance(index, ast.Slice):
        return None
    try:
        bounds = [None if b is None else ast.literal_eval(b) for b in (index.lower, index.upper, index.step)]
    except (ValueError, TypeError):
        return None
    return elts[slice(*bounds)] if all(b is None or type(b) is int for b in bounds) else None


def unpacked(stmt) -> list:
    """`_, c = (None, train_step(x).numpy())` (a train op's place in TF1's fetch list) as `c = ...`: the `_`
    that took the train op's None and the None itself go; `loss, acc = [loss_of(x), accuracy(x)]` (TF1's fetch
    list) as one assignment per name, in TF1's order, when no value reads a name assigned before it;
    `_, l, acc = (lambda value_0, loss_value: (None, loss_value, value_0))(accuracy(x), train_step(x).numpy())`
    (a step fetched with other tensors) as one assignment per name in the order TF1 computed them. Other
    statements are as they were."""
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Lambda):
        return _in_order(stmt) or [stmt]
    starred = [i for i, e in enumerate(stmt.value.elts) if isinstance(e, ast.Starred)] \
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Tuple) else []
    if len(starred) == 1 and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple):
        # `_, acc, pred = (None, *[...])`, `l, s, _ = (*[...], None)` (_from_step): the train ops' `_` go
        at, elts, targets = starred[0], stmt.value.elts, stmt.targets[0].elts
        trail = len(elts) - at - 1
        middle = targets[at:len(targets) - trail]
        if len(middle) > 1 and all(isinstance(t, ast.Name) and t.id == "_" for t in targets[:at] + targets[
                len(targets) - trail:]) and all(isinstance(e, ast.Constant) and e.value is None
                                                for e in elts[:at] + elts[at + 1:]):
            return [ast.copy_location(ast.Assign([ast.Tuple(middle, ast.Store())], elts[at].value), stmt)]
        return [stmt]
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Tuple) and stmt.value.elts and \
            all(isinstance(e, ast.Call) for e in stmt.value.elts):  # side-by-side steps: one call a line
        return [ast.copy_location(ast.Expr(e), stmt) for e in stmt.value.elts]
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)
            and isinstance(stmt.value, (ast.Tuple, ast.List)) and len(stmt.targets[0].elts) == len(stmt.value.elts)
            and not any(isinstance(t, ast.Starred) for t in stmt.targets[0].elts)):
        return [stmt]
    kept = [(t, v) for t, v in zip(stmt.targets[0].elts, stmt.value.elts)
            if not (isinstance(t, ast.Name) and t.id == "_" and isinstance(v, ast.Constant) and v.value is None)]
    if not kept:
        return [stmt]
    stored = {n.id for t, _ in kept for n in ast.walk(t) if isinstance(n, ast.Name)}
    read = {n.id for _, v in kept for n in ast.walk(v) if isinstance(n, ast.Name)}
    if all(isinstance(t, ast.Name) for t, _ in kept) and not stored & read:
        return [ast.copy_location(ast.Assign([t], v), stmt) for t, v in kept]
    if len(kept) == len(stmt.value.elts):
        return [stmt]
    return [ast.copy_location(ast.Assign([ast.Tuple([t for t, _ in kept], ast.Store())],
                                         ast.Tuple([v for _, v in kept], ast.Load())), stmt)]


def _in_order(stmt) -> list | None:
    """The immediately-called lambda `_run` writes for a step fetched with other tensors, as one statement per
    value in the lambda's argument order (the order TF1 computed them); None where a value is not a bare
    argument or None, or a name assigned is read by a value."""
    call, targets = stmt.value, stmt.targets[0]
    lam = call.func
    params = [a.arg for a in lam.args.args]
    if not (len(stmt.targets) == 1 and isinstance(targets, ast.Tuple) and isinstance(lam.body, ast.Tuple)
            and len(targets.elts) == len(lam.body.elts) and len(params) == len(call.args) and not call.keywords
            and all(isinstance(t, ast.Name) for t in targets.elts)):
        return None
    taken: dict[str, list] = {}
    picked: dict[int, ast.Name] = {}  # a step's values (`losses_N[i]` of `_joint`, `values_N[i]`) each name takes
    joint = next((p for p in params if p.split("_")[0] in ("losses", "values") and p.split("_")[-1].isdigit()
                  and p.count("_") == 1), None)
    merged = []  # (target, [(key, value)]): a fetched summary's values the step returns, set in its dict after it
    for t, v in zip(targets.elts, lam.body.elts):
        if isinstance(v, ast.Name) and v.id in params:
            taken.setdefault(v.id, []).append(t)
        elif isinstance(v, ast.Dict) and v.keys and v.keys[0] is None and isinstance(v.values[0], ast.Name) and \
                v.values[0].id in params:  # `{**value_0, 'loss': (tf.summary.scalar, loss_value)}`
            taken.setdefault(v.values[0].id, []).append(t)
            merged += [(t, list(zip(v.keys[1:], v.values[1:])))] if t.id != "_" else []
        elif isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name) and v.value.id == joint and \
                isinstance(v.slice, ast.Constant) and type(v.slice.value) is int and v.slice.value not in picked:
            picked[v.slice.value] = t
        elif not (isinstance(v, ast.Constant) and v.value is None):
            return None
    names = [t.id for t in targets.elts if t.id != "_"]
    if len(set(names)) != len(names) or any(len(ts) > 1 for ts in taken.values()):
        return None
    completed = _completions(merged, params, joint, taken, picked, names)
    if completed is None:
        return None
    bound: set = set()  # a statement may read a name (the state it feeds back) only before one assigns it
    for param, value in zip(params, call.args):
        if {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} & bound:
            return None
        bound |= {t.id for t in (picked.values() if param == joint else taken.get(param, [])) if t.id != "_"}
    out = []
    for param, value in zip(params, call.args):
        kept = {i: t for i, t in picked.items() if t.id != "_"}
        if param == joint and kept:  # `Dl = train_step(x, z)[0].numpy()`, or each value unpacked
            read = _numpy_list(value)  # `values_N` is `[value.numpy() for value in step(...)]`, `losses_N` the call
            call = ast.unparse(value if read is None else read)
            if len(kept) == 1:
                (i, target), = kept.items()
                out.append(ast.Assign([target], ast.parse(f"{call}[{i}].numpy()", mode="eval").body))
            else:
                names = ", ".join(kept[i].id if i in kept else "_" for i in range(int(joint.split("_")[1])))
                each = "loss" if joint.startswith("losses") else "value"
                out.append(ast.parse(f"{names} = ({each}.numpy() for {each} in {call})").body[0])
            continue
        target = taken.get(param, [None])[0]
        if target is None or target.id == "_":  # its value is not kept: the call runs for what it does
            unused = isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                value.func.attr == "numpy" and not value.args
            out.append(ast.Expr(value.func.value if unused else value))
        else:
            out.append(ast.Assign([target], value))
    out += [ast.Assign([t], ast.Constant(None)) for t, v in zip(targets.elts, lam.body.elts)
            if t.id != "_" and isinstance(v, ast.Constant)] + completed
    return [ast.copy_location(s, stmt) for s in out]


def _completions(merged: list, params: list, joint, taken: dict, picked: dict, names: list) -> list | None:
    """`summ['loss'] = (tf.summary.scalar, train_loss)`: each value a fetched summary takes from the step, set after
    the step's statement, read from the name the script gave it; a step value no name keeps is bound to the
    lambda's own parameter name (`loss_value = train_step(x).numpy()`). None where one cannot be read so."""
    out = []
    for target, items in merged:
        for key, value in items:
            for n in ast.walk(value):
                if isinstance(n, ast.Name) and n.id in params and n.id != joint and \
                        taken.get(n.id, [ast.Name("_")])[0].id == "_":
                    if n.id in names:
                        return None
                    taken[n.id] = [ast.Name(n.id, ast.Store())]
            for n in ast.walk(value):  # a step value no name keeps: `loss_value = train_step(x)[0].numpy()`
                if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == joint and \
                        isinstance(n.slice, ast.Constant) and picked.get(n.slice.value, ast.Name("_")).id == "_":
                    own = "loss_value" if n.slice.value == 0 else f"value_{n.slice.value}"
                    if own in names or own in params:
                        return None
                    picked[n.slice.value] = ast.Name(own, ast.Store())
            value = _Renamed(taken, joint, picked).visit(copy.deepcopy(value))
            if value is None or any(isinstance(n, ast.Name) and n.id == joint for n in ast.walk(value)):
                return None  # a step value no name keeps, of several
            out.append(ast.Assign([ast.Subscript(ast.Name(target.id, ast.Load()), key, ast.Store())], value))
    return out


class _Renamed(ast.NodeTransformer):
    """A lambda's parameters, and `values_N[i]`, as the names the statements bind them to."""

    def __init__(self, taken: dict, joint, picked: dict):
        self.taken, self.joint, self.picked = taken, joint, picked

    def visit_Name(self, node):
        return ast.Name(self.taken[node.id][0].id, ast.Load()) if node.id in self.taken else node

    def visit_Subscript(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == self.joint and isinstance(node.slice, ast.Constant) \
                and node.slice.value in self.picked and self.picked[node.slice.value].id != "_":
            return ast.Name(self.picked[node.slice.value].id, ast.Load())
        return self.generic_visit(node)


def _numpy_list(value):
    """The step call of `[value.numpy() for value in step(...)]`, or None for another expression."""
    if isinstance(value, ast.ListComp) and len(value.generators) == 1 and isinstance(value.elt, ast.Call) and \
            isinstance(value.elt.func, ast.Attribute) and value.elt.func.attr == "numpy":
        return value.generators[0].iter
    return None
