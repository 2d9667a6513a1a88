"""The fix for each cause of a retrace, with a ready-to-paste `input_signature` where the shapes say which."""

from __future__ import annotations

import functools

import tensorflow as tf


__all__ = ["suggest"]


def _spec_text(spec) -> str:
    dims = "[" + ", ".join("None" if d is None else str(d) for d in spec.shape.as_list()) + "]"
    return f"tf.TensorSpec(shape={dims}, dtype=tf.{spec.dtype.name})"


def _generalizedsignature(types: list) -> str | None:
    """A ready-to-paste input_signature with None exactly where the traced shapes differed, if all args are tensors."""
    params = list(types[0].parameters)
    specs = []
    for name in params:
        seen = [t.parameters[name].type_constraint for t in types if name in t.parameters]
        if not all(isinstance(s, tf.TensorSpec) for s in seen) or len({s.dtype for s in seen}) != 1:
            return None
        if len({s.shape.rank for s in seen}) != 1:
            return None
        specs.append(functools.reduce(lambda a, b: a.most_specific_common_supertype([b]), seen))
    return "@tf.function(input_signature=[" + ", ".join(_spec_text(s) for s in specs) + "])"


def suggest(cause: str, argument: str, detail: str, types: list, values_seen: list) -> tuple[str, bool]:
    """The fix for one retrace, and whether it is expected and harmless."""
    if cause == "shape_changed":
        sig = _generalizedsignature(types)
        last_batch = (" (a smaller last batch from tf.data: .batch(n, drop_remainder=True) keeps one shape)"
                      if detail.startswith("dim 0:") else "")
        return ((f"{sig}  (None at exactly the dims that varied), or " if sig else "")
                + "@tf.function(reduce_retracing=True), or pad inputs to a few bucket sizes" + last_batch), False
    if cause == "dtype_changed":
        return f"cast `{argument}` to one dtype before the call (tf.cast)", False
    if cause == "python_value_changed":
        if values_seen and all(isinstance(v, bool) for v in values_seen) and len(set(values_seen)) <= 2:
            return (f"expected: one graph per value of the flag `{argument}` ({len(set(values_seen))} values); "
                    "harmless"), True
        return (f"pass `{argument}` as a tensor (tf.constant(...)) instead of a Python "
                f"{type(values_seen[-1]).__name__ if values_seen else 'value'}: every new value traces a new graph"), False
    if cause == "new_python_object":
        return (f"pass the same object for `{argument}` every call, or pass tensors; a class of yours can define "
                "__tf_tracing_type__ or be a tf.experimental.ExtensionType"), False
    if cause == "structure_changed":
        return (f"keep the structure of `{argument}` fixed: stack a variable-length list into one tensor "
                "(or a tf.RaggedTensor), keep dict keys the same"), False
    if cause == "kind_changed":
        return f"pass the same kind of value for `{argument}` every call (always a tensor, or always a Python value)", False
    if cause == "function_recreated":
        return ("hoist the tf.function out of the loop (or out of the per-instance factory): create it once and "
                "call it many times; each new tf.function object starts with an empty trace cache"), False
    if cause == "context_changed":
        if "VARIABLE_CREATION" in detail:
            return ("expected: a tf.function that creates tf.Variables on its first call traces twice; harmless, "
                    "but creating the variables outside the function avoids it"), True
        return "call the function under one device / graph / distribution strategy scope", False
    return "pass values of a stable type and structure every call", False
