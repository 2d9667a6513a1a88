"""Batch norm moving averages TF1's train op updated (UPDATE_OPS as its control dependencies), read from the graph
so the TF2 step updates the same non-trainable variables the same way.

TF 1.15's `contrib.layers.batch_norm` (and a hand-written `nn.fused_batch_norm` + `assign_moving_average`)
updates each moving statistic with `moving_averages.assign_moving_average(v, value, decay)`:
`v -= (v - value) * (1 - decay)`, `value` the fused kernel's batch mean, or its batch variance as the kernel
returns it (with Bessel's correction n / (n - 1)). That form is written; any other (`zero_debias=True`'s biased
copy and step counter, a decay computed from a tensor) stays a TODO.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from tfcompare.core.graphs import ancestors
from tfcompare.scripts.convert.ops import source_line

__all__ = ["Update", "moving_average_updates", "other_assignments", "FUSED_BATCH_NORM"]

FUSED_BATCH_NORM = ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
_ASSIGN_SUB = ("AssignSub", "AssignSubVariableOp")
_ASSIGN = ("Assign", "AssignAdd", "AssignVariableOp", "AssignAddVariableOp", *_ASSIGN_SUB, "ScatterUpdate",
           "ResourceScatterUpdate")
_READ = ("Identity", "ReadVariableOp", "Snapshot")
_VARIABLE_OPS = ("VariableV2", "VarHandleOp", "Variable")


@dataclasses.dataclass
class Update:
    variable: object  # the TF1 moving variable (tf.Variable)
    output: int  # 1 batch mean, 2 batch variance (outputs of the fused kernel)
    factor: float  # 1 - decay, as the graph's float32 constant
    where: str = ""  # "TF1 line N: ..." of the update
    attr: str = ""  # the attribute on the written model


def _variable_op(t):
    """The variable op a tensor reads or refers to, through reads and identities, or None."""
    op = t.op
    while op.type in _READ and op.inputs:
        op = op.inputs[0].op
    return op if op.type in _VARIABLE_OPS else None


def _constant(t):
    op = t.op
    while op.type in ("Identity", "Cast") and op.inputs:
        op = op.inputs[0].op
    if op.type != "Const":
        return None
    import tensorflow as tf

    value = tf.make_ndarray(op.get_attr("value"))
    return float(value) if value.ndim == 0 else None


def _update(assign, variables: dict):
    """(batch norm op, Update) when `assign` is `v.assign_sub((v - bn.batch_stat) * const)`, else None."""
    target = _variable_op(assign.inputs[0])
    mul = assign.inputs[1].op
    if target is None or target.name not in variables or mul.type != "Mul" or target.name.endswith("/biased"):
        return None  # `biased`: zero_debias's copy (moving_averages._zero_debias), whose debiased value v gets
    for sub, decay in (mul.inputs, mul.inputs[::-1]):
        factor = _constant(decay)
        if factor is None or sub.op.type != "Sub":
            continue
        read, stat = sub.op.inputs
        if _variable_op(read) is not target or stat.op.type not in FUSED_BATCH_NORM or stat.value_index not in (1, 2):
            continue
        return stat.op, Update(variables[target.name], stat.value_index, float(np.float32(factor)))
    return None


def moving_average_updates(graph, train_op, loss, script: str, lines: list[str]) -> tuple[dict, list]:
    """({batch norm op name: [Update]}, [batch norm ops in training mode whose moving statistics the train op
    updated in a form not written]). Only updates the train op runs count: a script that never runs UPDATE_OPS
    has none to carry. Updates the loss itself waits on (`updates_collections=None`: every run of the loss, an
    evaluation too, updates) are not written: the written step updates only when it trains."""
    import tensorflow as tf

    train, forced = ancestors([train_op]), ancestors([loss])
    variables = {v.op.name: v for v in graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)}
    found: dict[str, list[Update]] = {}
    for op in sorted(train, key=lambda o: o._id):
        if op.type not in _ASSIGN_SUB:
            continue
        hit = _update(op, variables)
        if hit is None:
            continue
        bn, update = hit
        if op in forced:
            continue
        line = source_line(op, script, lines)
        update.where = f"TF1 line {line[0]}" if line else ""
        found.setdefault(bn.name, []).append(update)
    unwritten = []
    for op in sorted(train, key=lambda o: o._id):
        if op.type not in FUSED_BATCH_NORM or not op.get_attr("is_training"):
            continue
        written = {u.output for u in found.get(op.name, [])}
        used = {t.value_index for t in op.outputs[1:3] for c in t.consumers() if c in train}
        if used - written:
            found.pop(op.name, None)  # one form not written: the whole batch norm is a TODO, never half of it
            unwritten.append(op)
    return found, unwritten


def other_assignments(train_op, found: dict, unwritten: list, script: str, lines: list[str]) -> list[tuple]:
    """(variable name, "TF1 line N" or "") of each assignment TF1's train op ran that the TF2 step does not write:
    not the optimizer's own (made inside `apply_gradients`: its slots, powers, the global step), not a moving
    average written from `found`, not an `assign_moving_average` of a batch norm already a TODO (`unwritten`: it
    feeds the assignment, or has its TF1 line). A hand-written `tf.assign(pop_mean, ...)` under the train op is
    one."""
    written = {u.variable.op.name for us in found.values() for u in us}
    todo_lines = {source_line(op, script, lines) for op in unwritten} - {None}
    out = []
    for op in sorted(ancestors([train_op]), key=lambda o: o._id):
        if op.type not in _ASSIGN or any(f.name == "apply_gradients" for f in (op.traceback or [])):
            continue
        target = _variable_op(op.inputs[0])
        line = source_line(op, script, lines)
        averaging = any(f.name == "assign_moving_average" for f in (op.traceback or []))
        if (target is not None and target.name in written) or (averaging and (
                line in todo_lines or any(bn in ancestors([op]) for bn in unwritten))):
            continue
        name = target.name if target is not None else op.inputs[0].name
        out.append((name, f"TF1 line {line[0]}" if line else ""))
    return list(dict.fromkeys(out))
