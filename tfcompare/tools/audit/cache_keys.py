"""Reading TensorFlow's trace cache keys: what differs between two traces' `FunctionType`s, argument by argument."""

from __future__ import annotations

import tensorflow as tf

__all__ = ["kind_of", "diff_types", "show", "signature", "literal_values", "remember"]


def kind_of(t) -> str:
    return type(t).__name__


def _components(t):
    if kind_of(t) == "List":
        return t.components_tuple.components
    return t.components


def _diff(old, new, path: str):
    """Yield (argument path, cause, detail) for each difference between two trace types."""
    if old == new:
        return
    kind_old, kind_new = kind_of(old), kind_of(new)
    if kind_old != kind_new:
        yield path, "kind_changed", f"{show(old)} -> {show(new)}"
        return
    if isinstance(new, tf.TensorSpec):
        if old.dtype != new.dtype:
            yield path, "dtype_changed", f"{old.dtype.name} -> {new.dtype.name}"
        if old.shape != new.shape:
            if old.shape.rank != new.shape.rank:
                yield path, "shape_changed", f"rank {old.shape.rank} -> {new.shape.rank} ({old.shape} -> {new.shape})"
            else:
                dims = [f"dim {i}: {a} -> {b}" for i, (a, b) in enumerate(zip(old.shape.as_list(), new.shape.as_list()))
                        if a != b]
                yield path, "shape_changed", ", ".join(dims)
        return
    if kind_new == "Literal":
        yield path, "python_value_changed", f"{old.value!r} -> {new.value!r}"
        return
    if kind_new == "Weakref":
        yield path, "new_python_object", f"{show(old)} -> {show(new)} (a different object: identity is the key)"
        return
    if kind_new in ("List", "Tuple"):
        a, b = _components(old), _components(new)
        if len(a) != len(b):
            yield path, "structure_changed", f"{kind_new.lower()} length {len(a)} -> {len(b)}"
            return
        for i, (x, y) in enumerate(zip(a, b)):
            yield from _diff(x, y, f"{path}[{i}]")
        return
    if kind_new == "Dict":
        if set(old.mapping) != set(new.mapping):
            yield path, "structure_changed", f"dict keys {sorted(map(str, old.mapping))} -> {sorted(map(str, new.mapping))}"
            return
        for k in new.mapping:
            yield from _diff(old.mapping[k], new.mapping[k], f"{path}[{k!r}]")
        return
    yield path, "type_changed", f"{show(old)} -> {show(new)}"


def show(t) -> str:
    if isinstance(t, tf.TensorSpec):
        return f"TensorSpec({t.shape}, {t.dtype.name})"
    if kind_of(t) == "Literal":
        return f"{type(t.value).__name__} {t.value!r}"
    if kind_of(t) == "Weakref":
        ref = t._ref() if hasattr(t, "_ref") else None  # noqa: SLF001 - best effort, for display only
        name = type(ref).__name__ if ref is not None else _CLASS_NAMES.get(id(t))
        return f"<{name} object>" if name else "<object>"
    return repr(t)


_CLASS_NAMES: dict[int, str] = {}  # id of a Weakref trace type -> its object's class, taken while it was alive


def remember(ftype) -> None:
    """Note the class of every object an argument is keyed by (its identity), while the object is alive: by the
    time the report is written it may be gone. The trace keeps `ftype`, so the ids stay valid."""
    todo = [p.type_constraint for p in ftype.parameters.values()]
    while todo:
        t = todo.pop()
        kind = kind_of(t)
        if kind == "Weakref":
            ref = t._ref() if hasattr(t, "_ref") else None  # noqa: SLF001 - display only
            if ref is not None:
                _CLASS_NAMES[id(t)] = type(ref).__name__
        elif kind in ("List", "Tuple"):
            todo.extend(_components(t))
        elif kind == "Dict":
            todo.extend(t.mapping.values())


def diff_types(old, new) -> list[tuple[str, str, str]]:
    out = []
    for name in dict.fromkeys(list(old.parameters) + list(new.parameters)):
        if name not in old.parameters or name not in new.parameters:
            out.append((name, "structure_changed", "parameter added or removed"))
            continue
        out.extend(_diff(old.parameters[name].type_constraint, new.parameters[name].type_constraint, name))
    return out


def signature(ftype) -> str:
    return "(" + ", ".join(f"{n}: {show(p.type_constraint)}" for n, p in ftype.parameters.items()) + ")"



def literal_values(types, argument: str) -> list:
    values = []
    for t in types:
        p = t.parameters.get(argument)
        if p is not None and kind_of(p.type_constraint) == "Literal":
            values.append(p.type_constraint.value)
    return values
