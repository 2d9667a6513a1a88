"""The TF1 script's train ops as its optimizers build them: the loss, the (gradient, variable) pairs and the
optimizer of each.

`optimizer_patches` observes `tf.compat.v1.train.Optimizer.compute_gradients` / `apply_gradients` (what `minimize`
calls) and `tf.gradients`: the first train op's loss, op, optimizer and gradients go into `found` as they always
did (`loss`, `train_op`, `optimizer`, `grads_and_vars`, `raw_grads`), and every train op, the first included, is
an entry of `found["entries"]` with the same keys: a GAN's discriminator and generator steps are two entries, and
the probe compares each step with the entry its `Session.run` ran (`ENTRY_KEYS` are what it switches).

The probe's side: `select` makes the entry a `Session.run` runs the current one (several in one run: steps in
turn, see `joint_runs`; two that write the same variable: no verdict),
`union` gives every entry's variables (read before and after each step), `slot_state` every optimizer's slots,
and `finish` keeps, where the steps ran one entry, that entry's variables and those its loss reads.
"""

from __future__ import annotations

import collections
import importlib

import tensorflow as tf

from tfcompare.core.graphs import ancestors
from tfcompare.core.optimizer_replay import tf1_learning_rate
from tfcompare.scripts.child import slots

__all__ = ["optimizer_patches", "ENTRY_KEYS", "Stop", "op_site", "runs", "entries", "select", "union", "slot_state",
           "finish", "independent", "writes_apart", "variables_of", "switch", "written",
           "held_variables"]

ENTRY_KEYS = ("train_op", "loss", "optimizer", "grads_and_vars", "raw_grads")


class Stop(BaseException):
    """Raised inside the script once K steps are recorded; a BaseException so `except Exception` lets it pass."""


def op_site(op, script: str) -> str:
    """`line N`: where in the script an op was made."""
    frames = [f for f in (op.traceback or []) if f.filename == script]
    return f"line {frames[-1].lineno}" if frames else "?"


def _leaves(fetches):
    """Every fetch in a nest of lists, tuples and dicts; dict keys are not sorted (MonitoredSession keys its
    hooks' fetches by the hook objects, which `tf.nest` cannot sort)."""
    if isinstance(fetches, dict):
        for value in fetches.values():
            yield from _leaves(value)
    elif isinstance(fetches, (list, tuple)):
        for value in fetches:
            yield from _leaves(value)
    else:
        yield fetches


def runs(fetches, train_op) -> bool:
    """Whether a `Session.run` of `fetches` runs `train_op`: itself, or a group that runs it (`tf.group(train_op,
    ema_op)`)."""
    for fetch in _leaves(fetches):
        op = fetch if isinstance(fetch, tf.Operation) else getattr(fetch, "op", None)
        if op is train_op or (op is not None and train_op in op.control_inputs):
            return True
    return False


def optimizer_patches(found: dict) -> list[tuple]:
    """(owner, name, replacement) patches of `tf.compat.v1.train.Optimizer` (and of `tf.gradients`) that record
    each train op as an entry of `found["entries"]` (its loss, the op, its optimizer, the (gradient, variable) pairs
    it applies and the gradients before the script's transform of them); the first entry's keys are also `found`'s
    own."""
    optimizer = tf.compat.v1.train.Optimizer
    compute, apply = optimizer.compute_gradients, optimizer.apply_gradients

    def compute_gradients(self, loss, *args, **kwargs):
        out = compute(self, loss, *args, **kwargs)
        pending = found.setdefault("next", {"raw": {}})  # what the next apply applies (see _entry)
        pending["loss"] = loss
        pending["raw"].update({id(v): g for g, v in out if g is not None})
        return out

    def apply_gradients(self, grads_and_vars, *args, **kwargs):
        grads_and_vars = list(grads_and_vars)
        op = apply(self, grads_and_vars, *args, **kwargs)
        entry = _entry(found.pop("next", {"raw": {}}), op, self, grads_and_vars)
        found.setdefault("entries", []).append(entry)
        if "train_op" not in found:
            found.update(entry)
        return op

    return [(optimizer, "compute_gradients", compute_gradients), (optimizer, "apply_gradients", apply_gradients),
            *_gradients_patches(found)]


def _gradients_patches(found: dict) -> list[tuple]:
    """`tf.gradients` on every module a script reaches it through: the last call's `ys` before an
    `apply_gradients` is that train op's loss (when no `compute_gradients` said it)."""
    modules = {id(m): m for m in (tf, tf.compat.v1, importlib.import_module("tensorflow.compat.v1"))}.values()
    patches = []
    for module in modules:
        def gradients(ys, xs, *args, _original=module.gradients, **kwargs):
            out = _original(ys, xs, *args, **kwargs)
            sources = list(xs) if isinstance(xs, (list, tuple)) else [xs]
            pending = found.setdefault("next", {"raw": {}})
            pending["gradients_of"] = ys
            pending["raw"].update({id(x): g for x, g in zip(sources, out) if g is not None})
            return out
        patches.append((module, "gradients", gradients))
    return patches


def _summed(ys):
    """What `tf.gradients(ys, ...)` differentiates: `ys` itself, or the sum of a list of several."""
    ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
    if len(ys) == 1:
        return ys[0]
    with ys[0].graph.as_default(), tf.compat.v1.name_scope("tfcompare_loss"):
        return tf.add_n([tf.reduce_sum(y) for y in ys])


def _entry(made: dict, op, optimizer, grads_and_vars: list) -> dict:
    """One train op: its loss is what the last compute_gradients before it took (or the last tf.gradients'
    `ys`); its gradients as computed, before any transform the script makes between computing and applying them
    (clipping), from every compute_gradients / tf.gradients since the previous apply."""
    pairs = [(g, v) for g, v in grads_and_vars if g is not None]
    loss = made.get("loss")
    if loss is None and "gradients_of" in made:
        loss = _summed(made["gradients_of"])
    return {"train_op": op, "optimizer": optimizer, "loss": loss, "grads_and_vars": pairs,
            "raw_grads": [made["raw"].get(id(v), g) for g, v in pairs]}


# --- the probe's side: which entry a Session.run runs ----------------------------------------------------------
def entries(found: dict) -> list[dict]:
    return found.get("entries") or [{k: found.get(k) for k in ENTRY_KEYS}]


def select(probe, fetches) -> None:
    """Make the entry this `Session.run` runs the probe's current one (its loss, gradients, optimizer and learning
    rate). Several train ops in one run (`probe.joint`) are steps in turn, in the order the script made them:
    ops that share no variable (two networks side by side) compute what each would alone; ops that read each
    other's variables but write their own (a GAN, `probe.shared`) are TF1's graph without order between them,
    which `joint_runs` replays as it reads. Ops that write the same variable: no verdict, and the script stops."""
    found = entries(probe.found)
    ran = [i for i, e in enumerate(found) if e["train_op"] is not None and runs(fetches, e["train_op"])]
    alone = len(ran) > 1 and independent([found[i]["train_op"] for i in ran])
    probe.shared = len(ran) > 1 and not alone and writes_apart([found[i]["train_op"] for i in ran])
    probe.joint = ran if alone or probe.shared else []
    if probe.joint:
        names = ", ".join(found[i]['train_op'].name for i in ran)
        said = (f"TF1 runs the train ops {names} in one Session.run; they share no variable, so each computes what "
                "it would alone: they are compared as steps in the order the script made them" if alone else
                f"TF1 runs the train ops {names} in one Session.run; each writes its own variables and reads the "
                "other's, with no order between them: compared as TF1's graph reads it, every gradient from the "
                "run's starting weights, each train op a step in the order the script made them")
        if said not in probe.record.notes:
            probe.record.notes.append(said)
    if len(ran) > 1 and not probe.joint:
        sites = ", ".join(f"{found[i]['train_op'].name} ({op_site(found[i]['train_op'], probe.script)})" for i in ran)
        probe.record.status = "unpairable"
        probe.record.error = (f"the TF1 script runs more than one optimizer's train op in one Session.run ({sites}), "
                              "and they write the same variables (or one is built under the other's control "
                              "dependency): pair cannot take the run apart into a step of each; it gives no verdict "
                              "here")
        raise Stop
    racing = _racing_writes(fetches, found[ran[0]]) if ran else []
    if racing:
        op = found[ran[0]]["train_op"]
        sites = ", ".join(dict.fromkeys(f"{w.type} of {w.inputs[0].op.name} ({op_site(w, probe.script)})"
                                        for w in racing))
        probe.record.status = "unpairable"
        probe.record.error = (f"the TF1 script's Session.run of {op.name} ({op_site(op, probe.script)}) also runs ops "
                              f"that write variables it trains, with no order between them: {sites}. TF1 may run "
                              "them before or after the update (the weights a step leaves depend on the race), so "
                              "pair gives no verdict; run them in a Session.run after the train op's, or under "
                              "tf.control_dependencies([train_op]), as the script means")
        raise Stop
    if not ran or found[ran[0]]["train_op"] is probe.train_op:
        probe.entry = ran[0] if ran else probe.entry
        return
    probe.found.update({k: found[ran[0]][k] for k in ENTRY_KEYS})
    probe.entry = ran[0]
    if probe.record.steps:  # the first step reads its rate with the optimizer's settings (`_optimizer`)
        probe._rate = tf1_learning_rate(probe.train_op.graph, probe.train_op)


def variables_of(train_op) -> set:
    """The variable ops a train op reads or writes (weights, slots, counters)."""
    return {a for a in ancestors([train_op]) if a.type in _VARIABLE_OPS}


def writes_apart(train_ops: list) -> bool:
    """Whether no variable is written by two of the train ops (each optimizer its own network and slots), and
    none runs another (one built under `tf.control_dependencies([train_D])` orders the updates: not this)."""
    if any(a in ancestors([b]) for a in train_ops for b in train_ops if a is not b):
        return False
    return _disjoint([written(op) for op in train_ops])


def independent(train_ops: list) -> bool:
    """Whether the train ops read and write disjoint sets of variables: run together, each computes what it would
    alone (MorvanZhou's networks with and without dropout or batch norm)."""
    return _disjoint([variables_of(op) for op in train_ops])


def _disjoint(sets: list) -> bool:
    seen: set = set()
    for mine in sets:
        if mine & seen:
            return False
        seen |= mine
    return True


_VARIABLE_OPS = {"VariableV2", "VarHandleOp", "Variable"}
_WRITES = {"Assign", "AssignAdd", "AssignSub", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
           "ScatterUpdate", "ResourceScatterUpdate"}


def _racing_writes(fetches, entry: dict) -> list:
    """The writes to the train op's variables that the same `Session.run` makes with no order to the train op
    (a WGAN's `sess.run([D_solver, D_loss, clip_D])`): neither depends on the other."""
    train_op = entry["train_op"]
    trained = {v.op for _, v in entry["grads_and_vars"]}
    before = ancestors([train_op])
    out = []
    for fetch in _leaves(fetches):
        op = fetch if isinstance(fetch, tf.Operation) else getattr(fetch, "op", None)
        if op is None or op is train_op:
            continue
        mine = ancestors([op])
        if train_op in mine:
            continue
        out += [w for w in mine - before if w.type in _WRITES and w.inputs and w.inputs[0].op in trained]
    return out


def switch(probe, index: int) -> None:
    """Make entry `index` the probe's current one (a joint run's next train op), its learning rate with it."""
    entry = entries(probe.found)[index]
    probe.found.update({k: entry[k] for k in ENTRY_KEYS})
    probe.entry = index
    probe._rate = tf1_learning_rate(probe.train_op.graph, probe.train_op)


def union(found: dict) -> list:
    """The variables of every train op, the current one's first (in its order), then the others' in theirs."""
    out, seen = [], set()
    for e in [{"grads_and_vars": found["grads_and_vars"]}, *entries(found)]:
        for _, var in e["grads_and_vars"] or []:
            if var.op.name not in seen:
                seen.add(var.op.name)
                out.append(var)
    return out


def slot_state(probe, graph) -> tuple[list, object]:
    """Every optimizer's slots of its own variables, and the global step: what is read after each step."""
    found, counter = [], None
    for e in entries(probe.found):
        if not e["grads_and_vars"]:
            continue
        mine, step = slots.tf1_state(e["optimizer"], [v for _, v in e["grads_and_vars"]], graph,
                                     probe._rate, probe._start, probe.record)
        found += mine
        counter = counter if counter is not None else step
    # a variable two optimizers train (InfoGAN's generator: G's Adam and Q's) has a slot of each under one record
    # key: not compared (read, each would overwrite the other's), said in a note
    seen = collections.Counter((name, variable_key) for name, variable_key, _ in found)
    shared = sorted(k for k, n in seen.items() if n > 1)
    if shared:
        found = [f for f in found if (f[0], f[1]) not in shared]
        for name, variable_key in shared:
            probe.record.arrays.pop(slots.key(name, "init", variable_key), None)
        probe.record.notes.append("optimizer slots of variables more than one optimizer trains, not compared (each "
                                  "optimizer keeps its own): " + ", ".join(f"{n} of {k}" for n, k in shared[:6]) +
                                  (", ..." if len(shared) > 6 else ""))
    return found, counter


def finish(probe) -> None:
    """After the K steps: a script whose steps ran one train op keeps that op's variables, and those of another
    optimizer that its loss reads (a WGAN's critic steps read the generator: its initial values go to TF2 too, and
    its weights are compared unchanged); steps of several say which ran when."""
    rec, found = probe.record, entries(probe.found)
    ran = sorted(set(rec.step_ops))
    if len(ran) > 1:
        order = ", ".join(found[i]["train_op"].name for i in rec.step_ops)
        rec.notes.append(f"TF1's steps run {len(ran)} optimizers' train ops ({order}, in that order): each step is "
                         "compared with the TF2 step in the same place, its gradients those of its own optimizer")
        return
    trained = {v.op.name for _, v in found[ran[0]]["grads_and_vars"]}
    read = {op.name for op in ancestors([found[ran[0]]["loss"]])}
    mine = trained | {v.op.name for v in probe.all_variables if v.op.name in read}
    probe.all_variables = [v for v in probe.all_variables if v.op.name in mine]
    rec.variables = [v for v in rec.variables if v.key in mine]
    probe.slots = [s for s in probe.slots if s[1] in trained]
    rec.arrays = {k: v for k, v in rec.arrays.items() if _key_of(k) in (None, *mine)}
    if mine - trained:
        rec.notes.append(f"the compared steps run one optimizer; its loss also reads {len(mine - trained)} variable(s) "
                         "another optimizer trains: they start from TF1's values on both sides and are compared too")


def _key_of(array_name: str) -> str | None:
    """The variable key of `init/KEY`, `before|after|grad/STEP/KEY` or `slot:NAME/STEP/KEY` (a key may hold
    slashes: `dense/kernel`); None for an array of no variable."""
    head, _, rest = array_name.partition("/")
    if head == "init":
        return rest
    if head in ("before", "after", "grad") or head.startswith("slot:"):
        return rest.partition("/")[2]
    return None


# --- what a train op writes (a run of several: see joint_runs) ----------------------------------------------
_PASSING = {"Identity", "RefIdentity", "Enter", "RefEnter", "Switch", "RefSwitch"}
_WRITE_PREFIXES = ("Apply", "ResourceApply", "SparseApply", "ResourceSparseApply", "Assign", "ResourceScatter",
                   "Scatter")


def _variable_of(tensor):
    op = tensor.op
    while op.type in _PASSING and op.inputs:
        op = op.inputs[0].op
    return op if op.type in _VARIABLE_OPS else None


def written(train_op) -> set:
    """The variable ops a train op writes: its variables, their slots, its optimizer's counters (an update's or an
    assignment's variable inputs, refs or resource handles)."""
    out = set()
    for op in ancestors([train_op]):
        if not op.type.startswith(_WRITE_PREFIXES):
            continue
        for t in op.inputs:
            if t.dtype._is_ref_dtype or t.dtype.name == "resource":
                found = _variable_of(t)
                if found is not None:
                    out.add(found)
    return out


def held_variables(graph, variable_ops: set) -> list:
    """The graph's global variables of `variable_ops` (what train ops write: `written`)."""
    return [v for v in graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES) if v.op in variable_ops]
