"""A stateful RNN: the script feeds the RNN's last state back as the next run's initial state
(`init_s = cell.zero_state(1, tf.float32)`, `dynamic_rnn(..., initial_state=init_s)`, then
`sess.run([train_op, final_s], {tf_x: x, init_s: final_s_})`: MorvanZhou's RNN regression).

TF1 takes the fed value in place of the zero-state tensors. The TF2 model takes the state as an argument of the
methods that read the RNN: one tensor, an LSTM's c and h stacked (`tf.stack`, c first, as LSTMStateTuple orders
them), so the value the step returns is the next call's argument and reads as a NumPy array, as TF1's fetch did.
The global the script feeds (`init_s`) is the zero state in the TF2 script, and a run whose feed does not give the
state passes it, as TF1 ran from the zeros. The final state the script fetches is the same stack, a Pack op the
child adds to the graph once it has read it (it then stops the script: no run of the script sees the op).
"""

from __future__ import annotations

import ast
import dataclasses

from tfcompare.core.generated_code import literal

__all__ = ["StateFeed", "cell_feed_loops", "zero_state_runs", "state_feeds", "stacked_states", "state_tensors",
           "zero_state_lines"]


@dataclasses.dataclass(eq=False)
class _FedOp:
    """What the writer reads of a fed tensor's op: a placeholder with a default (the zeros), of no script line."""

    name: str
    _id: int
    outputs: list = dataclasses.field(default_factory=list)
    inputs: tuple = ()
    control_inputs: tuple = ()
    traceback: tuple = ()
    type: str = "PlaceholderWithDefault"


@dataclasses.dataclass(eq=False)
class StateFeed:
    """The initial state of one RNN the script feeds, as one fed tensor of the writer: `members` are the TF1
    zero-state tensors it stands for (c, h of an LSTM; h of a GRU; each cell's of a MultiRNNCell), `shape` its
    stacked shape."""

    name: str
    op: _FedOp
    members: list
    shape: object
    dtype: object
    global_name: str
    line: int | None = None
    value_index: int = 0
    per_cell: int = 1  # 2: an LSTM's (c, h)
    stacked: bool = False  # a MultiRNNCell's: one state per cell, stacked first


def state_feeds(tree, module_dict: dict, groups: dict, tf) -> list[StateFeed]:
    """The initial states the script feeds (a feed_dict literal's key, or `feed[key] = ...`, naming the global bound
    to a dynamic_rnn's or static_rnn's zero `initial_state`), each marked on its group, which then takes it as its
    last input."""
    keys = {k.id for node in ast.walk(tree) if isinstance(node, ast.Dict)
            for k in node.keys if isinstance(k, ast.Name)}
    keys |= {node.slice.id for node in ast.walk(tree) if isinstance(node, ast.Subscript) and  # feed[init_s] = s
             isinstance(node.ctx, ast.Store) and isinstance(node.slice, ast.Name)}
    out = []
    for group in _unique(groups.values()):
        initial = group.params.get("initial") or []
        per_cell = _per_cell(group)
        if not initial or per_cell is None or any(t.shape.rank != 2 or not t.shape.is_fully_defined()
                                                  for t in initial) or \
                len({tuple(t.shape.as_list()) for t in initial}) != 1:  # a projected LSTM's h: not stacked with c
            continue
        bound = sorted(k for k, v in module_dict.items() if k in keys and k.isidentifier() and
                       [t.name for t in state_tensors(v, tf) or ()] == [t.name for t in initial])
        if not bound:
            continue
        shape = ([len(initial) // per_cell] if group.kind == "stack" else []) + \
            ([2] if per_cell == 2 else []) + initial[0].shape.as_list()  # [cells, c and h, batch, units]
        op = _FedOp(f"{bound[0]}/fed_state", initial[0].op._id)
        feed = StateFeed(f"{bound[0]}/fed_state:0", op, list(initial), tf.TensorShape(shape), initial[0].dtype,
                         bound[0], _line(tree, bound[0]), per_cell=per_cell, stacked=group.kind == "stack")
        op.outputs.append(feed)
        group.inputs = [*group.inputs, feed]
        group.params["state"] = feed
        out.append(feed)
    return out


def stacked_states(module_dict: dict, groups: dict, graph, tf) -> dict:
    """{global name: a tensor stacking an RNN group's final state} for each global bound to an LSTM's state tuple
    (c, h) the group computes: the value the script fetches to feed back. The stack is made in the TF1 graph (a
    Pack op, added by convert's child once it has read the graph, which then stops the script: no run of the
    script sees it) so the writer translates it as any fetched tensor."""
    states = {}
    for group in _unique(groups.values()):
        per_cell = _per_cell(group)
        if per_cell is None or (group.kind == "gru" and per_cell == 1) or group.params.get("state") is None or \
                graph.finalized:  # a MonitoredSession's graph takes no op: the final state's fetch is then marked
            continue
        cells = len(group.params["layers"]) if group.kind == "stack" else 1
        want = [(1, i, n) if group.kind == "stack" else (1, i) for n in range(cells)
                for i in ((0, 1) if per_cell == 2 else (None,))]
        for key, value in module_dict.items():
            parts = state_tensors(value, tf)
            if parts is None or not key.isidentifier() or \
                    [group.params["state_index"].get(t.name) for t in parts] != want:
                continue
            with graph.as_default():
                if group.kind == "stack" and per_cell == 2:  # each cell's (c, h), then the cells
                    parts = [tf.stack(parts[n:n + 2], name=f"{key}_cell_{n // 2}") for n in range(0, len(parts), 2)]
                states[key] = tf.stack(parts, name=f"{key}_stacked")
    return states


def _per_cell(group) -> int | None:
    """How many state tensors each cell of an RNN group has: 2 for an LSTM's (c, h), 1 for a GRU's h, the same for
    every cell of a stack; None for any other group."""
    kinds = [kind for kind, _, _ in group.params["layers"]] if group.kind == "stack" else [group.kind]
    if not kinds or any(kind != kinds[0] for kind in kinds) or kinds[0] not in ("lstm", "gru"):
        return None
    return 2 if kinds[0] == "lstm" else 1


def zero_state_lines(feeds: list[StateFeed]) -> list[str]:
    """The TF2 script's globals the script fed: the zero state each RNN starts from, as its zero_state was."""
    lines = []
    for feed in feeds:
        where = f"TF1 line {feed.line}: " if feed.line else ""
        kind = ("each cell's " if feed.stacked else "") + ("c and h" if feed.per_cell == 2 else "h") + \
            (" stacked" if feed.shape.rank > 2 else "")
        lines.append(f"{feed.global_name} = tf.zeros({literal(feed.shape.as_list())}, tf.{feed.dtype.name})  "
                     f"# {where}the RNN's zero state ({kind}); the script feeds its final state back")
    return lines


def _unique(groups) -> list:
    """Each group once (a group is the value of each of its outputs' names), in order."""
    return list({id(g): g for g in groups}.values())


def state_tensors(value, tf) -> list | None:
    """The tensors of an RNN state: a tuple of tensors (an LSTMStateTuple), a tuple of such (a MultiRNNCell's, cell by
    cell) or one tensor; None for anything else."""
    if isinstance(value, tf.Tensor):
        return [value]
    if not isinstance(value, tuple) or not value:
        return None
    parts = [state_tensors(part, tf) for part in value]
    return None if any(p is None for p in parts) else [t for p in parts for t in p]


def _line(tree, name: str) -> int | None:
    """The line of the script's first binding of `name`."""
    found = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Assign)
             for t in n.targets if isinstance(t, ast.Name) and t.id == name]
    return min(found, default=None)


def cell_feed_loops(tree) -> list[tuple]:
    """[(loop, state, value source)] for each loop feeding a MultiRNNCell's state cell by cell, char-rnn's
        for i, (c, h) in enumerate(model.initial_state):
            feed[c] = state[i].c
            feed[h] = state[i].h
    (`state[i][0]`, `state[i][1]` too; a GRU stack's `for i, h in enumerate(...)`: `feed[h] = state[i]`): TF1 feeds
    the whole state `state` in place of `model.initial_state`, which the rewrite writes as one feed."""
    out = []
    for loop in ast.walk(tree):
        if not (isinstance(loop, ast.For) and not loop.orelse and isinstance(loop.iter, ast.Call) and
                isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "enumerate" and
                len(loop.iter.args) == 1 and not loop.iter.keywords and isinstance(loop.target, ast.Tuple) and
                len(loop.target.elts) == 2 and isinstance(loop.target.elts[0], ast.Name)):
            continue
        index, parts = loop.target.elts[0].id, loop.target.elts[1]
        parts = [p.id if isinstance(p, ast.Name) else None for p in
                 (parts.elts if isinstance(parts, ast.Tuple) else [parts])]
        if None in parts or len(parts) not in (1, 2) or len(loop.body) != len(parts):
            continue
        values = [_cell_feed(stmt, part, index, n if len(parts) == 2 else None)
                  for n, (stmt, part) in enumerate(zip(loop.body, parts))]
        if None in values or len(set(values)) != 1 or \
                len({ast.unparse(stmt.targets[0].value) for stmt in loop.body}) != 1:  # one dict fed
            continue
        out.append((loop, loop.iter.args[0], values[0]))
    return out


def _cell_feed(stmt, part: str, index: str, n: int | None) -> str | None:
    """The fed state's source if `stmt` is `feed[part] = S[index]` (a GRU's) or, for an LSTM's c (`n` 0) or h (1),
    `feed[part] = S[index].c` / `S[index][0]`; None otherwise."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)
            and isinstance(stmt.targets[0].value, ast.Name) and isinstance(stmt.targets[0].slice, ast.Name)
            and stmt.targets[0].slice.id == part):
        return None
    value = stmt.value
    if n is not None:
        if isinstance(value, ast.Attribute) and value.attr == "ch"[n]:
            value = value.value
        elif isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and value.slice.value == n:
            value = value.value
        else:
            return None
    if not (isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Name) and value.slice.id == index):
        return None
    state = value.value
    reads = {x.id for x in ast.walk(state) if isinstance(x, ast.Name)}
    return None if reads & {part, index} else ast.unparse(state)


def zero_state_runs(tree, namespace: dict, sessions: set, tf) -> dict:
    """{span: `np.zeros([...], np.float32)`} for each `sess.run(cell.zero_state(batch, tf.float32))` (char-rnn's
    sampling starts so): the zeros TF1 returned, in the layout the rewrite's state has (a MultiRNNCell's cells
    first, then an LSTM's c and h, then the batch)."""
    out = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run" and
                isinstance(node.func.value, ast.Name) and node.func.value.id in sessions and len(node.args) == 1
                and not node.keywords):
            continue
        call = node.args[0]
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and
                call.func.attr == "zero_state" and len(call.args) == 2 and not call.keywords):
            continue
        try:
            cell, batch, dtype = (eval(compile(ast.Expression(x), "<zero_state>", "eval"), {}, dict(namespace))
                                  for x in (call.func.value, *call.args))
        except Exception:
            continue
        shape = _state_shape(getattr(cell, "state_size", None))
        if shape is None or type(batch) is not int or getattr(dtype, "name", None) != "float32":
            continue
        *outer, units = shape
        out[(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)] = \
            f"np.zeros({[*outer, batch, units]}, np.float32)"
    return out


def _state_shape(size) -> list | None:
    """[units], [2, units] (an LSTM's), [cells, ...] (a stack's, every cell alike) of a cell's `state_size`."""
    if type(size) is int:
        return [size]
    if isinstance(size, tuple) and type(size).__name__ == "LSTMStateTuple" and size[0] == size[1] and \
            type(size[0]) is int:
        return [2, size[0]]
    if isinstance(size, tuple) and size:
        cells = [_state_shape(part) for part in size]
        if None not in cells and all(c == cells[0] for c in cells) and len(cells[0]) < 3:
            return [len(cells), *cells[0]]
    return None
