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
"""

from __future__ import annotations

import ast
import math
import operator
import re
import textwrap
from pathlib import Path

from tfcompare.tools.migrate.references import aliases, chain
from tfcompare.tools.migrate.sources import SourceError, decode, parse, read_source

__all__ = ["ScaffoldError", "check_out", "scaffold_text"]

_DTYPES = {"float32": "float32", "float": "float32", "float64": "float64", "double": "float64", "int32": "int32",
           "int64": "int64", "int": "int32"}
# TF1 optimizer -> (tfcompare's TF1-exact optimizer, TF1's positional parameters after learning_rate that it takes)
_OPTIMIZERS = {"GradientDescentOptimizer": ("SGD", ()), "MomentumOptimizer": ("Momentum", ("momentum",)),
               "AdamOptimizer": ("Adam", ("beta1", "beta2", "epsilon")),
               "RMSPropOptimizer": ("RMSProp", ("decay", "momentum", "epsilon")),
               "AdagradOptimizer": ("Adagrad", ("initial_accumulator_value",))}
_OPTIMIZER_KWARGS = {"momentum", "use_nesterov", "beta1", "beta2", "epsilon", "decay", "initial_accumulator_value"}
# a module-level statement calling one of these starts running or saving the graph: build_graph ends before it
_STOP = {"Session", "InteractiveSession", "global_variables_initializer", "initialize_all_variables", "Saver",
         "FileWriter", "run", "start_queue_runners"}
_SKIP = {"print", "merge_all"}  # statements that only report: left out of build_graph
_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}


# names the scaffold itself defines or imports: a script constant of the same name is not copied over them
_RESERVED = {"np", "tf", "SGD", "Adagrad", "Adam", "Case", "InputSpec", "Momentum", "RMSProp", "StepModule",
             "graph_parts", "placeholders", "tf1", "SOURCE", "CASE", "INPUTS", "SCALAR_FEEDS", "init_weights",
             "make_batch", "feed_scalars", "build_graph", "Model", "CASES"}


class ScaffoldError(ValueError):
    """The scaffold cannot be made (its name is not a cases file's, or the source cannot be read)."""


def _value(node, env: dict):
    """A constant expression of the script (numbers, strings, tuples, module-level constants, + - * / // %, small
    powers), or None: evaluated without running anything."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool, type(None))):
        return node.value
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_value(e, env) for e in node.elts]
        return None if any(i is None and not (isinstance(e, ast.Constant) and e.value is None)
                           for i, e in zip(items, node.elts)) else tuple(items)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _value(node.operand, env)
        return -v if isinstance(v, (int, float)) and not isinstance(v, bool) else None
    if isinstance(node, ast.BinOp):
        a, b = _value(node.left, env), _value(node.right, env)
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b)):
            return None
        if isinstance(node.op, ast.Pow):
            return a ** b if abs(b) <= 64 and abs(a) <= 1e6 else None
        try:
            out = _BINOPS[type(node.op)](a, b) if type(node.op) in _BINOPS else None
        except ArithmeticError:
            return None
        return out if out is None or (abs(out) < 1e15 and math.isfinite(out)) else None
    return None


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _arg(call: ast.Call, index: int, name: str):
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return call.args[index] if len(call.args) > index else None


def _constants(tree: ast.Module) -> dict:
    """Module-level `NAME = constant expression` (the last value each name gets at module level)."""
    env: dict = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            v = _value(stmt.value, env)
            if v is not None:
                env[stmt.targets[0].id] = v
            else:
                env.pop(stmt.targets[0].id, None)
    return env


class _Script:
    """What the scaffold needs from the TF1 script, read from its AST."""

    def __init__(self, tree: ast.Module):
        self.tree = tree
        names = aliases(tree)
        self.tf = {k for k, v in names.items() if v in ("tensorflow", "tensorflow.compat.v1")}
        self.env = _constants(tree)
        self.inputs, self.scalars, self.variables, self.optimizer, self.notes = [], [], [], None, []
        self.train = self.loss = self.output = None
        self._read()

    def _tf_call(self, node, *names) -> bool:
        parts = chain(node.func) if isinstance(node, ast.Call) else None
        return bool(parts) and parts[0] in self.tf and parts[-1] in names

    def _dropout_args(self) -> set[str]:
        return {n.id for c in ast.walk(self.tree) if self._tf_call(c, "dropout")
                for a in [*c.args, *(k.value for k in c.keywords)] for n in ast.walk(a) if isinstance(n, ast.Name)}

    def _fed(self, name: str) -> tuple[bool, object]:
        """(whether the script feeds the placeholder `name` data that changes, the first constant it feeds it):
        `feed_dict={X: x}` is data, `feed_dict={lr: 0.01}` a constant."""
        data, constant = False, None
        for d in ast.walk(self.tree):
            if isinstance(d, ast.Dict):
                for k, v in zip(d.keys, d.values):
                    if isinstance(k, ast.Name) and k.id == name:
                        value = _value(v, self.env)
                        if _number(value):
                            constant = value if constant is None else constant
                        else:
                            data = True
        return data, constant

    def _gradients_of(self):
        """The loss of the script's `tf.gradients(loss, ...)` or `optimizer.compute_gradients(loss)`."""
        return next((c.args[0] for c in ast.walk(self.tree) if isinstance(c, ast.Call) and c.args
                     and (chain(c.func) or [""])[-1] in ("gradients", "compute_gradients")), None)

    def _learning_rates(self) -> set[str]:
        return {a.id for c in ast.walk(self.tree) if isinstance(c, ast.Call)
                and (chain(c.func) or [""])[-1].endswith("Optimizer")
                for a in [_arg(c, 0, "learning_rate")] if isinstance(a, ast.Name)}

    def _module_statements(self):
        """The module's statements, with those inside module-level `with` blocks (tf.device, tf.name_scope)."""
        todo = list(self.tree.body)
        while todo:
            stmt = todo.pop(0)
            if isinstance(stmt, ast.With):
                todo[:0] = stmt.body
            else:
                yield stmt

    def _read(self) -> None:
        dropout = self._dropout_args()
        for stmt in self._module_statements():
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
                continue
            target, value = stmt.targets[0], stmt.value
            if isinstance(target, ast.Name) and self._tf_call(value, "placeholder"):
                self._placeholder(target.id, value, dropout)
            elif isinstance(target, ast.Name) and self._tf_call(value, "Variable", "get_variable"):
                self._variable(target.id, target.id, value)
            elif isinstance(target, ast.Name) and isinstance(value, ast.Dict):
                for k, v in zip(value.keys, value.values):
                    if isinstance(k, ast.Constant) and isinstance(k.value, str) and self._tf_call(v, "Variable",
                                                                                                 "get_variable"):
                        self._variable(f"{target.id}/{k.value}", f"{target.id}[{k.value!r}]", v)
            if isinstance(target, ast.Name) and isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                    and value.func.attr == "minimize" and value.args and self.train is None:
                self.train, self.loss = target.id, value.args[0]
                self._optimizer(value.func.value, stmt.lineno)
            elif isinstance(target, ast.Name) and isinstance(value, ast.Call) and \
                    isinstance(value.func, ast.Attribute) and value.func.attr == "apply_gradients" and \
                    self.train is None and self._gradients_of() is not None:
                self.train, self.loss = target.id, self._gradients_of()
                self._optimizer(value.func.value, stmt.lineno)
            elif isinstance(target, ast.Name) and self._tf_call(value, *_OPTIMIZERS) and self.optimizer is None:
                self._optimizer(value, stmt.lineno)
        self.output = self._output()

    def _placeholder(self, target: str, call: ast.Call, dropout: set) -> None:
        dtype_node = _arg(call, 0, "dtype")
        dtype = (dtype_node.attr if isinstance(dtype_node, ast.Attribute) else _value(dtype_node, self.env)) \
            if dtype_node is not None else "float32"
        dtype = _DTYPES.get(dtype if isinstance(dtype, str) else "", None)
        shape_node = _arg(call, 1, "shape")
        shape = _value(shape_node, self.env) if shape_node is not None else None
        name = _value(_arg(call, 2, "name"), self.env) if _arg(call, 2, "name") is not None else None
        name = name if isinstance(name, str) and name else target
        if dtype is None:
            self.notes.append(f"line {call.lineno}: placeholder {name!r} has a dtype tfcompare does not feed "
                              "(float32/64, int32/64); float32 is used")
            dtype = "float32"
        if shape is None or shape == ():
            data, value = self._fed(target)
            if target in dropout:
                value, why = 1.0, "dropout off: TF1 and TF2 draw different random masks"
            elif data and target not in self._learning_rates():  # one example's value per step: data
                self.inputs.append((target, name, (), dtype, (), call.lineno))
                return
            else:
                why = "as the script feeds it"
            if value is None:
                value, why = 1.0, "TODO(tfcompare): the script feeds no constant; set the value"
            self.scalars.append((target, name, dtype, value, why, call.lineno))
            return
        if not isinstance(shape, tuple) or not all(d is None or (isinstance(d, int) and d > 0) for d in shape):
            self.notes.append(f"line {call.lineno}: placeholder {name!r}: shape not a constant; declare it by hand")
            return
        if shape[0] is not None:
            self.notes.append(f"line {call.lineno}: placeholder {name!r} has a fixed batch dimension "
                              f"{shape[0]}; the case feeds batches of --batch-size")
        dims = shape[1:]
        varying = tuple(i for i, d in enumerate(dims) if d is None)
        self.inputs.append((target, name, tuple(8 if d is None else d for d in dims), dtype, varying, call.lineno))

    def _init(self, call: ast.Call):
        """(shape, numpy expression for the initial value) of a tf.Variable or get_variable, or (shape, None)."""
        if self._tf_call(call, "get_variable"):
            shape = _value(_arg(call, 1, "shape"), self.env)
            init = _arg(call, 2, "initializer")
            if init is None:  # TF1's default: glorot_uniform
                return shape, ("glorot", {})
            if isinstance(init, ast.Call):
                kind = (chain(init.func) or [""])[-1].replace("_initializer", "")
                kw = {k.arg: _value(k.value, self.env) for k in init.keywords}
                if kind in ("zeros", "ones"):
                    return shape, (kind, {})
                if kind == "constant":
                    return shape, ("constant", {"value": _value(_arg(init, 0, "value"), self.env)})
                if kind in ("random_normal", "truncated_normal"):
                    return shape, ("normal", {"mean": kw.get("mean", 0.0), "stddev": kw.get("stddev", 1.0)})
                if kind in ("xavier", "glorot_uniform"):
                    return shape, ("glorot", {})
            return shape, None
        init = _arg(call, 0, "initial_value")
        if not isinstance(init, ast.Call):
            v = _value(init, self.env)
            return ((), ("constant", {"value": v})) if _number(v) else (None, None)
        kind = (chain(init.func) or [""])[-1]
        shape = _value(_arg(init, 0, "shape"), self.env)
        kw = {k.arg: _value(k.value, self.env) for k in init.keywords}
        if kind in ("zeros", "ones"):
            return shape, (kind, {})
        if kind in ("random_normal", "normal", "truncated_normal"):
            return shape, ("normal", {"mean": kw.get("mean", _value(_arg(init, 1, "mean"), self.env) or 0.0),
                                      "stddev": kw.get("stddev", _value(_arg(init, 2, "stddev"), self.env) or 1.0)})
        if kind in ("random_uniform", "uniform"):
            return shape, ("uniform", {"low": kw.get("minval", 0.0), "high": kw.get("maxval", 1.0)})
        if kind == "constant":
            value = _value(_arg(init, 0, "value"), self.env)
            return _value(_arg(init, 2, "shape"), self.env) or (), ("constant", {"value": value})
        return shape, None

    def _variable(self, key: str, access: str, call: ast.Call) -> None:
        shape, init = self._init(call)
        ok_shape = isinstance(shape, tuple) and all(isinstance(d, int) and d > 0 for d in shape)
        if not ok_shape or init is None or not all(v is None or _number(v) for v in init[1].values()):
            self.notes.append(f"line {call.lineno}: variable {key!r}: initial value not read from the script; "
                              "the TF1 graph's own initializers are used")
            init = None
        self.variables.append((key, access, shape if ok_shape else None, init, call.lineno))

    def _optimizer(self, node, line: int) -> None:
        if isinstance(node, ast.Name):  # `optimizer = tf.train.AdamOptimizer(...)`, then `optimizer.minimize`
            node = next((s.value for s in self.tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1
                         and isinstance(s.targets[0], ast.Name) and s.targets[0].id == node.id), None)
        if not self._tf_call(node, *_OPTIMIZERS, *(n for n in ("Optimizer",))) and not (
                isinstance(node, ast.Call) and (chain(node.func) or [""])[-1].endswith("Optimizer")):
            return
        kind = chain(node.func)[-1]
        lr_node = _arg(node, 0, "learning_rate")
        lr = _value(lr_node, self.env)
        if isinstance(lr_node, ast.Name) and lr is None:
            lr = next((s[3] for s in self.scalars if s[0] == lr_node.id), None)
        mapped, positional = _OPTIMIZERS.get(kind, (None, ()))
        kwargs = {name: _value(a, self.env) for name, a in zip(positional, node.args[1:])}
        kwargs.update({k.arg: _value(k.value, self.env) for k in node.keywords if k.arg in _OPTIMIZER_KWARGS})
        self.optimizer = (kind, mapped, lr if _number(lr) else None,
                          {k: v for k, v in kwargs.items() if _number(v) or isinstance(v, bool)}, line)

    def _output(self):
        """The tensor the loss is computed from: the first name in the loss (followed through plain renames) that
        the graph code computes from an input, and is not an input itself."""
        if self.loss is None:
            return None
        assigned = {s.targets[0].id: s.value for s in self._module_statements() if isinstance(s, ast.Assign)
                    and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)}
        feeds = {i[0] for i in self.inputs} | {s[0] for s in self.scalars}

        def from_input(name: str, seen: frozenset = frozenset()) -> bool:
            if name in feeds:
                return True
            if name not in assigned or name in seen:
                return False
            return any(from_input(n.id, seen | {name}) for n in ast.walk(assigned[name]) if isinstance(n, ast.Name))

        loss = assigned.get(self.loss.id) if isinstance(self.loss, ast.Name) else self.loss
        for n in [x for x in ast.walk(loss) if isinstance(x, ast.Name)] if loss is not None else []:
            name, seen = n.id, set()
            while isinstance(assigned.get(name), ast.Name) and name not in seen:
                seen.add(name)
                name = assigned[name].id
            if name in assigned and name not in feeds and from_input(name):
                return name
        return None

    def graph_statements(self) -> list[ast.stmt]:
        """The script's module-level graph code, up to the first statement that runs or saves anything (a session,
        an initializer, a saver, a writer): its function definitions, non-TensorFlow imports and the statements
        building the graph. Left out: the placeholders (made from INPUTS), the constants (at module level),
        `print`s, and whatever reads data through a TensorFlow module other than `tf` (`input_data.read_data_sets`)
        or uses what such a statement made."""
        feeds = {i[0] for i in self.inputs} | {s[0] for s in self.scalars}
        names = aliases(self.tree)
        skipped = {k for k in names if k not in self.tf}  # contrib/examples modules: data loading, not graph
        out = []
        todo = list(self.tree.body)
        while todo:
            stmt = todo.pop(0)
            if isinstance(stmt, ast.With):
                contexts = [(chain(i.context_expr.func) or [""])[-1] if isinstance(i.context_expr, ast.Call) else ""
                            for i in stmt.items]
                inner = {(chain(n.func) or [""])[-1] for n in ast.walk(stmt) if isinstance(n, ast.Call)}
                if "as_default" in contexts or inner & _STOP:  # the harness's graph is the default already
                    todo[:0] = stmt.body
                    continue
            if isinstance(stmt, ast.Assign) and self._tf_call(stmt.value, "Graph"):
                continue  # `graph = tf.Graph()`: build_graph runs in the harness's graph
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                module = stmt.module if isinstance(stmt, ast.ImportFrom) else stmt.names[0].name
                if not (module or "").startswith(("tensorflow", "__future__")):
                    out.append(stmt)
                continue
            if isinstance(stmt, ast.ClassDef):
                continue
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append(stmt)
                continue
            called = {(chain(n.func) or [""])[-1] for n in ast.walk(stmt) if isinstance(n, ast.Call)}
            if called & _STOP or (isinstance(stmt, ast.If) and "__main__" in ast.unparse(stmt.test)):
                break
            targets = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            used = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            if used & (skipped - {d.name for d in out if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))}):
                skipped |= targets
                continue
            if called & _SKIP and isinstance(stmt, ast.Expr):
                continue
            if isinstance(stmt, ast.Assign) and targets and targets <= (feeds | set(self.env)):
                continue
            out.append(stmt)
        return out


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


def _graph_body(script: _Script) -> list[str]:
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
    script = _Script(tree)
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
                 if (_number(v) or isinstance(v, (str, tuple, bool))) and k not in _RESERVED]
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
