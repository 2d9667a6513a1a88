"""What `tfcompare migrate --scaffold` reads from a TF1 script, from its AST only (nothing of the script runs):
its placeholders (inputs with a `None` batch dimension, or scalar feeds such as keep_prob and a learning rate), its
variables and their initializers, its optimizer and learning rate, its train op, loss and output tensor, and the
module-level statements that build its graph (`TF1Script.graph_statements`, re-emitted into `build_graph`).
"""

from __future__ import annotations

import ast

from tfcompare.tools.migrate.literals import argument, is_number, literal, module_constants
from tfcompare.tools.migrate.references import aliases, chain

__all__ = ["TF1Script"]

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


class TF1Script:
    """What the scaffold needs from the TF1 script, read from its AST."""

    def __init__(self, tree: ast.Module):
        self.tree = tree
        names = aliases(tree)
        self.tf = {k for k, v in names.items() if v in ("tensorflow", "tensorflow.compat.v1")}
        self.env = module_constants(tree)
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
                        value = literal(v, self.env)
                        if is_number(value):
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
                for a in [argument(c, 0, "learning_rate")] if isinstance(a, ast.Name)}

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
        dtype_node = argument(call, 0, "dtype")
        dtype = (dtype_node.attr if isinstance(dtype_node, ast.Attribute) else literal(dtype_node, self.env)) \
            if dtype_node is not None else "float32"
        dtype = _DTYPES.get(dtype if isinstance(dtype, str) else "", None)
        shape_node = argument(call, 1, "shape")
        shape = literal(shape_node, self.env) if shape_node is not None else None
        name = literal(argument(call, 2, "name"), self.env) if argument(call, 2, "name") is not None else None
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
            shape = literal(argument(call, 1, "shape"), self.env)
            init = argument(call, 2, "initializer")
            if init is None:  # TF1's default: glorot_uniform
                return shape, ("glorot", {})
            if isinstance(init, ast.Call):
                kind = (chain(init.func) or [""])[-1].replace("_initializer", "")
                kw = {k.arg: literal(k.value, self.env) for k in init.keywords}
                if kind in ("zeros", "ones"):
                    return shape, (kind, {})
                if kind == "constant":
                    return shape, ("constant", {"value": literal(argument(init, 0, "value"), self.env)})
                if kind in ("random_normal", "truncated_normal"):
                    return shape, ("normal", {"mean": kw.get("mean", 0.0), "stddev": kw.get("stddev", 1.0)})
                if kind in ("xavier", "glorot_uniform"):
                    return shape, ("glorot", {})
            return shape, None
        init = argument(call, 0, "initial_value")
        if not isinstance(init, ast.Call):
            v = literal(init, self.env)
            return ((), ("constant", {"value": v})) if is_number(v) else (None, None)
        kind = (chain(init.func) or [""])[-1]
        shape = literal(argument(init, 0, "shape"), self.env)
        kw = {k.arg: literal(k.value, self.env) for k in init.keywords}
        if kind in ("zeros", "ones"):
            return shape, (kind, {})
        if kind in ("random_normal", "normal", "truncated_normal"):
            return shape, ("normal", {"mean": kw.get("mean", literal(argument(init, 1, "mean"), self.env) or 0.0),
                                      "stddev": kw.get("stddev", literal(argument(init, 2, "stddev"), self.env) or 1.0)})
        if kind in ("random_uniform", "uniform"):
            return shape, ("uniform", {"low": kw.get("minval", 0.0), "high": kw.get("maxval", 1.0)})
        if kind == "constant":
            value = literal(argument(init, 0, "value"), self.env)
            return literal(argument(init, 2, "shape"), self.env) or (), ("constant", {"value": value})
        return shape, None

    def _variable(self, key: str, access: str, call: ast.Call) -> None:
        shape, init = self._init(call)
        ok_shape = isinstance(shape, tuple) and all(isinstance(d, int) and d > 0 for d in shape)
        if not ok_shape or init is None or not all(v is None or is_number(v) for v in init[1].values()):
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
        lr_node = argument(node, 0, "learning_rate")
        lr = literal(lr_node, self.env)
        if isinstance(lr_node, ast.Name) and lr is None:
            lr = next((s[3] for s in self.scalars if s[0] == lr_node.id), None)
        mapped, positional = _OPTIMIZERS.get(kind, (None, ()))
        kwargs = {name: literal(a, self.env) for name, a in zip(positional, node.args[1:])}
        kwargs.update({k.arg: literal(k.value, self.env) for k in node.keywords if k.arg in _OPTIMIZER_KWARGS})
        self.optimizer = (kind, mapped, lr if is_number(lr) else None,
                          {k: v for k, v in kwargs.items() if is_number(v) or isinstance(v, bool)}, line)

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
