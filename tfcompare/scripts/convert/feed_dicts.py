"""A feed dict the TF1 script builds only to hand to the next `Session.run` (`feed_dict = {X: batch_x}` then
`sess.run(train_op, feed_dict=feed_dict)`) is TF1 plumbing once that run is a call: its values go straight into
the call (`train_step(batch_x)`), and the dict goes.

Keys set right after the dict is built go into its literal first (`_fold`). Only where nothing can tell: every read
of the name is a `name['key']` (or `name.get('key', default)`) in the statement right after a binding of it to a
dict of string keys (a statement left a TODO reads none: its dict stays), each key read at most once (or its value
a name or a constant), and the dict's values compute nothing (names, attributes, subscripts, constants and
arithmetic on them), so moving them into the call changes no order of evaluation. A dict the next few statements
all read (the cookbook's `feed_dict = {X: test_boards}` for `logits = ...` and `predictions = ...`) goes into each
of them when its values are plain names and constants that none of them but the last rebinds: each reads what the
dict held.
"""

from __future__ import annotations

import ast

__all__ = ["inline_feed_dicts"]

_QUIET = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Slice, ast.Tuple, ast.List, ast.BinOp,
          ast.UnaryOp, ast.Compare, ast.expr_context, ast.operator, ast.unaryop, ast.cmpop)


def inline_feed_dicts(statements: list[list], names: set[str], commented: frozenset = frozenset()) -> None:
    """In place, in each list of `statements` and every block inside them: the feed dicts bound to one of `names`
    that only the statements right after them read, inlined there. `commented`: the lines with comments above them
    (the dict's go to the statement that takes its values, unless it has none and that statement has its own)."""
    if not names:
        return
    pairs: dict[str, list] = {}
    for block in statements:
        _pairs(block, names, pairs)
    everything = [s for block in statements for s in block]
    for name, found in pairs.items():
        used = [id(n) for s in everything for n in ast.walk(s) if isinstance(n, ast.Name) and n.id == name and
                isinstance(n.ctx, ast.Load)]
        covered = [id(n) for _, _, uses in found for use in uses for n in ast.walk(use)
                   if isinstance(n, ast.Name) and n.id == name]
        if sorted(used) != sorted(covered) or not all(_inlines(assign, use, name) and _kept(assign, uses, name)
                                                      for _, assign, uses in found for use in uses):
            continue
        for block, assign, uses in found:
            values = dict(zip((k.value for k in assign.value.keys), assign.value.values))
            for use in uses:
                _Replace(name, values).visit(use)
            anchor = getattr(assign, "comments_from", assign.lineno)
            if anchor in commented or getattr(uses[0], "comments_from", uses[0].lineno) not in commented:
                uses[0].comments_from = anchor  # the dict's comments: the call's
            block.remove(assign)


def _pairs(block: list, names: set[str], out: dict) -> None:
    for i, s in enumerate(block):
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and \
                s.targets[0].id in names and isinstance(s.value, ast.Dict):
            _fold(block, i)
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and \
                s.targets[0].id in names and isinstance(s.value, ast.Dict) and i + 1 < len(block):
            name, first = s.targets[0].id, _first_reader(block, i, s)
            uses = [block[first]]
            for later in block[first + 1:]:  # the statements after it that read it too, one after another
                if not any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(later)):
                    break
                uses.append(later)
            out.setdefault(name, []).append((block, s, uses))
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                _pairs(inner, names, out)
        for handler in getattr(s, "handlers", []):
            _pairs(handler.body, names, out)


def _fold(block: list, i: int) -> None:
    """The keys set right after the dict is built (`feed['initial_state'] = state`, char-rnn's state fed back) go
    into its literal, in place: evaluated in the same order, since nothing runs between. A key set again replaces
    its value only where that value computed nothing; a value that reads the dict stops the folding."""
    assign = block[i]
    name, literal = assign.targets[0].id, assign.value
    while i + 1 < len(block):
        s = block[i + 1]
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Subscript) and
                isinstance(s.targets[0].value, ast.Name) and s.targets[0].value.id == name and
                isinstance(s.targets[0].slice, ast.Constant) and isinstance(s.targets[0].slice.value, str)) or \
                any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(s.value)):
            return
        key = s.targets[0].slice.value
        keys = [k.value if isinstance(k, ast.Constant) else None for k in literal.keys]
        if key in keys:
            j = keys.index(key)
            if not all(isinstance(n, _QUIET) for n in ast.walk(literal.values[j])):
                return
            del literal.keys[j], literal.values[j]
        literal.keys.append(ast.Constant(key))
        literal.values.append(s.value)
        del block[i + 1]


def _first_reader(block: list, i: int, assign: ast.Assign) -> int:
    """The index of the first statement after `block[i]` that reads the dict, past plain statements that name
    neither it nor any name its values read (`lr_val = optimizer.learning_rate.numpy()`, read before the step as
    TF1 computed it): the values, evaluated there instead, are the same (a statement that only reads such a name
    may still change it in place, `np.random.shuffle(X)`: it stops the search)."""
    name = assign.targets[0].id
    read = {n.id for v in assign.value.values for n in ast.walk(v) if isinstance(n, ast.Name)} | {name}
    j = i + 1
    while j + 1 < len(block) and isinstance(block[j], (ast.Assign, ast.Expr)) and not any(
            isinstance(n, ast.Name) and n.id in read for n in ast.walk(block[j])):
        j += 1
    return j


def _inlines(assign: ast.Assign, use, name: str) -> bool:
    keys = assign.value.keys
    if not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in keys) or \
            len({k.value for k in keys}) != len(keys):
        return False
    if not all(isinstance(n, _QUIET) for v in assign.value.values for n in ast.walk(v)):
        return False
    reads = [n for n in ast.walk(use) if isinstance(n, ast.Name) and n.id == name]
    subscripts = [n for n in ast.walk(use) if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and
                  n.value.id == name]
    keyed = [n.slice.value for n in subscripts if isinstance(n.slice, ast.Constant)]
    got = [key for n in ast.walk(use) if (key := _got(n, name)) is not None]  # `feed.get('key', default)`
    values = {k.value: v for k, v in zip(keys, assign.value.values)}
    read = [*keyed, *got]
    # a key read twice puts its value in twice: only a name or a constant, which reads the same each time
    again = {key for key in read if read.count(key) > 1}
    return 0 < len(reads) == len(subscripts) + len(got) == len(read) and set(keyed) <= set(values) and \
        all(isinstance(values.get(key), (ast.Name, ast.Constant)) for key in again) and \
        all(isinstance(n.ctx, ast.Load) for n in subscripts)


def _got(node, name: str) -> str | None:
    """The key of `name.get('key', default)` whose default computes nothing, else None: the dict's value there, or
    the default where the dict has no such key (a run that does not feed the RNN's state: its zero state)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and \
            isinstance(node.func.value, ast.Name) and node.func.value.id == name and len(node.args) == 2 and \
            not node.keywords and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str) and \
            all(isinstance(n, _QUIET) for n in ast.walk(node.args[1])):
        return node.args[0].value
    return None


def _kept(assign: ast.Assign, uses: list, name: str) -> bool:
    """Read by several statements: its values are names and constants, and no statement but the last rebinds one
    of them or the dict's name, so each reads what the dict held."""
    if len(uses) == 1:
        return True
    plain = (ast.Name, ast.Constant, ast.Tuple, ast.List, ast.expr_context)
    if not all(isinstance(n, plain) for v in assign.value.values for n in ast.walk(v)):
        return False
    read = {n.id for v in assign.value.values for n in ast.walk(v) if isinstance(n, ast.Name)} | {name}
    return not any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in read
                   for use in uses[:-1] for n in ast.walk(use))


class _Replace(ast.NodeTransformer):
    def __init__(self, name: str, values: dict):
        self.name, self.values = name, values

    def visit_Call(self, node):
        key = _got(node, self.name)
        return self.generic_visit(node) if key is None else self.values.get(key, node.args[1])

    def visit_Subscript(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == self.name and isinstance(node.slice, ast.Constant):
            return self.values[node.slice.value]
        return self.generic_visit(node)
