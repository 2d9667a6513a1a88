"""The static half of the audit: read source, without running it, for what `tf.function` does silently.

Inside a traced function body, Python runs only while tracing, so `print`, `np.random`, Python's
`random`, `time.*`, mutations of outer containers and rebinding a global (`global n; n += 1`) or an
attribute of `self` happen once per trace, not per call; globals and closure values are frozen into
the graph; `tf.Variable` in the body fails at the first call's second trace, unless it is TF's
documented lazy build (`if self.w is None: self.w = tf.Variable(...)`); a Python `range` loop is
unrolled op by op. Creating a `tf.function` inside a loop retraces every iteration.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tfcompare.tools.audit.report import AuditReport, Hazard

__all__ = ["scan_source", "scan_path", "static_report", "UNROLL_THRESHOLD", "HAZARD_KINDS"]

UNROLL_THRESHOLD = 100  # a Python range loop of at least this many iterations unrolls into a large graph
_MUTATORS = {"append", "extend", "insert", "update", "pop", "add", "remove", "clear", "setdefault", "popitem"}
HAZARD_KINDS = ("print", "np_random", "python_random", "time", "container_mutation", "global_rebinding",
                "attribute_rebinding", "variable_in_body", "unrolled_loop", "global_read", "function_in_loop",
                "literal_collision", "syntax_error")


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
        elif isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and _dotted(node.iter.func) == "range":
            targets, value = [node.target], ast.Constant(0)  # a loop over range: the variable holds ints
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


def _changed_globals(tree: ast.Module) -> dict[str, int]:
    """Module-level names the script changes after binding them, with the line of the first change: bound again
    at module level, bound in a module-level loop (a loop variable takes many values), rebound by a function that
    declares them `global`, or mutated (`x.append(...)`, `x[k] = v`). A name bound once and never changed is a
    constant."""
    bindings: dict[str, list[int]] = {}
    changes: dict[str, list[int]] = {}
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
              ast.DictComp, ast.GeneratorExp)

    def visit(node, in_function: bool, declared: set[str], in_loop: bool):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, scopes):  # their own scope: only `global` names reach the module
                own = _declared_outer(child) if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else {}
                visit(child, True, set(own), False)
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                if not in_function:
                    (changes if in_loop else bindings).setdefault(child.id, []).append(child.lineno)
                elif child.id in declared:
                    changes.setdefault(child.id, []).append(child.lineno)
            elif isinstance(child, ast.Subscript) and isinstance(child.ctx, ast.Store) and \
                    isinstance(child.value, ast.Name):
                changes.setdefault(child.value.id, []).append(child.lineno)
            elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and \
                    child.func.attr in _MUTATORS and isinstance(child.func.value, ast.Name):
                changes.setdefault(child.func.value.id, []).append(child.lineno)
            visit(child, in_function, declared, in_loop or isinstance(child, (ast.For, ast.AsyncFor, ast.While)))

    visit(tree, False, set(), False)
    for name, lines in bindings.items():
        changes.setdefault(name, []).extend(sorted(lines)[1:])
    return {name: min(lines) for name, lines in changes.items() if lines}


def _declared_outer(fn: ast.FunctionDef) -> dict[str, str]:
    """Names the body declares `global` or `nonlocal`: assigning them rebinds the outer name."""
    return {name: "global" if isinstance(n, ast.Global) else "nonlocal"
            for n in ast.walk(fn) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}


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
    return names - set(_declared_outer(fn))


def _python_random(tree: ast.Module) -> tuple[set[str], set[str]]:
    """What names Python's `random` module goes by in this file: module aliases, and functions imported from it."""
    modules, functions = set(), set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            modules.update(a.asname or a.name for a in n.names if a.name == "random")
        elif isinstance(n, ast.ImportFrom) and n.module == "random" and not n.level:
            functions.update(a.asname or a.name for a in n.names)
    return modules, functions


def _unset_tests(test: ast.AST) -> tuple[set[str], set[str]]:
    """What an `if` tests for being unset: (attributes or names tested `is None` or `not hasattr(obj, "x")`,
    flags tested `not self.built`), through `or`/`and`."""
    if isinstance(test, ast.BoolOp):
        parts = [_unset_tests(v) for v in test.values]
        return set().union(*(p[0] for p in parts)), set().union(*(p[1] for p in parts))
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) and \
            isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        return {_dotted(test.left)} - {""}, set()
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        operand = test.operand
        if isinstance(operand, ast.Call) and _dotted(operand.func) == "hasattr" and len(operand.args) == 2 and \
                isinstance(operand.args[1], ast.Constant) and isinstance(operand.args[1].value, str):
            owner = _dotted(operand.args[0])
            return ({f"{owner}.{operand.args[1].value}"} if owner else set()), set()
        if isinstance(operand, (ast.Name, ast.Attribute)):
            return set(), {_dotted(operand)} - {""}
    return set(), set()


def _lazy_builds(fn: ast.FunctionDef) -> set[int]:
    """The statements and calls of TF's documented lazy build, which runs on the first call only, so a later trace
    creates nothing: `if self.w is None: self.w = tf.Variable(...)`, `if not hasattr(self, "w")`, or
    `if not self.built: ...; self.built = True` (ids of every statement and call in such a branch)."""
    out = set()
    for branch in ast.walk(fn):
        if not isinstance(branch, ast.If):
            continue
        unset, flags = _unset_tests(branch.test)
        statements = [s for body in branch.body for s in ast.walk(body)]
        sets = set()
        for stmt in statements:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else \
                [stmt.target] if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else []
            value = getattr(stmt, "value", None)
            for t in targets:
                if _dotted(t) in unset or (_dotted(t) in flags and isinstance(value, ast.Constant) and value.value):
                    sets.add(_dotted(t))
        if sets:  # the branch builds once: everything in it runs on the first trace only
            out.update(id(n) for n in statements)
    return out


_HOST_CALLS = ("py_function", "numpy_function", "py_func", "eager_py_func")


def _host_code(fn: ast.FunctionDef) -> set[int]:
    """The nodes of Python functions the body hands to `tf.py_function` / `tf.numpy_function` (a lambda, or a
    function defined in the body): TF runs those in Python on every call, so nothing in them is a trace hazard."""
    nested = {n.name: n for n in ast.walk(fn) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n is not fn}
    out = set()
    for call in ast.walk(fn):
        if not (isinstance(call, ast.Call) and _dotted(call.func).rsplit(".", 1)[-1] in _HOST_CALLS):
            continue
        given = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "func"), None)
        if isinstance(given, ast.Name) and given.id in nested:
            given = nested[given.id]
        if isinstance(given, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)):
            out.update(id(n) for n in ast.walk(given))
    return out


def _traced_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    traced = {id(n): n for n in functions if any(_is_tf_function(d) for d in n.decorator_list)}
    module_level = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for call in ast.walk(tree):  # f = tf.function(g): g is traced too
        if isinstance(call, ast.Call) and _is_tf_function(call.func) and call.args:
            target = call.args[0]
            named = [module_level[target.id]] if isinstance(target, ast.Name) and target.id in module_level else \
                [n for n in functions if isinstance(target, ast.Name) and n.name == target.id]
            for fn in named[:1]:
                traced.setdefault(id(fn), fn)
    return sorted(traced.values(), key=lambda n: n.lineno)


def _body_hazards(fn: ast.FunctionDef, file: str, globals_: dict[str, str], changed: dict[str, int],
                  python_random: tuple[set[str], set[str]]) -> list[Hazard]:
    out = []
    local = _locals(fn)
    outer = _declared_outer(fn)
    lazy = _lazy_builds(fn)
    random_modules, random_functions = python_random
    name = fn.name
    params = fn.args.posonlyargs + fn.args.args
    owner = params[0].arg if params and params[0].arg in ("self", "cls") else None  # a method's own object
    mutated = {id(n.func.value) for n in ast.walk(fn)  # `history.append(...)` is a mutation, not a read
               if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _MUTATORS}

    def add(kind, node, message):
        out.append(Hazard(kind, file, node.lineno, f"in tf.function `{name}`: {message}"))

    host = _host_code(fn)
    for node in ast.walk(fn):
        if id(node) in host:
            continue
        if isinstance(node, ast.Call):
            callee = _dotted(node.func)
            if callee == "print":
                add("print", node, "Python print runs once per trace, not every call; use tf.print")
            elif callee.startswith(("np.random.", "numpy.random.")):
                add("np_random", node, f"{callee}() is evaluated once while tracing and frozen into the graph "
                                       "as a constant; use tf.random")
            elif (callee.split(".")[0] in random_modules and "." in callee) or \
                    (callee in random_functions and callee not in local):
                add("python_random", node, f"{callee}() (Python's random) is evaluated once while tracing and "
                                           "frozen into the graph as a constant; use tf.random")
            elif callee.startswith("time."):
                add("time", node, f"{callee}() runs once per trace, not every call")
            elif (callee.startswith(("tf.Variable", "tf.compat.v1.Variable")) or callee == "Variable") and \
                    id(node) not in lazy:
                add("variable_in_body", node, "tf.Variable created in the body on every trace: the first call "
                                              "traces twice, so TF raises 'only supports singleton tf.Variables "
                                              "created on the first call'; create it outside, or once under "
                                              "`if self.v is None:`")
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
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for n in (n for t in targets for n in ast.walk(t)):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in outer:
                    add("global_rebinding", n, f"{outer[n.id]} `{n.id}` is rebound in the body: Python runs that "
                                               "once per trace, not every call; keep the count in a tf.Variable "
                                               "(assign_add) or pass it in as a tensor")
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == owner \
                        and id(node) not in lazy:
                    add("attribute_rebinding", t, f"`{_dotted(t)}` is set in the body: Python runs that once per "
                                                  "trace, not every call, and a tensor stored there is a graph "
                                                  "tensor that leaks out of the function; use a tf.Variable "
                                                  "(assign/assign_add) or return the value")
        elif isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and _dotted(node.iter.func) == "range":
            consts = [a.value for a in node.iter.args if isinstance(a, ast.Constant) and isinstance(a.value, int)]
            if consts and len(consts) == len(node.iter.args):
                span = len(range(*consts))
                if span >= UNROLL_THRESHOLD:
                    add("unrolled_loop", node, f"a Python range loop of {span} iterations is unrolled into the graph "
                                               "op by op; iterate over tf.range to get one While op")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in changed and \
                globals_.get(node.id) in ("plain", "container") and node.id not in local and id(node) not in mutated:
            # variables (and containers of them) are captured by reference, and what the source cannot
            # tell is left to the runtime half of the audit: only plain Python/NumPy values are frozen; and a
            # constant (bound once, never changed: NUM_CLASSES = 10) is frozen with the value it always has
            add("global_read", node, f"global `{node.id}` is read while tracing and frozen into the graph, and "
                                     f"the script changes it (line {changed[node.id]}): the graph never sees the "
                                     "change, and nothing retraces; pass it as a tensor or keep it in a tf.Variable")
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
    changed = _changed_globals(tree)
    hazards = []
    python_random = _python_random(tree)
    for fn in _traced_functions(tree):
        hazards.extend(_body_hazards(fn, file, globals_, changed, python_random))
    hazards.extend(_loop_hazards(tree, file))
    seen, unique = set(), []
    for h in sorted(hazards, key=lambda h: (h.line, h.kind)):
        if (h.kind, h.line, h.message) not in seen:
            seen.add((h.kind, h.line, h.message))
            unique.append(h)
    return unique


def _files(path: Path) -> list[Path]:
    return [path] if path.is_file() else sorted(p for p in path.rglob("*.py") if p.is_file())


def scan_path(path: str | Path) -> list[Hazard]:
    """A file, or every `.py` file below a folder."""
    out = []
    for f in _files(Path(path)):
        out.extend(scan_source(f.read_text(encoding="utf-8", errors="replace"), str(f)))
    return out


def static_report(path: str | Path) -> AuditReport:
    """`audit --static`: the hazards of a file or folder, read without running anything."""
    return AuditReport(target=str(path), hazards=scan_path(path), static_files=len(_files(Path(path))))
