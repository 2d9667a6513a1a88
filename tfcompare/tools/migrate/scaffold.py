"""A starter cases file from a TF1 script: its placeholders as `InputSpec`s, its variables with their shapes,
its optimizer mapped to a TF1-exact TF2 one, and marked places for the user's own code.

Read from the AST only (nothing is run). The result imports and loads as it is (`tfcompare list
--cases-file OUT.py`); the TF1 builder and the TF2 model raise until the user fills them in.

Every string that comes from the user's source or a path (a placeholder's name, a file name) is written as a
Python literal made by `repr()`, and never inside a docstring: a name holding quotes, newlines or triple quotes
stays data and cannot become code when the scaffold is loaded.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tfcompare.tools.migrate.references import aliases
from tfcompare.tools.migrate.sources import SourceError, decode, parse, read_source

__all__ = ["ScaffoldError", "check_out", "scaffold_text"]

_DTYPES = {"float32": "float32", "float64": "float64", "int32": "int32", "int64": "int64"}
_OPTIMIZERS = {"GradientDescentOptimizer": "SGD", "MomentumOptimizer": "Momentum", "AdamOptimizer": "Adam",
               "RMSPropOptimizer": "RMSProp", "AdagradOptimizer": "Adagrad"}


class ScaffoldError(ValueError):
    """The scaffold cannot be made (its name is not a cases file's, or the source cannot be read)."""


def _literal(node):
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None


def _arg(call: ast.Call, index: int, name: str):
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return call.args[index] if len(call.args) > index else None


def _attr_name(node) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def _found(tree: ast.Module) -> tuple[list, list, tuple | None]:
    tf_names = {k for k, v in aliases(tree).items() if v in ("tensorflow", "tensorflow.compat.v1")}
    inputs, variables, optimizer = [], [], None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        root = node.func
        while isinstance(root, ast.Attribute):
            root = root.value
        if not (isinstance(root, ast.Name) and root.id in tf_names):
            continue
        what = node.func.attr
        if what == "placeholder":
            dtype = _attr_name(_arg(node, 0, "dtype")) if _arg(node, 0, "dtype") is not None else "float32"
            shape = _literal(_arg(node, 1, "shape")) if _arg(node, 1, "shape") is not None else None
            name = _literal(_arg(node, 2, "name")) if _arg(node, 2, "name") is not None else None
            target = next((t.id for p in ast.walk(tree) if isinstance(p, ast.Assign) and p.value is node
                           for t in p.targets if isinstance(t, ast.Name)), None)
            inputs.append((name or target or f"input{len(inputs)}", _DTYPES.get(dtype, "float32"), shape, node.lineno))
        elif what == "get_variable":
            name = _literal(_arg(node, 0, "name"))
            shape = _literal(_arg(node, 1, "shape"))
            variables.append((name or f"var{len(variables)}", shape, node.lineno))
        elif what.endswith("Optimizer") and optimizer is None:
            lr = _literal(_arg(node, 0, "learning_rate"))
            momentum = _literal(_arg(node, 1, "momentum")) if what == "MomentumOptimizer" else None
            optimizer = (what, lr, momentum, node.lineno)
    return inputs, variables, optimizer


def _case_name(stem: str) -> str:
    name = re.sub(r"[^a-z0-9_\-]", "-", stem.lower()).strip("-_") or "case"
    return name if name[0].isalpha() else f"c-{name}"


def check_out(out: str | Path) -> None:
    """Refuse an output name that is not a cases file's, before anything else is done."""
    if Path(out).suffix != ".py":
        raise ScaffoldError(f"{str(out)!r} must end in .py (it is a cases file)")


def scaffold_text(source: str | Path, out: str | Path) -> str:
    """The starter cases file for the TF1 script `source`, to be written at `out`."""
    source, out = Path(source), Path(out)
    try:
        tree = parse(decode(read_source(source)), str(source))
    except SourceError as exc:
        raise ScaffoldError(f"cannot read {str(source)!r}: {exc}") from None
    inputs, variables, optimizer = _found(tree)
    specs, todo = [], []
    for name, dtype, shape, line in inputs:
        dims = list(shape[1:]) if isinstance(shape, (list, tuple)) and shape else []
        varying = [i for i, d in enumerate(dims) if d is None]
        dims = [8 if d is None else d for d in dims]
        extra = f", varying={tuple(varying)!r}" if varying else ""
        specs.append(f'    InputSpec({name!r}, {tuple(dims)!r}, {dtype!r}{extra}),  # line {line}')
        if varying:
            todo.append(f"# line {line}: {name!r} has unknown dims {varying}; 8 is used for them in batches")
    weights = []
    for name, shape, line in variables:
        if isinstance(shape, (list, tuple)) and all(isinstance(d, int) for d in shape):
            weights.append(f'        {name!r}: rng.standard_normal({tuple(shape)!r}).astype("float32"),  # line {line}')
        else:
            weights.append(f'        # TODO(tfcompare): {name!r} (line {line}): shape not static; write it here')
    if optimizer:
        kind, lr, momentum, line = optimizer
        mapped = _OPTIMIZERS.get(kind)
        opt_line = (f"    optimizer_cls, learning_rate = {mapped}, {lr!r}  # {kind} at line {line}" if mapped else
                    f"    optimizer_cls, learning_rate = SGD, {lr!r}  # TODO(tfcompare): {kind} (line {line}) has no "
                    "TF1-exact TF2 optimizer in tfcompare yet; write one with the same update")
        if momentum is not None and mapped == "Momentum":
            opt_line += f"\n    # TF1 momentum at line {line}: {momentum!r} (tfcompare.Momentum defaults to 0.9)"
    else:
        opt_line = "    optimizer_cls, learning_rate = SGD, 0.1  # TODO(tfcompare): no tf.compat.v1.train optimizer found"
    spec_text = "\n".join(specs) or "    # TODO(tfcompare): no placeholder found; declare the inputs here"
    weight_text = "\n".join(weights) or "        # TODO(tfcompare): no get_variable found; the weights go here"
    batch = ", ".join(f"{n!r}: rng.standard_normal((n, *{tuple(8 if d is None else d for d in (list(s[1:]) if isinstance(s, (list, tuple)) and s else []))!r})).astype({d!r})"
                      for n, d, s, _ in inputs)
    case = _case_name(source.stem)
    todo_text = "".join(t + "\n" for t in todo)
    text = f'''"""Starter cases file written by `tfcompare migrate --scaffold` from the TF1 script SOURCE (edit the TODOs).

Next: fill in build_graph (your TF1 code) and Model (your TF2 rewrite), then
    tfcompare run --cases-file THIS_FILE --case CASE
"""
{todo_text}
import tensorflow as tf

from tfcompare import (SGD, Adagrad, Adam, Case, InputSpec, Momentum, RMSProp, StepModule,  # noqa: F401
                       graph_parts, placeholders, tf1)

SOURCE = {str(source)!r}
CASE = {case!r}

INPUTS = (
{spec_text}
)


def init_weights(rng):
    return {{
{weight_text}
    }}


def make_batch(rng, n):
    return {{{batch}}}


def build_graph(specs):
    """TF1: your graph, built inside a fresh tf.compat.v1.Graph by the harness."""
    inputs = placeholders(specs)  # the placeholders above, by name
    # TODO(tfcompare): paste the graph of SOURCE here, reading inputs[...] and tf1.get_variable(...), then
    # return graph_parts(inputs, output, loss, optimizer, {{name: variable, ...}})
    raise NotImplementedError("fill in build_graph with the TF1 graph of " + SOURCE)


class Model(StepModule):
    """TF2: your rewrite; the harness decides whether train_step runs in tf.function."""

{opt_line}

    def __call__(self, inputs):
        raise NotImplementedError("fill in the TF2 forward pass")  # TODO(tfcompare)

    def loss(self, inputs):
        raise NotImplementedError("fill in the TF2 loss")  # TODO(tfcompare)


CASES = [Case(CASE, {(source.name + ": TF1 script vs its TF2 rewrite")!r}, INPUTS, init_weights,
              make_batch, build_graph, Model)]
'''
    return text
