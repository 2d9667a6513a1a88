"""Batch norm moving averages TF1's train op updated (UPDATE_OPS as its control dependencies), read from the graph
so the TF2 step updates the same non-trainable variables the same way.

TF 1.15's `contrib.layers.batch_norm` (and a hand-written `nn.fused_batch_norm` + `assign_moving_average`)
updates each moving statistic with `moving_averages.assign_moving_average(v, value, decay)`:
`v -= (v - value) * (1 - decay)`, `value` the fused kernel's batch mean, or its batch variance as the kernel
returns it (with Bessel's correction n / (n - 1)). That form is written; any other (`zero_debias=True`'s biased
copy and step counter, a decay computed from a tensor) is written as any other assignment the train op ran to a
non-trainable variable (`assignments`): the assigned value translated op by op, under `if <flag>:` where TF1 ran it
inside a `tf.cond` (`tf.layers.batch_normalization(training=is_training)`'s updates, a hand-written
`tf.assign(pop_mean, ...)`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from tfcompare.core.graphs import ancestors
from tfcompare.scripts.convert.naming import INDENT
from tfcompare.scripts.convert.ops import Line
from tfcompare.scripts.convert.tf1_lines import source_line
from tfcompare.scripts.convert.tensor_ops import unwrapped

__all__ = ["Update", "Assignment", "moving_average_updates", "assignments", "assignment_lines", "other_assignments",
           "idle_variables", "FUSED_BATCH_NORM"]

FUSED_BATCH_NORM = ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
_ASSIGN_SUB = ("AssignSub", "AssignSubVariableOp")
_ASSIGN = ("Assign", "AssignAdd", "AssignVariableOp", "AssignAddVariableOp", *_ASSIGN_SUB, "ScatterUpdate",
           "ResourceScatterUpdate")
_READ = ("Identity", "ReadVariableOp", "Snapshot", "RefSwitch", "Switch")
_METHOD = {"Assign": "assign", "AssignVariableOp": "assign", "AssignAdd": "assign_add",
           "AssignAddVariableOp": "assign_add", "AssignSub": "assign_sub", "AssignSubVariableOp": "assign_sub"}
_VARIABLE_OPS = ("VariableV2", "VarHandleOp", "Variable")


@dataclasses.dataclass
class Update:
    variable: object  # the TF1 moving variable (tf.Variable)
    output: int  # 1 batch mean, 2 batch variance (outputs of the fused kernel)
    factor: float  # 1 - decay, as the graph's float32 constant
    where: str = ""  # "TF1 line N: ..." of the update
    attr: str = ""  # the attribute on the written model


@dataclasses.dataclass
class Assignment:
    op: object  # the TF1 assign op its train op ran
    variable: object  # the non-trainable tf.Variable it assigns
    when: object = None  # the predicate of the tf.cond it runs in, or None
    negated: bool = False  # in the cond's false branch
    where: str = ""


def _optimizers_own(op) -> bool:
    """Made by an optimizer (its slots, powers and updates): the Keras optimizer has its own."""
    return any(f.name in ("apply_gradients", "minimize", "_create_slots", "_prepare") for f in (op.traceback or []))


def idle_variables(graph) -> dict:
    """{op name: tf.Variable} of the global variables that are not trainable and not an optimizer's own: moving
    statistics, counters, a hand-kept average. The rewrite holds each as a `tf.Variable(trainable=False)`."""
    import tensorflow as tf

    trainable = {v.op.name for v in graph.get_collection(tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES)}
    return {v.op.name: v for v in graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
            if v.op.name not in trainable and not _optimizers_own(v.op)}


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


def assignments(graph, train_op, loss, found: dict, idle: dict, script: str, lines: list[str]) -> list[Assignment]:
    """Each assignment TF1's train op ran (its UPDATE_OPS, a control dependency) to a non-trainable variable, other
    than the optimizer's and the batch norm updates in `found`; in a tf.cond, with its predicate. Not those the
    loss waits on unconditionally (they run at every evaluation too), nor those in nested conds or while loops.
    One the loss waits on inside a tf.cond of a flag (a hand-written batch norm's `ema.apply` of its moments under
    `tf.cond(is_training, ...)`) runs where the flag says training, as the written step's does."""
    fused = {u.variable.op.name for us in found.values() for u in us}
    forced = ancestors([loss])
    out = []
    for op in sorted(ancestors([train_op]), key=lambda o: o._id):
        if op.type not in _METHOD or _optimizers_own(op) or _debiasing(op):
            continue
        target, when, negated = op.inputs[0], None, False
        if target.op.type in ("RefSwitch", "Switch"):
            when, negated = unwrapped(target.op.inputs[1]), target.value_index == 0
            if when.op.type in ("Switch", "RefSwitch", "Merge") or op._control_flow_context is None or \
                    op._control_flow_context.outer_context is not None:
                continue  # nested, or a loop's
        elif op._control_flow_context is not None:
            continue
        if op in forced and (when is None or when.op.type != "Placeholder"):
            continue
        variable = _variable_op(target)
        if variable is None or variable.name not in idle or variable.name in fused:
            continue
        line = source_line(op, script, lines)
        out.append(Assignment(op, idle[variable.name], when, negated, f"TF1 line {line[0]}" if line else ""))
    return out


def _debiasing(op) -> bool:
    """Part of zero_debias's biased copy and step counter, or reading another assignment's result: not written
    op by op (the batch norm stays a TODO, never half of it)."""
    return any(f.name == "_zero_debias" for f in (op.traceback or [])) or \
        any(a.type in _ASSIGN for a in ancestors([op.inputs[1]], control=False))


def assignment_lines(tr, items: list[Assignment]) -> None:
    """Write `items` at the end of the function `tr` is writing (the loss's), run when the step asks
    (`update_moving_averages`): the value as the translator writes it, the assignment under the cond's flag."""
    if not items:
        return
    tr.lines.append(Line("if update_moving_averages:", "TF1's train op ran these assignments (UPDATE_OPS)"))
    head, guard = len(tr.lines), None
    for item in items:
        value = tr.value(item.op.inputs[1])
        call = f"self.{tr.idle[item.variable.op.name]}.{_METHOD[item.op.type]}({value})"
        if item.when is not None:
            # one `if` for a run of assignments under one flag, unless the value needed lines of its own
            if guard != (item.when.name, item.negated) or not tr.lines[-1].code.startswith(INDENT):
                flag = tr.operand(item.when, 0 if not item.negated else 4)
                tr.lines.append(Line(f"if {'not ' if item.negated else ''}{flag}:", "TF1 ran these in a tf.cond"))
            call = INDENT + call
        guard = None if item.when is None else (item.when.name, item.negated)
        tr.lines.append(Line(call, item.where))
        tr.updated.add(item.op.name)
        tr.assigned.add(item.op.name)
    for line in tr.lines[head:]:
        line.code = INDENT + line.code


def other_assignments(train_op, found: dict, unwritten: list, script: str, lines: list[str],
                      written_also: set = frozenset()) -> list[tuple]:
    """(variable name, "TF1 line N" or "") of each assignment TF1's train op ran that the TF2 step does not write:
    not the optimizer's own (made inside `apply_gradients`: its slots, powers, the global step), not a moving
    average written from `found`, not an `assign_moving_average` of a batch norm already a TODO (`unwritten`: it
    feeds the assignment, or has its TF1 line). A hand-written `tf.assign(pop_mean, ...)` under the train op is
    one."""
    written = {u.variable.op.name for us in found.values() for u in us} | set(written_also)
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
