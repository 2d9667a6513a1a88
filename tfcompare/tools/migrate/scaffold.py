"""A starter cases file from a TF1 script: its placeholders as `InputSpec`s (a `None` batch dimension) or scalar
feeds (keep_prob, a learning rate), its variables with initial values from their initializers, its optimizer and
learning rate mapped to a TF1-exact TF2 one, its TF1 graph as the case's `build_graph`, and the TF2 forward pass
and loss left for the user.

Read from the AST only: nothing of the script runs while the scaffold is made or loaded (`tfcompare list
--cases-file OUT.py`). The script's graph-building statements (from its first placeholder up to the session) are
re-emitted from the AST into `build_graph`, so they run, under `tf.compat.v1`, only when the user runs the case.

Every string that comes from the user's source or a path (a placeholder's name, a file name) is written as a
Python literal made by `repr()` (or by `ast.unparse` for the copied statements), never inside a docstring or a
comment as text: a name holding quotes, newlines or triple quotes stays data and cannot become code.

What is read from the script is `tf1_script.TF1Script` (its constant expressions: `literals`); this module writes
the cases file from it.
"""

from __future__ import annotations

import ast
import math
import re
import textwrap
from pathlib import Path

from tfcompare.tools.migrate.literals import is_number
from tfcompare.tools.migrate.sources import SourceError, decode, parse, read_source
from tfcompare.tools.migrate.tf1_script import TF1Script

__all__ = ["ScaffoldError", "check_out", "scaffold_text"]

# names the scaffold itself defines or imports: a script constant of the same name is not copied over them
_RESERVED = {"np", "tf", "SGD", "Adagrad", "Adam", "Case", "InputSpec", "Momentum", "RMSProp", "StepModule",
             "graph_parts", "placeholders", "tf1", "SOURCE", "CASE", "INPUTS", "SCALAR_FEEDS", "init_weights",
             "make_batch", "feed_scalars", "build_graph", "Model", "CASES"}


class ScaffoldError(ValueError):
    """The scaffold cannot be made (its name is not a cases file's, or the source cannot be read)."""


_NO_INPUTS = ("    InputSpec('TODO', (1,)),  # TODO(tfcompare): no placeholder with a batch dimension found; "
              "declare the inputs")


def _case_name(stem: str) -> str:
    name = re.sub(r"[^a-z0-9_\-]", "-", stem.lower()).strip("-_") or "case"
    return name if name[0].isalpha() else f"c-{name}"


def check_out(out: str | Path) -> None:
    """Refuse an output name that is not a cases file's, before anything else is done."""
    if Path(out).suffix != ".py":
        raise ScaffoldError(f"{str(out)!r} must end in .py (it is a cases file)")


def _init_expr(shape: tuple, init: tuple) -> str:
    kind, kw = init
    if kind == "zeros":
        return f"np.zeros({shape!r}, np.float32)"
    if kind == "ones":
        return f"np.ones({shape!r}, np.float32)"
    if kind == "constant":
        return f"np.full({shape!r}, {float(kw['value'])!r}, np.float32)"
    if kind == "normal":
        return (f"(rng.standard_normal({shape!r}) * {float(kw['stddev'] or 1.0)!r} + "
                f"{float(kw['mean'] or 0.0)!r}).astype(np.float32)")
    if kind == "uniform":
        return f"rng.uniform({float(kw['low'])!r}, {float(kw['high'])!r}, {shape!r}).astype(np.float32)"
    fan_in, fan_out = (shape[-2], shape[-1]) if len(shape) >= 2 else (shape[0] if shape else 1,) * 2
    receptive = math.prod(shape[:-2]) if len(shape) > 2 else 1
    limit = math.sqrt(6.0 / ((fan_in + fan_out) * receptive))
    return f"rng.uniform({-limit!r}, {limit!r}, {shape!r}).astype(np.float32)"


def _graph_body(script: TF1Script) -> list[str]:
    """build_graph's body: the script's graph code under tf.compat.v1, ending in graph_parts."""
    body = ["tf = tf1  # the script's TF1 code, run under tf.compat.v1 in the harness's graph",
            "inputs = placeholders(specs)"]
    body += [f"{target} = inputs[{name!r}]" for target, name, *_ in script.inputs]
    body += [f"{target} = tf1.placeholder({dtype!r}, shape=(), name={name!r})"
             for target, name, dtype, *_ in script.scalars]
    body += ast.unparse(ast.Module(body=script.graph_statements(), type_ignores=[])).splitlines()
    missing = [what for what, v in (("the train op (x = optimizer.minimize(loss))", script.train),
                                    ("the output tensor", script.output), ("variables", script.variables)) if not v]
    if missing:
        body += [f"# TODO(tfcompare): not found in the script: {', '.join(missing)}",
                 'raise NotImplementedError("finish build_graph: return graph_parts(inputs, output, loss, '
                 'train_op, {name: variable})")']
        return body
    feeds = ", ".join(f"{name!r}: {target}" for target, name, *_ in script.scalars)
    variables = ", ".join(f"{key!r}: {access}" for key, access, *_ in script.variables)
    loss = script.loss.id if isinstance(script.loss, ast.Name) else ast.unparse(script.loss)
    body.append(f"return graph_parts({{**inputs{', ' + feeds if feeds else ''}}}, {script.output}, {loss}, "
                f"{script.train}, {{{variables}}})")
    return body


def scaffold_text(source: str | Path, out: str | Path) -> str:
    """The starter cases file for the TF1 script `source`, to be written at `out`."""
    source, out = Path(source), Path(out)
    try:
        tree = parse(decode(read_source(source)), str(source))
    except SourceError as exc:
        raise ScaffoldError(f"cannot read {str(source)!r}: {exc}") from None
    script = TF1Script(tree)
    specs = [f"    InputSpec({name!r}, {dims!r}, {dtype!r}{f', varying={varying!r}' if varying else ''}),"
             f"  # line {line}" for _, name, dims, dtype, varying, line in script.inputs]
    scalars = [f"    {name!r}: {float(value)!r},  # line {line}: {why}"
               for _, name, _, value, why, line in script.scalars]
    derived = all(v[3] is not None for v in script.variables) and script.variables
    weights = [f"        {key!r}: {_init_expr(shape, init)},  # line {line}"
               + (": glorot_uniform, TF1's default initializer" if init[0] == "glorot" else "")
               for key, _, shape, init, line in script.variables] if derived else []
    if script.optimizer:
        kind, mapped, lr, kwargs, line = script.optimizer
        opt = [f"optimizer_cls = {mapped or 'SGD'}  # {kind} at line {line}" +
               ("" if mapped else ": TODO(tfcompare) no TF1-exact TF2 optimizer in tfcompare; write one"),
               f"learning_rate = {lr!r}" + ("" if lr is not None else "  # TODO(tfcompare): not a constant; set it")]
        if kwargs:
            opt.append(f"optimizer_kwargs = {kwargs!r}")
    else:
        opt = ["optimizer_cls, learning_rate = SGD, 0.1  # TODO(tfcompare): no tf.compat.v1.train optimizer found"]
    constants = [f"{k} = {v!r}" for k, v in script.env.items()
                 if (is_number(v) or isinstance(v, (str, tuple, bool))) and k not in _RESERVED]
    case = _case_name(source.stem)
    indent = "    "
    init_fn = ("def init_weights(rng):\n    return {\n" + "\n".join(weights) + "\n    }\n" if derived else
               "init_weights = None  # the TF1 graph's own initializers give the shared initial values\n")
    notes = "".join(f"# {n!r}\n" for n in script.notes)
    batch = ", ".join(f"{name!r}: rng.standard_normal((n, *{dims!r})).astype({dtype!r})"
                      for _, name, dims, dtype, *_ in script.inputs)
    return f'''"""Starter cases file written by `tfcompare migrate --scaffold` from the TF1 script SOURCE.

build_graph holds the script's TF1 graph code; fill in Model.__call__ and Model.loss (the TF2 forward pass and
loss, reading inputs[name] and self.variables_by_name[name]), then
    tfcompare run --cases-file THIS_FILE --case CASE
"""

import numpy as np
import tensorflow as tf

from tfcompare import (SGD, Adagrad, Adam, Case, InputSpec, Momentum, RMSProp, StepModule,  # noqa: F401
                       graph_parts, placeholders, tf1)

SOURCE = {str(source)!r}
CASE = {case!r}
# what could not be read from the script (each a TODO):
{notes}
# the script's module-level constants
{chr(10).join(constants)}

INPUTS = (
{chr(10).join(specs) or _NO_INPUTS}
)

# scalar placeholders: fed to the TF1 graph with every batch; the TF2 model reads them from here
SCALAR_FEEDS = {{
{chr(10).join(scalars)}
}}


{init_fn}

def make_batch(rng, n):
    return {{{batch}}}


def feed_scalars(batch):
    return {{**batch, **{{k: np.asarray(v, np.float32) for k, v in SCALAR_FEEDS.items()}}}}


def build_graph(specs):
    """TF1: the script's graph, built inside a fresh tf.compat.v1.Graph by the harness."""
{textwrap.indent(chr(10).join(_graph_body(script)), indent)}


class Model(StepModule):
    """TF2: your rewrite; the harness decides whether train_step runs in tf.function."""

{textwrap.indent(chr(10).join(opt), indent)}

    def __call__(self, inputs):
        raise NotImplementedError("fill in the TF2 forward pass")  # TODO(tfcompare)

    def loss(self, inputs):
        raise NotImplementedError("fill in the TF2 loss")  # TODO(tfcompare)


CASES = [Case(CASE, {(source.name + ": TF1 script vs its TF2 rewrite")!r}, INPUTS, init_weights,
              make_batch, build_graph, Model, tf1_batch=feed_scalars if SCALAR_FEEDS else None)]
'''
