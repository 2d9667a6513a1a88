"""The static half of the audit: read source, without running it, for what `tf.function` does silently.

Inside a traced function body, Python runs only while tracing, so `print`, `np.random`, `time.*`
and mutations of outer containers happen once per trace, not per call; globals and closure
values are frozen into the graph; `tf.Variable` in the body breaks on the second trace; a Python
`range` loop is unrolled op by op. Creating a `tf.function` inside a loop retraces every iteration.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tfcompare.tools.audit.report import Hazard

__all__ = ["scan_source", "scan_path", "UNROLL_THRESHOLD", "HAZARD_KINDS"]

UNROLL_THRESHOLD = 100  # a Python range loop of at least this many iterations unrolls into a large graph
_MUTATORS = {"append", "extend", "insert", "update", "pop", "add", "remove", "clear", "setdefault", "popitem"}
HAZARD_KINDS = ("print", "np_random", "time", "container_mutation", "variable_in_body", "unrolled_loop",
                "global_read", "function_in_loop", "literal_collision", "syntax_error")


def _is_tf_function(node: ast.AST) -> bool:
    """`tf.function`, `tf.function(...)`, `function` (imported from tensorflow) and `x.function`."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr == "function"
    return isinstance(node, ast.Name) and node.id == "function"


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


_CONTAINER_CALLS = {"list", "dict", "set", "collections.defaultdict", "defaultdict", "collections.deque", "deque",
                    "collections.OrderedDict", "OrderedDict", "collections.Counter", "Counter"}
_VARIABLE_CALLS = ("tf.Variable", "tf.compat.v1.Variable", "Variable", "tf.compat.v1.get_variable", "keras.Variable")


def _value_kind(node: ast.AST) -> str:
    """What a module-level value is, as far as the source says: `plain` (Python or NumPy data, frozen when
    traced), `container` (a mutable list/dict/set of plain data), `variables` (tf.Variables, or a container
    of them: captured by reference), or `unknown` (a call whose result the source cannot tell)."""
    if isinstance(node, ast.Constant):
        return "plain"
    if isinstance(node, ast.Call):
        callee = _dotted(node.func)
        if callee.startswith(_VARIABLE_CALLS):
            return "variables"
        if callee in _CONTAINER_CALLS:
            inner = [_value_kind(a) for a in node.args]
            return "variables" if "variables" in inner else "container"
        if callee.startswith(("np.", "numpy.")) and not callee.startswith(("np.random.", "numpy.random.")):
            return "plain"
        return "unknown"
    if isinstance(node, (ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp)):
        parts = (node.values if isinstance(node, ast.Dict) else getattr(node, "elts", None)) or \
            [getattr(node, "value", None) or getattr(node, "elt", None)]
        kinds = {_value_kind(p) for p in parts if p is not None}
        if "variables" in kinds:
            return "variables"
        return "container" if kinds <= {"plain", "container"} else "unknown"
    if isinstance(node, ast.Tuple):
        kinds = {_value_kind(e) for e in node.elts}
        return "variables" if "variables" in kinds else ("plain" if kinds <= {"plain"} else "unknown")
    if isinstance(node, (ast.UnaryOp, ast.BinOp)):
        return "plain" if all(_value_kind(n) == "plain" for n in ast.iter_child_nodes(node)
                              if isinstance(n, ast.expr)) else "unknown"
    return "unknown"


def _module_globals(tree: ast.Module) -> dict[str, str]:
    """Module-level names bound by assignment, with what they hold (`_value_kind`); a name bound twice to
    different kinds is `unknown`. Functions, classes and imports are not values and are left out."""
    kinds: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        elif isinstance(node, ast.AugAssign):
            targets, value = [node.target], None
        else:
            continue
        kind = _value_kind(value) if value is not None else "plain"
        for t in targets:
            names = [t] if isinstance(t, ast.Name) else [n for n in ast.walk(t) if isinstance(n, ast.Name)]
            for n in names:
                single = isinstance(t, ast.Name)
                new = kind if single else "unknown"
                kinds[n.id] = new if kinds.get(n.id, new) == new else "unknown"
    return kinds


def _locals(fn: ast.FunctionDef) -> set[str]:
    names = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
    if fn.args.vararg:
        names.add(fn.args.vararg.arg)
    if fn.args.kwarg:
        names.add(fn.args.kwarg.arg)
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not fn:
            names.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in n.names)
    return names


def _traced_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    defs = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    traced = {n.name: n for n in defs.values() if any(_is_tf_function(d) for d in n.decorator_list)}
    for call in ast.walk(tree):  # f = tf.function(g): g is traced too
        if isinstance(call, ast.Call) and _is_tf_function(call.func) and call.args:
            target = call.args[0]
            if isinstance(target, ast.Name) and target.id in defs:
                traced.setdefault(target.id, defs[target.id])
    return sorted(traced.values(), key=lambda n: n.lineno)


def _body_hazards(fn: ast.FunctionDef, file: str, globals_: dict[str, str]) -> list[Hazard]:
    out = []
    local = _locals(fn)
    name = fn.name
    mutated = {id(n.func.value) for n in ast.walk(fn)  # `history.append(...)` is a mutation, not a read
               if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _MUTATORS}

    def add(kind, node, message):
        out.append(Hazard(kind, file, node.lineno, f"in tf.function `{name}`: {message}"))

    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            callee = _dotted(node.func)
            if callee == "print":
                add("print", node, "Python print runs once per trace, not every call; use tf.print")
            elif callee.startswith(("np.random.", "numpy.random.")):
                add("np_random", node, f"{callee}() is evaluated once while tracing and frozen into the graph "
                                       "as a constant; use tf.random")
            elif callee.startswith("time."):
                add("time", node, f"{callee}() runs once per trace, not every call")
            elif callee.startswith(("tf.Variable", "tf.compat.v1.Variable")) or callee == "Variable":
                add("variable_in_body", node, "tf.Variable created in the body: it works on the first trace only; "
                                              "create variables outside and pass or capture them")
            elif isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
                owner = node.func.value
                root = owner
                while isinstance(root, (ast.Attribute, ast.Subscript)):
                    root = root.value
                # only a container the source shows (a global list/dict/set, or an attribute of self): a module
                # such as `tf` in `tf.add(...)` or an object of unknown type is not called a container
                if isinstance(root, ast.Name) and (root.id == "self" or (
                        root.id not in local and globals_.get(root.id) == "container")):
                    add("container_mutation", node, f"{_dotted(owner) or 'a container'}.{node.func.attr}() mutates "
                                                    "a Python container outside the function once per trace, "
                                                    "not per call; return tensors or use tf.TensorArray")
        elif isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and _dotted(node.iter.func) == "range":
            consts = [a.value for a in node.iter.args if isinstance(a, ast.Constant) and isinstance(a.value, int)]
            if consts and len(consts) == len(node.iter.args):
                span = len(range(*consts))
                if span >= UNROLL_THRESHOLD:
                    add("unrolled_loop", node, f"a Python range loop of {span} iterations is unrolled into the graph "
                                               "op by op; iterate over tf.range to get one While op")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and \
                globals_.get(node.id) in ("plain", "container") and node.id not in local and id(node) not in mutated:
            # variables (and containers of them) are captured by reference, and what the source cannot
            # tell is left to the runtime half of the audit: only plain Python/NumPy values are frozen
            add("global_read", node, f"global `{node.id}` is read while tracing and frozen into the graph; "
                                     "changing it later changes nothing, without any retrace; pass it as a tensor")
    return out


def _loop_hazards(tree: ast.Module, file: str) -> list[Hazard]:
    out = []
    for loop in ast.walk(tree):
        if not isinstance(loop, (ast.For, ast.While, ast.AsyncFor)):
            continue
        for node in ast.walk(loop):
            if isinstance(node, ast.Call) and _is_tf_function(node.func) and node is not loop:
                out.append(Hazard("function_in_loop", file, node.lineno,
                                  "tf.function created inside a loop: each new function object traces again; "
                                  "create it once before the loop"))
    return out


def scan_source(source: str, file: str = "<source>") -> list[Hazard]:
    """Every hazard in one module's source, in line order (duplicates on one line removed)."""
    try:
        tree = ast.parse(source, filename=file)
    except SyntaxError as exc:
        return [Hazard("syntax_error", file, exc.lineno or 0, f"cannot parse: {exc.msg}")]
    globals_ = _module_globals(tree)
    hazards = []
    for fn in _traced_functions(tree):
        hazards.extend(_body_hazards(fn, file, globals_))
    hazards.extend(_loop_hazards(tree, file))
    seen, unique = set(), []
    for h in sorted(hazards, key=lambda h: (h.line, h.kind)):
        if (h.kind, h.line, h.message) not in seen:
            seen.add((h.kind, h.line, h.message))
            unique.append(h)
    return unique


def scan_path(path: str | Path) -> list[Hazard]:
    """A file, or every `.py` file below a folder."""
    path = Path(path)
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*.py") if p.is_file())
    out = []
    for f in files:
        out.extend(scan_source(f.read_text(encoding="utf-8", errors="replace"), str(f)))
    return out
