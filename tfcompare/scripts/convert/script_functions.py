"""The script's own graph-building functions as methods of the rewrite: a GAN's `generator(z)` and
`discriminator(x)`, called at the top level of the script, become `def generator(self, z)` /
`def discriminator(self, x)` with their own local names (`D_h1`, `D_logit`), returning what the function
returned, and every loss calls them (`self.discriminator(G_sample)[1]`) instead of writing their ops out again.
Where the model's one forward pass is what a function returned (`logits = conv_net(X, weights, ...)`), the forward
pass takes that function's names, and the helpers it calls (`conv2d(x, weights['wc1'], biases['bc1'])`) are
methods the forward pass calls (`forward_names`).

Read from the graph, checked against the source: each op's traceback names the chain of the script's function
calls that made it (from the top level, by their lines). A function is written as a method only where every call
is one the rewrite can make: its arguments are tensors the script names (a weight of a dict included) or, inside
another function, the one tensor the caller computed; its ops read nothing else but variables and constants; it
returns names assigned in its body, or one expression; and every call translates to the same code. Anything else
is written op by op, as before.
"""

from __future__ import annotations

import ast
import dataclasses
import re

from tfcompare.scripts.convert.naming import INDENT
from tfcompare.scripts.convert.script_globals import global_value

__all__ = ["method_names", "Call", "find_calls", "function_methods", "forward_names", "framework_names"]

_UNKNOWN = object()  # an argument that is no global of the script
_VARIABLES = {"VariableV2", "VarHandleOp", "Variable", "ReadVariableOp", "Const"}


@dataclasses.dataclass(eq=False)
class Call:
    function: str
    params: list  # the function's parameter names
    ops: set  # op names made by this call
    args: list  # the call's tensor arguments, in parameter order
    outputs: list  # the tensors it returned, in its return order
    local_names: dict  # tensor name -> the function's own name for it
    active: bool = True  # False while its own body is translated
    chain: tuple = ()  # ((caller, line), ...) from the script's top level to this call

    def text(self, tr, t) -> str:
        call = f"self.{self.function}({', '.join(tr.value(a) for a in self.args)})"
        index = next(i for i, o in enumerate(self.outputs) if o.name == t.name)
        return call if len(self.outputs) == 1 else f"{call}[{index}]"


def find_calls(graph, script: str, tree: ast.Module, module_dict: dict) -> dict[str, list[Call]]:
    """{function name: [its calls]} for the script's functions whose every call can be a method call: calls from
    the script's top level, and calls from inside another of its functions (`conv2d(x, weights['wc1'], ...)` in
    `conv_net`), each call told apart by the chain of calls that made it."""
    import tensorflow as tf

    defs = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef) and _plain(f)}
    made: dict[tuple, set] = {}
    for op in graph.get_operations():
        frames = [f for f in (op.traceback or []) if f.filename == script]
        chain = []
        for outer, inner in zip(frames, frames[1:]):
            chain.append((outer.name, outer.lineno))
            if outer.name != "<module>" and outer.name not in defs:
                break
            if inner.name in defs:
                made.setdefault((inner.name, tuple(chain)), set()).add(op)
            else:
                break
    found: dict[str, list[Call]] = {}
    refused = set()
    for (name, chain), ops in sorted(made.items(), key=lambda kv: kv[0][1]):
        outer = tree if chain[-1][0] == "<module>" else defs[chain[-1][0]]
        call = _call(defs[name], chain[-1][1], ops, outer, module_dict, script, tf)
        if call is None:
            refused.add(name)
        else:
            call.chain = chain
            found.setdefault(name, []).append(call)
    return {k: v for k, v in found.items() if k not in refused}


def function_methods(tr, found: dict[str, list[Call]]) -> list[str]:
    """The methods' lines; each function whose calls all translate to the same code is registered with `tr` (its
    outputs are then its calls wherever another method reads them)."""
    code = []
    # the innermost first: a helper another function calls (`linear` in `generator`) is a method, or refused, before
    # the body that calls it is written
    for calls in sorted(found.values(), key=lambda cs: -max(len(c.chain) for c in cs)):
        todos = list(tr.todos)  # a refused function's translations leave no TODO in the console's list
        for call in calls:  # every call's outputs are calls while the others are translated
            for name in [t.name for t in call.outputs]:
                tr.calls[name] = sorted([*tr.calls.get(name, []), call], key=lambda c: len(c.chain))
            for name in call.ops:
                tr.call_ops[name] = sorted([*tr.call_ops.get(name, []), call], key=lambda c: len(c.chain))
        bodies = [_body(tr, call) for call in calls]
        flags = {name for name, _ in tr.flags.values()}
        if any(b != bodies[0] for b in bodies) or any(c.params != calls[0].params for c in calls) or \
                any("TODO_tfcompare" in line or set(re.findall(r"\w+", line.split("  # ")[0])) & flags
                    for line in bodies[0][0] + bodies[0][1]):
            for table in (tr.calls, tr.call_ops):  # refused: its calls are made op by op
                for name in list(table):
                    table[name] = [c for c in table[name] if c not in calls]
                    if not table[name]:
                        del table[name]
            tr.todos[:] = todos
            continue
        lines, exprs = bodies[0]
        first = calls[0]
        code.append(f"{INDENT}def {first.function}(self{''.join(', ' + p for p in first.params)}):")
        code += [INDENT * 2 + line for line in lines]
        code += [f"{INDENT * 2}return {', '.join(exprs)}", ""]
    return code


def forward_names(found: dict[str, list[Call]], out, tr, framework=None
                  ) -> tuple[dict[str, str], dict[str, list[Call]]]:
    """For the model's output returned by one of the script's functions (`logits = conv_net(X, ...)`): the
    function's own local names (`conv1`, `fc1`, `out`, rather than generated ones) for the forward pass written
    from its ops, and the calls of the script's functions made only inside it (`conv2d`, `maxpool2d`), to be
    methods the forward pass calls; with no such call, what `framework()` gives (`framework_names`: a model_fn's,
    read only then). A name is left out where it would read as another value: an argument's name, or a global name
    the script gave another tensor."""
    calls = [c for cs in found.values() for c in cs if any(o.name == out.name for o in c.outputs)]
    local = calls[0].local_names if len(calls) == 1 else framework() if framework else {}
    if len(calls) != 1 and not local:
        return {}, {}
    taken = set(tr.arguments.values()) | {"self", "training"}
    others = set(tr.names.values())
    names = {t: name for t, name in local.items()
             if name not in taken and (name not in others or tr.names.get(t) == name)}
    if len(calls) != 1:
        return names, {}
    call = calls[0]
    depth = len(call.chain)
    nested = {f: cs for f, cs in found.items()
              if all(len(c.chain) > depth and c.chain[:depth] == call.chain and c.chain[depth][0] == call.function
                     for c in cs)}
    return names, nested


def framework_names(graph, script: str, tree: ast.Module, out) -> dict[str, str]:
    """tensor name -> its own local name, for the ops of the function that computed `out` where the script defines
    that function and never calls it itself (an Estimator's `model_fn`, called by `classifier.train`): its `logits`
    rather than a generated name. Names only: the framework makes the call, so it is no method of the rewrite."""
    defs = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    frames = [(f.name, f.lineno) for f in (out.op.traceback or []) if f.filename == script]
    if len(frames) < 2 or frames[-1][0] not in defs or frames[-2][0] != "<module>":
        return {}
    f = defs[frames[-1][0]]
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == f.name for n in ast.walk(tree)):
        return {}
    ops = set()
    for op in graph.get_operations():  # the ops of the same call: made below the same line of the top level
        mine = [(x.name, x.lineno) for x in (op.traceback or []) if x.filename == script]
        if len(mine) >= 2 and mine[0] == frames[0] and mine[1][0] == f.name:
            ops.add(op)
    # in its `if mode == ...:` and `for` blocks too, in the order of the source
    assigned = _assigned(sorted((s for s in ast.walk(f) if isinstance(s, ast.stmt)), key=lambda s: s.lineno))
    return _local_names(assigned, _made([s for ss in assigned.values() for s in ss], ops, script, f.name), {}, ops)


def method_names(f: ast.FunctionDef, ops: set, script: str) -> dict[str, str]:
    """tensor name -> its own local name in `f` for `ops`: a class's `__init__` that built one of its instances
    (`l1`, `out`), the ops that instance's."""
    assigned = _assigned(sorted((s for s in ast.walk(f) if isinstance(s, ast.stmt)), key=lambda s: s.lineno))
    return _local_names(assigned, _made([s for ss in assigned.values() for s in ss], ops, script, f.name), {}, ops)


def _assigned(statements: list) -> dict[str, list]:
    """name -> the statements that assign it (`name = ...`), in order."""
    out: dict[str, list] = {}
    for s in statements:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            out.setdefault(s.targets[0].id, []).append(s)
    return out


def _made(statements: list, ops: set, script: str, function: str) -> dict:
    """statement -> the tensor it computed (the output of its last op among `ops`), for those that made one."""
    made = {}
    for s in statements:
        at = [op for op in ops if _line(op, script, function) in range(s.lineno, s.end_lineno + 1) and op.outputs]
        if at:
            made[s] = max(at, key=lambda o: o._id).outputs[0]
    return made


def _body(tr, call: Call) -> tuple[list[str], list[str]]:
    """The call's own ops as the function's body: its arguments are the parameters, its tensors its own names."""
    arguments = dict(tr.arguments)
    tr.arguments.update({t.name: p for t, p in zip(call.args, call.params)})
    call.active, tr.in_function = False, True
    try:
        tr._reset()
        tr._sharing = False
        tr._count(*call.outputs)
        # an output the function named is bound to its name; one it returned as an expression stays one
        with tr.renamed(call.local_names, replace=True):
            exprs = [tr._expr(t, top=t.name in call.local_names)[0] for t in call.outputs]
        lines = list(tr.lines)
        if len(exprs) == 1 and lines and call.outputs[0].name not in call.local_names and \
                lines[-1].code.startswith(f"{exprs[0]} = "):  # `h1 = tf.nn.relu(x)`, `return h1`: return the call
            last = lines.pop()
            exprs = [dataclasses.replace(last, code=last.code.split(" = ", 1)[1]).text("")]
        return [line.text("") for line in lines], exprs
    finally:
        call.active, tr.in_function = True, False
        tr.arguments.clear()
        tr.arguments.update(arguments)


def _plain(f: ast.FunctionDef) -> bool:
    a = f.args
    body = _statements(f)
    return not (a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs) and bool(a.args) and \
        isinstance(body[-1], ast.Return) and body[-1].value is not None


def _statements(f: ast.FunctionDef) -> list:
    """The function's statements, those of its `with tf.variable_scope(...)` blocks in their place."""
    out = []
    for s in f.body:
        out += _statements(s) if isinstance(s, ast.With) else [s]
    return out


def _call(f: ast.FunctionDef, line: int, ops: set, outer, module_dict: dict, script: str, tf):
    """The Call made at `line` of `outer` (the module, or the script's function that called it), or None where
    it cannot be a method call."""
    sites = [n for n in ast.walk(outer) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id == f.name and n.lineno == line]
    if len(sites) != 1:
        return None
    bound = _bound(f, sites[0])
    if bound is None:
        return None
    names = {op.name for op in ops}
    external = []  # the tensors the call's ops read from outside it: its tensor arguments, variables, constants
    for op in sorted(ops, key=lambda o: o._id):
        for t in op.inputs:
            if t.op.name not in names and all(t is not e for e in external):
                external.append(t)
    # the parameters given a tensor are the method's; the others (`reuse=True`, a width, a dict of weights) are
    # not: a call they change translates to other code, and the function is then not written as a method
    params, args = [], []
    nested = not isinstance(outer, ast.Module)
    for p, node in bound.items():
        value = global_value(node, module_dict, _UNKNOWN)
        if isinstance(value, tf.Tensor):
            params.append(p)
            args.append(value)
        elif isinstance(value, tf.Variable):  # `weights['wc1']`: the variable as its ops read it
            read = [t for t in external if _variable_of(t) == value.op.name]
            if len(read) != 1:
                return None
            params.append(p)
            args.append(read[0])
        elif value is _UNKNOWN and isinstance(node, ast.Name):
            if not nested:
                return None
            params.append(p)  # a tensor the calling function computed (`conv1`): told from the graph below
            args.append(None)
    inner = [t for t in external if _variable_of(t) is None and t.op.type != "Const" and
             not any(t is a for a in args)]
    if sum(a is None for a in args) != len(inner) or len(inner) > 1:
        return None
    args = [inner[0] if a is None else a for a in args]
    if not params:
        return None
    for t in external:  # reads nothing but its arguments, variables and constants
        if not any(t is a for a in args) and _variable_of(t) is None and t.op.type != "Const":
            return None
    body = _statements(f)
    returned = body[-1].value
    returned = returned.elts if isinstance(returned, ast.Tuple) else [returned]
    if len(returned) > 1 and not all(isinstance(r, ast.Name) for r in returned):
        return None
    assigned = _assigned(body)
    made = _made([*(s for ss in assigned.values() for s in ss), body[-1]], ops, script, f.name)
    outputs = []
    for r in returned:
        if isinstance(r, ast.Name):
            last = assigned.get(r.id, [])[-1:]
            if not last or last[0] not in made:
                return None
            outputs.append(made[last[0]])
        elif body[-1] in made:  # `return tf.nn.relu(x)`: what the return statement computed
            outputs.append(made[body[-1]])
        else:
            return None
    return Call(f.name, params, names, args, outputs, _local_names(assigned, made, dict(zip(params, args)), ops))


def _local_names(assigned: dict, made: dict, params: dict, ops: set) -> dict[str, str]:
    """tensor name -> the function's own name for it. A name assigned again names each of its values where the
    rewrite may rebind it as the script did (every reader of the earlier value is computed on the way to the
    later one); a parameter's name likewise: an earlier value that is read after its name is rebound keeps a
    generated name."""
    names = {op.name for op in ops}
    local = {}
    for name, statements in assigned.items():
        values = [made[s] for s in statements if s in made]
        if not values:
            continue
        sequence = ([params[name]] if name in params else []) + values
        for value in values:
            local[value.name] = name
        for before, after in zip(sequence, sequence[1:]):
            behind = _ancestors(after.op, names)
            if any(c.name in names and c.name not in behind for c in before.consumers()):
                if before.name in local:
                    del local[before.name]
                elif name in params:  # the parameter is read after the rebinding: the name is not rebound
                    for value in values:
                        local.pop(value.name, None)
                    break
    return local


def _ancestors(op, names: set) -> set:
    """`op` and the ops of the call it is computed from."""
    seen, stack = set(), [op]
    while stack:
        o = stack.pop()
        if o.name in seen or o.name not in names:
            continue
        seen.add(o.name)
        stack += [t.op for t in o.inputs]
    return seen



def _variable_of(t) -> str | None:
    """The variable op a tensor reads (through its read Identity), or None."""
    op = t.op
    while op.type in ("Identity", "ReadVariableOp") and op.inputs:
        op = op.inputs[0].op
    return op.name if op.type in _VARIABLES - {"Const", "ReadVariableOp"} else None


def _bound(f: ast.FunctionDef, site: ast.Call) -> dict | None:
    """{parameter: the call's expression for it} (positional, keyword, or the default), or None."""
    params = [a.arg for a in f.args.args]
    if len(site.args) > len(params) or any(isinstance(a, ast.Starred) for a in site.args) or \
            any(k.arg is None or k.arg not in params for k in site.keywords):
        return None
    bound = dict(zip(params, site.args))
    bound.update({k.arg: k.value for k in site.keywords})
    defaults = dict(zip(params[len(params) - len(f.args.defaults):], f.args.defaults))
    for p in params:
        if p not in bound:
            if p not in defaults:
                return None
            bound[p] = defaults[p]
    return {p: bound[p] for p in params}


def _line(op, script: str, function: str) -> int:
    frames = [f for f in (op.traceback or []) if f.filename == script and f.name == function]
    return frames[-1].lineno if frames else -1
