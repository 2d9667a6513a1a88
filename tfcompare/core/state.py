"""Every piece of state a TF2 model reads or writes, so a mode can be put back exactly where it started.

`tf.Module.variables` sees `tf.Variable`s only. Keras 3 keeps its weights and optimizer slots in
`keras.Variable`s, which it does not see, and Keras optimizers create their slots at the first step. So the
state is gathered by walking the model: `tf.Variable`s, Keras layers' `weights`, Keras optimizers'
`variables` (built up front so their slots exist), through attributes, lists and dicts of the user's objects.
What still escapes (Python counters, a generator's position) is caught by running the same steps twice
from the restored state: a difference is reported as a leak, never as a mismatch with TF1.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

__all__ = ["find_state", "State", "prebuild_optimizers"]

_MAX_DEPTH = 6


def _is_keras(obj, kind: str) -> bool:
    return any(c.__module__.startswith("keras") and c.__name__ == kind for c in type(obj).__mro__)


def _is_variable(obj) -> bool:
    return isinstance(obj, tf.Variable) or _is_keras(obj, "Variable")


def _children(obj):
    if isinstance(obj, dict):
        return list(obj.items())
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj)]
    if isinstance(obj, (tf.Module,)) or _is_keras(obj, "Layer") or _is_keras(obj, "Optimizer") or \
            (hasattr(obj, "__dict__") and not isinstance(obj, type) and type(obj).__module__.split(".")[0]
             not in ("tensorflow", "keras", "numpy", "builtins", "functools")):
        return [(k, v) for k, v in vars(obj).items() if not k.startswith(("__", "_self_"))]
    return []


def find_state(model) -> list[tuple[str, object]]:
    """(path, variable) for every variable reachable from `model`, each once, in a stable order."""
    found: dict[int, tuple[str, object]] = {}

    def add(path, var):
        key = id(getattr(var, "value", var)) if _is_keras(var, "Variable") else id(var)
        found.setdefault(key, (path, var))

    def walk(obj, path, depth, seen):
        if id(obj) in seen or depth > _MAX_DEPTH:
            return
        seen.add(id(obj))
        if _is_variable(obj):
            add(path, obj)
            return
        if isinstance(obj, tf.Module):
            for v in obj.variables:
                add(f"{path}/{v.name}" if path else v.name, v)
        if _is_keras(obj, "Layer"):
            for v in obj.weights:
                add(f"{path}/{v.path}", v)
        if _is_keras(obj, "Optimizer"):
            for v in obj.variables:
                add(f"{path}/{v.path}", v)
        for name, child in _children(obj):
            walk(child, f"{path}.{name}" if path else name, depth + 1, seen)

    walk(model, "", 0, set())
    return list(found.values())


def prebuild_optimizers(model, trainables: list) -> list[str]:
    """Build every unbuilt Keras optimizer reachable from `model` on `trainables`, so its slots exist now."""
    built = []

    def walk(obj, path, depth, seen):
        if id(obj) in seen or depth > _MAX_DEPTH:
            return
        seen.add(id(obj))
        if _is_keras(obj, "Optimizer") and not getattr(obj, "built", True):
            obj.build(trainables)
            built.append(path or "optimizer")
            return
        for name, child in _children(obj):
            walk(child, f"{path}.{name}" if path else name, depth + 1, seen)

    walk(model, "", 0, set())
    return built


class State:
    """A snapshot of a model's variables, restorable any number of times."""

    def __init__(self, model):
        self.variables = find_state(model)
        self.values = [np.array(v.numpy(), copy=True) for _, v in self.variables]
        self._model = model

    def restore(self) -> None:
        for (_, v), value in zip(self.variables, self.values):
            v.assign(value)

    def created_since(self) -> list[str]:
        """Paths of variables the model holds now that did not exist when the snapshot was taken."""
        known = {id(getattr(v, "value", v)) for _, v in self.variables}
        return [p for p, v in find_state(self._model) if id(getattr(v, "value", v)) not in known]
