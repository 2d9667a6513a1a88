"""The optimizer's slots of each trained variable, read on both sides: state a step changes besides the weights.

An optimizer keeps per-variable state (Adam's first and second moments, a momentum accumulator, RMSprop's mean
square, Adagrad's accumulator) that the next steps read and a checkpoint carries. Each side names its slots in its
own words; here they get TF1's names (`m`, `v`, `momentum`, `rms`, `mg`, `accumulator`, `accum`, `accum_update`)
and are stored per step as arrays `slot:<name>/<step>/<variable key>` (`slot:<name>/init/<key>` before the first
step, TF1 only: Keras makes its slots inside its first update). Every read is a variable read: it consumes nothing.

The step counter too: TF1's global step (when the script made one), Keras's `optimizer.iterations`, as arrays
`counter/init` and `counter/<step>`, and whether the side's learning rate reads it (a schedule).
"""

from __future__ import annotations

import re

import numpy as np

__all__ = ["tf1_state", "tf1_slots", "tf1_read", "tf2_slots", "values", "key", "SLOT_KEY", "tf1_counter",
           "tf2_counter", "counter_value", "backing", "keras_own"]

# an array of a slot: slot:<name>/<step or init>/<variable key>
SLOT_KEY = re.compile(r"^slot:(\w+)/(init|\d+)/(.+)$")

# Keras 3 and tf.keras 2.x (its current optimizers): the attribute holding one slot per trained variable -> TF1's name
_KERAS_LISTS = {"_momentums": "m", "_velocities": "v", "_velocity_hats": "vhat", "momentums": "momentum",
                "_accumulators": "accumulator", "_accumulated_grads": "accum", "_accumulated_delta_vars": "accum_update",
                "_average_gradients": "mg"}
# per Keras class (lower case): where a list's role is not the one above (RMSprop's velocity is TF1's `rms`)
_KERAS_CLASS = {"rmsprop": {"_velocities": "rms", "_momentums": "momentum"}}
# tf.keras 2.x's legacy optimizers (`optimizer_v2`, `get_slot`): their slot names -> TF1's
_LEGACY_NAMES = {"accum_grad": "accum", "accum_var": "accum_update"}


def key(name: str, step, variable_key: str) -> str:
    return f"slot:{name}/{step}/{variable_key}"


def tf1_state(optimizer, trained: list, graph, rate, start: list | None, record) -> tuple[list, object]:
    """(the slots of `tf1_slots`, the global step of `tf1_counter`): what the TF1 probe reads after each step."""
    before = {id(var): value for var, value in start or []}
    return tf1_slots(optimizer, trained, before, record), tf1_counter(graph, rate, before, record)


def tf1_read(run, found: list, counter, record, step: int) -> None:
    """The slots and the global step after `step` (from 0) into the record; `run(fetches)` is the session's own run
    (a variable read consumes nothing)."""
    reads = [*(s for *_, s in found), *([counter] if counter is not None else [])]
    try:
        held = run(reads) if reads else []
    except Exception:  # a slot that cannot be read (not initialised): not compared, and the script's step goes on
        return
    for (name, variable_key, _), value in zip(found, held):
        record.arrays[key(name, step, variable_key)] = np.asarray(value)
    if counter is not None:
        record.arrays[f"counter/{step}"] = np.asarray(held[-1])


def tf1_slots(optimizer, trained: list, before: dict, record) -> list[tuple[str, str, object]]:
    """(slot name, variable key, slot variable) of a `tf.compat.v1.train.Optimizer` for each trained variable
    (its key the variable's op name, as the record has it); each slot's value before the first step, from the
    snapshot of every global variable (`noise.snapshot`: `before`, by the variable's id), goes into the record."""
    if optimizer is None or not hasattr(optimizer, "get_slot_names"):
        return []
    out = []
    for name in optimizer.get_slot_names():
        for var in trained:
            slot = optimizer.get_slot(var, name)
            if slot is None:
                continue
            out.append((name, var.op.name, slot))
            if id(slot) in before:
                record.arrays[key(name, "init", var.op.name)] = np.asarray(before[id(slot)])
    return out


def tf2_slots(optimizer, variable) -> dict[str, object]:
    """TF1's slot name -> the Keras optimizer's slot variable for `variable` (a tf.Variable, or a Keras 3
    Variable's backing one); {} for an optimizer that is not Keras's or has not made its slots yet."""
    if optimizer is None:
        return {}
    if hasattr(optimizer, "get_slot_names") and hasattr(optimizer, "get_slot"):  # tf.keras 2.x legacy optimizer_v2
        out = {}
        for name in optimizer.get_slot_names():
            try:
                out[_LEGACY_NAMES.get(name, name)] = optimizer.get_slot(variable, name)
            except (KeyError, ValueError):
                pass
        return out
    index = _index(optimizer, variable)
    if index is None:
        return {}
    roles = {**_KERAS_LISTS, **_KERAS_CLASS.get(type(optimizer).__name__.lower(), {})}
    out = {}
    for attribute, name in roles.items():
        held = getattr(optimizer, attribute, None)
        if isinstance(held, list) and index < len(held) and held[index] is not None:
            out[name] = held[index]
    own = not keras_own(type(optimizer).__module__)
    for held in vars(optimizer).values() if own else ():  # a Keras optimizer of the script's (convert's RMSProp)
        slot = held[index] if isinstance(held, list) and index < len(held) else None
        name = _own_slot_name(slot, variable)
        if name is not None and name not in out:
            out[name] = slot
    return out


_TF1_SLOTS = sorted({*_KERAS_LISTS.values(), *(n for roles in _KERAS_CLASS.values() for n in roles.values())})
_KERAS_PACKAGES = ("keras", "tf_keras", "tensorflow")


def keras_own(module: str) -> bool:
    """Whether `module` (an optimizer class's, or the package a record names it by) is Keras's or TensorFlow's own,
    not the script's: Keras's slot lists and its SGD's `-lr x` momentum are known; another optimizer's are not."""
    return module.split(".")[0] in _KERAS_PACKAGES


def _own_slot_name(slot, variable) -> str | None:
    """TF1's slot name of `slot`, a variable an optimizer made with `add_variable_from_reference(variable, name)`
    under one of TF1's slot names (Keras names it `<variable's path or name, '/' and ':' as '_'>_<name>`: a
    tf.Variable `Variable_3:0`'s `rms` is `Variable_3_0_rms`); None otherwise."""
    name = getattr(slot, "name", None)
    if not isinstance(name, str):
        return None
    stems = {s.replace("/", "_").replace(":", "_") for s in (getattr(variable, "path", None),
                                                             getattr(variable, "name", None)) if isinstance(s, str)}
    return next((n for n in _TF1_SLOTS for stem in stems if name.split(":")[0] == f"{stem}_{n}"), None)


def _index(optimizer, variable) -> int | None:
    """The position of `variable` among the optimizer's trained variables (Keras 3: `_trainable_variables`;
    tf.keras 2.x: `_index_dict` by `_var_key`)."""
    mine = backing(variable)
    for i, var in enumerate(getattr(optimizer, "_trainable_variables", None) or []):
        if backing(var) is mine:
            return i
    index_of, var_key = getattr(optimizer, "_index_dict", None), getattr(optimizer, "_var_key", None)
    if isinstance(index_of, dict) and callable(var_key):
        try:
            return index_of.get(var_key(variable))
        except Exception:
            return None
    return None


def backing(var):
    """A Keras 3 Variable's tf.Variable (a tf.Variable's own `value` is a method); without importing TensorFlow,
    which the comparing process never does on an agreeing pair (it imports this module through `noise`)."""
    value = getattr(var, "value", None)
    return value if value is not None and not callable(value) else var


def values(slots: dict[str, object]) -> dict[str, np.ndarray]:
    """Each slot's value now; a slot that cannot be read here (a symbolic one, inside a trace) is left out, so it is
    not compared: reading state never fails the script's step."""
    out = {}
    for name, var in slots.items():
        try:
            out[name] = np.asarray(var.numpy() if hasattr(var, "numpy") else var)
        except Exception:
            continue
    return out


def counter_value(counter) -> np.ndarray | None:
    """A Keras optimizer's iterations now (see `tf2_counter`), or None where they cannot be read here."""
    try:
        return np.asarray(counter[0].numpy())
    except Exception:
        return None


def tf1_counter(graph, rate, before: dict, record):
    """TF1's global step variable (None when the script made none); its value before the first step goes into the
    record, and whether the learning rate's tensor reads it (a schedule that a step which does not advance it
    never moves)."""
    import tensorflow as tf

    from tfcompare.core.graphs import ancestors

    step = tf.compat.v1.train.get_global_step(graph)
    if step is None:
        return None
    if id(step) in before:
        record.arrays["counter/init"] = np.asarray(before[id(step)])
    reads = rate is not None and any(op is step.op or op.name == step.op.name for op in ancestors([rate]))
    record.counter = {"name": step.op.name, "read_by_rate": bool(reads)}
    return step


def tf2_counter(optimizer) -> tuple[object, bool] | None:
    """(a Keras optimizer's `iterations`, whether its learning rate is a schedule that reads them), or None."""
    iterations = getattr(optimizer, "iterations", None)
    if iterations is None or not hasattr(iterations, "numpy"):
        return None
    rate = getattr(optimizer, "_learning_rate", None)
    if rate is None and isinstance(getattr(optimizer, "_hyper", None), dict):  # tf.keras 2.x legacy optimizer_v2
        rate = optimizer._hyper.get("learning_rate")
    return iterations, callable(rate) and not hasattr(rate, "numpy")
