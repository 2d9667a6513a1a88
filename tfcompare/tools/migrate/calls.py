"""How TensorFlow is *called* in a file, checked against the installed TensorFlow: a name that resolves can
still break at the call.

- keyword arguments the installed function does not take (`reduction_indices=`, `keep_dims=`, `dim=`,
  `keep_prob=`): the call raises TypeError;
- a positional argument whose place now holds another parameter (TF1 `tf.nn.dropout(x, 0.8)` is keep_prob,
  TF2's second parameter is rate): the call runs and means something else;
- the same name with another meaning in TF2 (`tf.summary.scalar` in graph code writes nothing: TF2's op
  writes only to a default writer with a step);
- methods TF2's `tf.data.Dataset` no longer has (`make_one_shot_iterator()`, `output_shapes`), on any object:
  taken from the installed TensorFlow by comparing `tf.compat.v1.data.Dataset` with `tf.data.Dataset`;
- `tf.device` given a function (a device setter): TF2's `tf.device` takes only device names.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect

from tfcompare.tools.migrate.references import chain, resolve

__all__ = ["CallIssue", "call_issues"]

_V1 = "tensorflow.compat.v1."
_SUMMARY_OPS = ("scalar", "histogram", "image", "audio", "text", "tensor_summary")
_TF2_SUMMARY_USE = ("create_file_writer", "record_if", "create_noop_writer")  # (graph.as_default is TF1's too)


@dataclasses.dataclass(frozen=True)
class CallIssue:
    line: int
    col: int  # where tf_upgrade_v2 reports on the same thing (a keyword's own position, say)
    written: str
    klass: str  # a class from `classify`
    note: str
    replacement: str
    call: tuple[int, int] = (0, 0)  # the call's own position: tf_upgrade_v2 reports some argument changes there

    @property
    def positions(self) -> tuple[tuple[int, int], ...]:
        return ((self.line, self.col), self.call)


def _signature(obj):
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None


@functools.lru_cache(maxsize=None)
def removed_dataset_members() -> frozenset[str]:
    """What `tf.compat.v1.data.Dataset` has and TF2's `tf.data.Dataset` does not (public names only)."""
    v1, v2 = resolve(_V1 + "data.Dataset"), resolve("tensorflow.data.Dataset")
    if not (v1.ok and v2.ok):
        return frozenset()
    return frozenset(n for n in set(dir(v1.obj)) - set(dir(v2.obj)) if not n.startswith("_"))


@functools.lru_cache(maxsize=None)
def _keyword_renames() -> dict:
    """tf_upgrade_v2's own table of parameters renamed between TF1 and TF2 (`tf.nn.conv2d`: filter -> filters)."""
    try:
        from tensorflow.tools.compatibility import tf_upgrade_v2
        return dict(tf_upgrade_v2.TFAPIChangeSpec().function_keyword_renames)
    except Exception:  # the tool is not shipped: no renames are known, so every moved argument is reported
        return {}


@functools.lru_cache(maxsize=None)
def _dimensions_are_ints() -> bool:
    """TF2's TensorShape gives ints for its dimensions (TF1's gave Dimension objects with `.value`)."""
    shape = resolve("tensorflow.TensorShape")
    return shape.ok and not hasattr(shape.obj([1])[0], "value")


def _is_shape(node) -> bool:
    """`x.shape` or `x.get_shape()`."""
    if isinstance(node, ast.Call):
        node = node.func
        return isinstance(node, ast.Attribute) and node.attr == "get_shape"
    return isinstance(node, ast.Attribute) and node.attr == "shape"


def _returns_function(defs: dict, node: ast.AST) -> bool:
    """`node` evaluates to a function: a lambda, a function of this file, or a call of one that returns an inner
    function (`def assign_to_device(...): def _assign(op): ...; return _assign`), or TF's device setter."""
    if isinstance(node, ast.Lambda):
        return True
    if isinstance(node, ast.Name) and node.id in defs:
        return True
    if isinstance(node, ast.Call):
        called = chain(node.func)
        if called and called[-1] == "replica_device_setter":
            return True
        if isinstance(node.func, ast.Name) and node.func.id in defs:
            fn = defs[node.func.id]
            inner = {d.name for d in ast.walk(fn) if isinstance(d, (ast.FunctionDef, ast.Lambda)) and d is not fn}
            return any(isinstance(r, ast.Return) and (isinstance(r.value, ast.Lambda) or
                       (isinstance(r.value, ast.Name) and r.value.id in inner)) for r in ast.walk(fn))
    return False


def _keyword_issues(call: ast.Call, path: str, written: str, obj) -> list[CallIssue]:
    sig = _signature(obj)
    if sig is None or any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
        return []
    out = []
    for kw in call.keywords:
        if kw.arg is not None and kw.arg not in sig.parameters:
            out.append(CallIssue(
                kw.lineno, kw.col_offset, f"{written}({kw.arg}=)", "removed",
                f"{written} on this TensorFlow is {path} without a parameter {kw.arg!r}: the call raises TypeError "
                f"(it takes {', '.join(sig.parameters)})", "", (call.lineno, call.col_offset)))
    return out


def _positional_issues(call: ast.Call, path: str, written: str, obj) -> list[CallIssue]:
    """TF1 code calling the TF2 function of the same name, with an argument in a place that moved."""
    if path.startswith(_V1) or not path.startswith("tensorflow."):
        return []
    v1 = resolve(_V1 + path[len("tensorflow."):])
    if not v1.ok or v1.obj is obj:
        return []
    new, old = _signature(obj), _signature(v1.obj)
    if new is None or old is None or any(isinstance(a, ast.Starred) for a in call.args):
        return []
    new_names, old_names = list(new.parameters), list(old.parameters)
    out = []
    for i, _ in enumerate(call.args):
        if i >= len(new_names) or i >= len(old_names):
            break
        moved = new_names[i]
        if moved != old_names[i] and moved in old_names and \
                _keyword_renames().get("tf." + path[len("tensorflow."):], {}).get(old_names[i]) != moved:
            # (not a rename tf_upgrade_v2 knows to be the same parameter: conv2d's filter -> filters)
            out.append(CallIssue(
                call.lineno, call.col_offset, f"{written}(… argument {i + 1})", "behaviour",
                f"argument {i + 1} is {old_names[i]!r} in TF1's {written} and {moved!r} in the TF2 function this "
                f"name now calls: the call runs and means something else", ""))
    return out


def _summary_issue(call: ast.Call, path: str, written: str, tf2_summaries: bool) -> list[CallIssue]:
    rel = path[len("tensorflow."):] if path.startswith("tensorflow.") else ""
    if path.startswith(_V1) or not rel.startswith("summary.") or rel.split(".")[-1] not in _SUMMARY_OPS:
        return []
    if tf2_summaries or any(kw.arg == "step" for kw in call.keywords):  # (TF1's 3rd argument is not a step)
        return []
    return [CallIssue(call.lineno, call.col_offset, written, "behaviour",
                      f"{written} is TF2's summary op here: without a default writer and a step it writes nothing "
                      "(in graph code it returns a constant False), so merge_all() collects nothing and returns None; "
                      "TF1's op is tf.compat.v1." + rel,
                      "with writer.as_default(): tf.summary." + rel.split(".")[-1] + "(name, value, step=step)")]


def call_issues(tree: ast.Module, names: dict[str, str]) -> list[CallIssue]:
    """Every call (and attribute) problem above, in the file; `names` maps local names to TensorFlow paths."""
    defs = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    used = {c[-1] for n in ast.walk(tree) if isinstance(n, ast.Attribute) and (c := chain(n))}
    tf2_summaries = any(name in used for name in _TF2_SUMMARY_USE)
    # under `import tensorflow.compat.v1 as tf`, tf.data.Dataset is TF1's and keeps these members
    removed = removed_dataset_members() if "tensorflow.compat.v1" not in names.values() else frozenset()
    v1_shapes = {"disable_v2_behavior", "disable_v2_tensorshape"} & used
    out: list[CallIssue] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "value" and isinstance(node.value, ast.Subscript) \
                and _is_shape(node.value.value) and not v1_shapes and names and _dimensions_are_ints():
            out.append(CallIssue(node.lineno, node.col_offset, "shape[i].value", "removed",
                                 "TF2's TensorShape holds ints, not Dimension objects: .value raises AttributeError "
                                 "(unless tf.compat.v1.disable_v2_tensorshape() is called first)",
                                 "shape[i] (an int, or None when unknown)"))
        if isinstance(node, ast.Attribute) and node.attr in removed:
            root = chain(node.value)
            if not (root and root[0] in names):  # a method of an object the code made (a dataset), not tf.*
                out.append(CallIssue(node.lineno, node.col_offset, f".{node.attr}", "compat-v1",
                                     f"TF2's tf.data.Dataset has no {node.attr!r} (AttributeError); "
                                     f"tf.compat.v1.data.Dataset has it",
                                     "iterate the dataset (for batch in dataset) or iter(dataset); "
                                     "tf.compat.v1.data.make_one_shot_iterator(dataset) in graph code"))
        if not isinstance(node, ast.Call):
            continue
        parts = chain(node.func)
        if not parts or parts[0] not in names:
            continue
        path = ".".join([names[parts[0]]] + parts[1:])
        written = ".".join(parts)
        res = resolve(path)
        if not res.ok or not callable(res.obj):
            continue
        if path == "tensorflow.device" and node.args and _returns_function(defs, node.args[0]):
            out.append(CallIssue(node.lineno, node.col_offset, f"{written}(function)", "removed",
                                 f"{written} given a function: TF2's tf.device takes only a device name and "
                                 "raises RuntimeError (\"tf.device does not support functions\")",
                                 "tf.distribute strategies place variables and ops; or tf.device('/cpu:0')"))
        if inspect.isclass(res.obj):
            continue  # a constructor's keywords go through __init__, often **kwargs: not checked
        out += _keyword_issues(node, path, written, res.obj)
        out += _positional_issues(node, path, written, res.obj)
        out += _summary_issue(node, path, written, tf2_summaries)
    return out
