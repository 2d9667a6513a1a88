"""The script's own graph-building functions as methods of the rewrite: a GAN's `generator(z)` and
`discriminator(x)`, called at the top level of the script, become `def generator(self, z)` /
`def discriminator(self, x)` with their own local names (`D_h1`, `D_logit`), returning what the function
returned, and every loss calls them (`self.discriminator(G_sample)[1]`) instead of writing their ops out again.

Read from the graph, checked against the source: each op's traceback names the function call that made it (the
call from the script's top level, by its line). A function is written as a method only where every call is one
the rewrite can make: its arguments are tensors the script names, its ops read nothing else but variables and
constants, it returns names assigned in its body, and every call translates to the same code. Anything else is
written op by op, as before.
"""

from __future__ import annotations

import ast
import dataclasses

from tfcompare.scripts.convert.naming import INDENT

__all__ = ["Call", "find_calls", "function_methods"]

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

    def text(self, tr, t) -> str:
        call = f"self.{self.function}({', '.join(tr.value(a) for a in self.args)})"
        index = next(i for i, o in enumerate(self.outputs) if o.name == t.name)
        return call if len(self.outputs) == 1 else f"{call}[{index}]"


def find_calls(graph, script: str, tree: ast.Module, module_dict: dict) -> dict[str, list[Call]]:
    """{function name: [its calls]} for the script's functions whose every top-level call can be a method call."""
    import tensorflow as tf

    defs = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef) and _plain(f)}
    made: dict[tuple[str, int], set] = {}
    for op in graph.get_operations():
        frames = [f for f in (op.traceback or []) if f.filename == script]
        for outer, inner in zip(frames, frames[1:]):
            if outer.name == "<module>" and inner.name in defs:
                made.setdefault((inner.name, outer.lineno), set()).add(op)
                break
    found: dict[str, list[Call]] = {}
    refused = set()
    for (name, line), ops in sorted(made.items(), key=lambda kv: kv[0][1]):
        call = _call(defs[name], line, ops, tree, module_dict, script, tf)
        if call is None:
            refused.add(name)
        else:
            found.setdefault(name, []).append(call)
    return {k: v for k, v in found.items() if k not in refused}


def function_methods(tr, found: dict[str, list[Call]]) -> list[str]:
    """The methods' lines; each function whose calls all translate to the same code is registered with `tr` (its
    outputs are then its calls wherever another method reads them)."""
    code = []
    for calls in found.values():
        todos = list(tr.todos)  # a refused function's translations leave no TODO in the console's list
        for call in calls:  # every call's outputs are calls while the others are translated
            for t in call.outputs:
                tr.calls[t.name] = call
            tr.call_ops.update({name: call for name in call.ops})
        bodies = [_body(tr, call) for call in calls]
        if any(b != bodies[0] for b in bodies) or any(c.params != calls[0].params for c in calls) or \
                any("TODO_tfcompare" in line for line in bodies[0][0]):
            for call in calls:
                for t in call.outputs:
                    tr.calls.pop(t.name, None)
                for name in call.ops:
                    tr.call_ops.pop(name, None)
            tr.todos[:] = todos
            continue
        lines, exprs = bodies[0]
        first = calls[0]
        code.append(f"{INDENT}def {first.function}(self{''.join(', ' + p for p in first.params)}):")
        code += [INDENT * 2 + line for line in lines]
        code += [f"{INDENT * 2}return {', '.join(exprs)}", ""]
    return code


def _body(tr, call: Call) -> tuple[list[str], list[str]]:
    """The call's own ops as the function's body: its arguments are the parameters, its tensors its own names."""
    arguments, names = dict(tr.arguments), dict(tr.names)
    tr.arguments.update({t.name: p for t, p in zip(call.args, call.params)})
    tr.names.clear()
    tr.names.update(call.local_names)
    call.active = False
    try:
        tr._reset()
        tr._sharing = False
        tr._count(*call.outputs)
        exprs = [tr._expr(t, top=True)[0] for t in call.outputs]
        return [line.text("") for line in tr.lines], exprs
    finally:
        call.active = True
        tr.arguments.clear()
        tr.arguments.update(arguments)
        tr.names.clear()
        tr.names.update(names)


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


def _call(f: ast.FunctionDef, line: int, ops: set, tree: ast.Module, module_dict: dict, script: str, tf):
    """The Call made at `line`, or None where it cannot be a method call."""
    sites = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id == f.name and n.lineno == line]
    if len(sites) != 1:
        return None
    bound = _bound(f, sites[0])
    if bound is None:
        return None
    # the parameters given a tensor the script names are the method's; the others (`reuse=True`, a width) are
    # not: a call they change translates to other code, and the function is then not written as a method
    params = [p for p, node in bound.items() if isinstance(node, ast.Name) and
              isinstance(module_dict.get(node.id), tf.Tensor)]
    args = [module_dict[bound[p].id] for p in params]
    if not params or any(isinstance(n, ast.Name) and n.id not in module_dict and n.id != "None"
                         for p, n in bound.items() if p not in params):
        return None
    names = {op.name for op in ops}
    arg_names = {a.name for a in args}
    for op in ops:  # reads nothing but its arguments, variables and constants
        for t in op.inputs:
            if t.op.name not in names and t.name not in arg_names and t.op.type not in _VARIABLES and \
                    not (t.op.type == "Identity" and t.op.inputs and t.op.inputs[0].op.type in _VARIABLES):
                return None
    body = _statements(f)
    assigned = {}  # name -> the statement in the body that assigned it last
    for s in body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            assigned[s.targets[0].id] = s
    returned = body[-1].value
    returned = returned.elts if isinstance(returned, ast.Tuple) else [returned]
    if not all(isinstance(r, ast.Name) and r.id in assigned for r in returned):
        return None
    local = {}
    for name, s in assigned.items():
        made = [op for op in ops if _line(op, script, f.name) in range(s.lineno, s.end_lineno + 1) and op.outputs]
        if made:
            local[max(made, key=lambda o: o._id).outputs[0].name] = name
    by_name = {v: k for k, v in local.items()}
    if any(r.id not in by_name for r in returned):
        return None
    graph = next(iter(ops)).graph
    outputs = [graph.get_tensor_by_name(by_name[r.id]) for r in returned]
    return Call(f.name, params, names, args, outputs, local)


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
