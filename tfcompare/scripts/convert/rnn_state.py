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

__all__ = ["StateFeed", "state_feeds", "stacked_states", "state_tensors", "zero_state_lines"]


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
    zero-state tensors it stands for (c, h of an LSTM; h of a GRU), `shape` its stacked shape."""

    name: str
    op: _FedOp
    members: list
    shape: object
    dtype: object
    global_name: str
    line: int | None = None
    value_index: int = 0


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
        if not initial or group.kind not in ("lstm", "gru") or any(t.shape.rank != 2 or not t.shape.is_fully_defined()
                                                                   for t in initial) or \
                len({tuple(t.shape.as_list()) for t in initial}) != 1:  # a projected LSTM's h: not stacked with c
            continue
        bound = sorted(k for k, v in module_dict.items() if k in keys and k.isidentifier() and
                       [t.name for t in state_tensors(v, tf) or ()] == [t.name for t in initial])
        if not bound:
            continue
        shape = [len(initial), *initial[0].shape.as_list()] if group.kind == "lstm" else initial[0].shape.as_list()
        op = _FedOp(f"{bound[0]}/fed_state", initial[0].op._id)
        feed = StateFeed(f"{bound[0]}/fed_state:0", op, list(initial), tf.TensorShape(shape), initial[0].dtype,
                         bound[0], _line(tree, bound[0]))
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
        if group.kind != "lstm" or group.params.get("state") is None or graph.finalized:  # a MonitoredSession's
            # graph takes no op: the final state's fetch is then marked
            continue
        for key, value in module_dict.items():
            parts = state_tensors(value, tf)
            if parts is not None and len(parts) == 2 and key.isidentifier() and \
                    [group.params["index"].get(t.name) for t in parts] == [(1, 0), (1, 1)]:
                with graph.as_default():
                    states[key] = tf.stack(parts, name=f"{key}_stacked")
    return states


def zero_state_lines(feeds: list[StateFeed]) -> list[str]:
    """The TF2 script's globals the script fed: the zero state each RNN starts from, as its zero_state was."""
    lines = []
    for feed in feeds:
        where = f"TF1 line {feed.line}: " if feed.line else ""
        kind = "c and h stacked" if len(feed.members) == 2 else "h"
        lines.append(f"{feed.global_name} = tf.zeros({literal(feed.shape.as_list())}, tf.{feed.dtype.name})  "
                     f"# {where}the RNN's zero state ({kind}); the script feeds its final state back")
    return lines


def _unique(groups) -> list:
    """Each group once (a group is the value of each of its outputs' names), in order."""
    return list({id(g): g for g in groups}.values())


def state_tensors(value, tf) -> list | None:
    """The tensors of an RNN state: a tuple of tensors (an LSTMStateTuple) or one tensor; None for anything else."""
    if isinstance(value, tf.Tensor):
        return [value]
    if isinstance(value, tuple) and value and all(isinstance(t, tf.Tensor) for t in value):
        return list(value)
    return None


def _line(tree, name: str) -> int | None:
    """The line of the script's first binding of `name`."""
    found = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Assign)
             for t in n.targets if isinstance(t, ast.Name) and t.id == name]
    return min(found, default=None)
