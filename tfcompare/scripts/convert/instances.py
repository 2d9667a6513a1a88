"""A class of the script built several times, each instance a network with its own optimizer, trained in a loop
over the instances: MorvanZhou's optimizer comparison builds `Net(tf.train.MomentumOptimizer, momentum=0.9)` four
times and runs `sess.run([net.train, net.loss], {net.x: b_x, net.y: b_y})` for each `net` in turn.

The rewrite keeps that design: a TF2 class of the same name (a `tf.Module`) whose instances each hold their own
variables, their own Keras optimizer with TF1's settings, and a `@tf.function` step named after the TF1 train
op's attribute (`net.train(b_x, b_y)`); the script's instances are built as it built them, each given the
optimizer its TF1 instance made (`Net(tf.keras.optimizers.SGD(...))`), and its loop is kept.

Only the plain kind is written so: every train op of the graph is one instance's, the instances share no variable,
and no step clips, updates moving statistics or switches dropout; anything else is written as before (one model).
"""

from __future__ import annotations

import ast
import dataclasses
import re

from tfcompare.core.graphs import ancestors
from tfcompare.scripts.convert.forward import call_lines, model_output
from tfcompare.scripts.convert.instance_params import Varying, argument_values, signature, varying
from tfcompare.scripts.convert.methods import fetch_methods
from tfcompare.scripts.convert.model_init import variable_line
from tfcompare.scripts.convert.naming import INDENT, fed_key, identifier, short_names
from tfcompare.scripts.convert.ops import Translator
from tfcompare.scripts.convert.script_functions import method_names
from tfcompare.scripts.convert.optimizers import decay_schedule, given_settings, keras_optimizer
from tfcompare.scripts.convert.tf1_lines import source_line
from tfcompare.scripts.convert.train_step import clip_lines, input_signature

__all__ = ["Instanced", "find_instanced", "member_spans", "class_code", "init_of", "optimizer_call"]

_TF1_OPTIMIZERS = {"GradientDescentOptimizer", "AdamOptimizer", "MomentumOptimizer", "RMSPropOptimizer",
                   "AdagradOptimizer"}
_MODULE_OWN = {"name", "variables", "trainable_variables", "submodules", "name_scope", "non_trainable_variables",
               "optimizer", "with_name_scope"}


@dataclasses.dataclass
class Instanced:
    """The class (its name, its definition) and its instances in creation order: (global name, object, entry)."""

    cls: str
    node: ast.ClassDef
    instances: list
    placeholders: list  # attribute names bound to placeholders (the same in every instance)
    tensors: list  # attribute names bound to other tensors
    train: str  # the attribute bound to the train op
    varying: Varying | None = None  # where the constructor's arguments make the instances differ


def _entry_of(obj, entries: list):
    for attr, value in vars(obj).items():
        for e in entries:
            if value is e["train_op"]:
                return attr, e
    return None, None


def _held(module_dict: dict, cls: type) -> list[tuple[str, object]]:
    """(label, instance) of every instance of `cls` the script's globals hold: by name (`net_SGD`), or in a list
    or tuple (`nets[2]`), each once, in the order the globals were bound."""
    out = []
    for key, value in module_dict.items():
        if not key.isidentifier():
            continue
        if isinstance(value, cls):
            items = [(key, value)]
        elif isinstance(value, (list, tuple)):
            items = [(f"{key}[{i}]", v) for i, v in enumerate(value[:50]) if isinstance(v, cls)]
        else:
            continue
        out += [(label, v) for label, v in items if all(v is not o for _, o in out)]
    return out


def _tensor_attrs(obj, tf) -> tuple[list[str], list[str]]:
    """The instance's attributes bound to placeholders, and to other tensors."""
    tensors = {a: v for a, v in vars(obj).items() if isinstance(v, tf.Tensor)}
    return ([a for a, v in tensors.items() if v.op.type == "Placeholder"],
            [a for a, v in tensors.items() if v.op.type != "Placeholder"])


def find_instanced(tree: ast.Module, module_dict: dict, found: dict) -> Instanced | str | None:
    """The class whose instances hold every train op of the graph, one each, where there are two or more, they
    share no variable and each computes what the first does; where one computes otherwise, why it is not written
    so (a note)."""
    import tensorflow as tf

    entries = found.get("entries") or [found]
    for node in tree.body:
        cls = module_dict.get(getattr(node, "name", None)) if isinstance(node, ast.ClassDef) else None
        if not isinstance(cls, type):
            continue
        instances = []
        for label, value in _held(module_dict, cls):
            attr, entry = _entry_of(value, entries)
            if entry is None:
                break
            instances.append((label, value, entry, attr))
        else:
            if len(instances) < 2 or len(instances) != len(entries) or len({a for *_, a in instances}) != 1 or \
                    not any(e["train_op"] is found["train_op"] for _, _, e, _ in instances):
                continue
            worlds = [{v.op.name for _, v in e["grads_and_vars"]} for _, _, e, _ in instances]
            if sum(map(len, worlds)) != len(set().union(*worlds)) or any(e["loss"] is None for *_, e, _ in
                                                                          instances):
                continue
            instances.sort(key=lambda i: i[2]["train_op"]._id)
            placeholders, tensors = _tensor_attrs(instances[0][1], tf)
            if any(_tensor_attrs(o, tf) != (placeholders, tensors) for _, o, _, _ in instances[1:]):
                continue  # the instances hold other tensors
            first = signature(instances[0][2])
            other = next((label for label, _, e, _ in instances[1:] if signature(e) != first), None)
            how = None
            if other is not None:  # the constructor's arguments may say where (an activation, a width)
                calls = _calls(tree, node.name)
                init = init_of(node)
                if init is not None and all(label in calls for label, *_ in instances):
                    how = varying(init, [calls[label] for label, *_ in instances], [e for _, _, e, _ in instances],
                                  module_dict, _optimizer_params(init))
            if other is not None and how is None:  # one class written from the first would compute others wrongly
                return (f"{node.name} is built {len(instances)} times, each instance trained by its own optimizer, "
                        f"but {other} computes otherwise than {instances[0][0]} (another activation, width or "
                        f"constant) in a way its constructor's arguments do not account for: not written as one TF2 "
                        f"class with an instance each; the graph is one model")
            return Instanced(node.name, node, [(k, o, e) for k, o, e, _ in instances], placeholders, tensors,
                             instances[0][3], how)
    return None


def member_spans(tree: ast.Module, inst: Instanced, taken: set) -> tuple[dict, dict]:
    """Every `N.attr` of the script outside the class where `attr` is a graph attribute of the instances and `N` an
    instance's global name or a loop variable: ({(line, col, end line, end col): a plain name}, {plain name: (N,
    attr)}), the plain names new ones (`with_inline_fetches` puts them in, `Plan` says what each is)."""
    graph_attrs = {*inst.placeholders, *inst.tensors, inst.train}
    holders = {k for k, _, _ in inst.instances}
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.comprehension)):
            holders |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    inside = {id(n) for n in ast.walk(inst.node)}
    spans, what, names = {}, {}, {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in holders and \
                node.attr in graph_attrs and id(node) not in inside and isinstance(node.ctx, ast.Load):
            key = (node.value.id, node.attr)
            if key not in names:
                names[key] = identifier(f"{node.value.id}__{node.attr}", taken)
                what[names[key]] = key
            spans[(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)] = names[key]
    return spans, what


def _prefix(names: list[str]) -> str:
    """The variable scope every variable of one instance is under (`SGD/`), or ""."""
    parts = [n.split("/")[:-1] for n in names]
    common = []
    for level in zip(*parts):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return "".join(p + "/" for p in common)


def init_of(node: ast.ClassDef) -> ast.FunctionDef | None:
    """The class's `__init__`, or None."""
    return next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)


def optimizer_call(init: ast.FunctionDef | None):
    """The expression of the `__init__` that makes the optimizer (`opt(LR, **kwargs)`, the receiver of
    `.minimize(...)`, or what `self.optimizer = ...` bound it to), or None."""
    made = [n.func.value for n in ast.walk(init) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr in ("minimize", "compute_gradients")] if init is not None else []
    if len(made) != 1:
        return None
    expr = made[0]
    if isinstance(expr, (ast.Name, ast.Attribute)):  # `self.optimizer = opt_class(LR, **kw)` above
        bound = [s.value for s in ast.walk(init) if isinstance(s, ast.Assign) and len(s.targets) == 1 and
                 ast.dump(s.targets[0]).replace("Store", "Load") == ast.dump(expr)]
        if len(bound) == 1:
            expr = bound[0]
    return expr


def _optimizer_params(init: ast.FunctionDef) -> set[str]:
    """The `__init__` parameters read only in the expression that makes the optimizer: the TF2 class takes the
    optimizer itself in their place."""
    expr = optimizer_call(init)
    if expr is None:
        return set()
    inside = {id(n) for n in ast.walk(expr)}
    used = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
    elsewhere = {n.id for n in ast.walk(init) if isinstance(n, ast.Name) and id(n) not in inside}
    params = [a.arg for a in init.args.args[1:] + init.args.kwonlyargs] + \
        ([init.args.kwarg.arg] if init.args.kwarg else []) + ([init.args.vararg.arg] if init.args.vararg else [])
    return {p for p in params if p in used and p not in elsewhere}


def class_code(inst: Instanced, script: str, lines: list[str], sess, decays: dict, groups: dict, constants: dict,
               module_dict: dict, notes: list, todos: list) -> tuple[list[str], list[str], dict, list[str]] | None:
    """(the TF2 class's lines, the optimizer classes its instances need, {instance global name: its constructor
    call's new source}, the step's arguments in order), or None where this kind is not the plain one."""
    import tensorflow as tf

    key0, obj0, entry0 = inst.instances[0]
    graph = sess.graph
    trained = sorted((v for _, v in entry0["grads_and_vars"]), key=lambda v: v.op._id)
    prefix = _prefix([v.op.name for v in trained])
    taken = set(_MODULE_OWN) | {inst.train}
    short = short_names([v.op.name[len(prefix):] for v in trained])
    variables = {v.op.name: identifier(short[v.op.name[len(prefix):]], taken) for v in trained}
    members = vars(obj0)
    names = {members[a].name: a for a in inst.tensors}
    feed_tensors = sorted((members[a] for a in inst.placeholders), key=lambda t: t.op._id)
    arguments = {fed_key(members[a]): a for a in inst.placeholders}
    tr = Translator(script, lines, sess, names, variables, arguments, groups)
    tr.in_function = True  # each line the class's own (`__init__`'s), not the line that built the instance
    how = inst.varying or Varying({}, {})
    init = init_of(inst.node)
    if init is None:
        return None
    # an activation argument: held by the instance (`self.activation`, or the attribute TF1's __init__ bound it to)
    held = {p: next((s.targets[0].attr for s in ast.walk(init) if isinstance(s, ast.Assign) and len(s.targets) == 1
                     and isinstance(s.targets[0], ast.Attribute) and ast.unparse(s.value) == p), None)
            for p in set(how.activations.values())}
    held = {p: a or identifier(p, taken) for p, a in held.items()}
    tr.overrides = {op: f"self.{held[p]}({{}})" for op, p in how.activations.items()}
    if clip_lines(entry0, tr) or tr.todos:
        return None
    loss = entry0["loss"]
    out = model_output(loss, trained, feed_tensors)
    # the forward pass under the `__init__`'s own names (`l1`, `out`), where they read as nothing else
    local = method_names(init, ancestors([loss] + [members[a] for a in inst.tensors]), script) if out is not None \
        else {}
    local = {k: v for k, v in local.items() if v not in set(arguments.values()) | {"self", "training"} and
             (v not in set(names.values()) or names.get(k) == v)}
    forward = call_lines(out, tr, "module", feed_tensors, arguments, local) if out is not None else []
    placeholder_global = {a: a for a in inst.placeholders}
    # a method per tensor the script reads outside the class (`net.loss`, `ae.prediction`), not per attribute
    tree = ast.parse("\n".join(lines))
    read = {a for _, a in member_spans(tree, inst, set())[1].values()}
    fetched = [members[a] for a in inst.tensors if members[a] is not loss and a in read]
    methods, method_code, plan_methods, untranslated, summaries, updated = fetch_methods(
        [loss, *fetched], loss, names, {}, tr, "module", set(_MODULE_OWN), taken | set(variables.values()),
        feed_tensors, arguments, placeholder_global, tf)
    if updated or summaries or tr.updates or tr.helpers or tr.metrics or tr.idle_read or \
            any("TODO_tfcompare(" in line for line in forward + method_code):
        return None  # what only the one-model rewrite writes (helpers, metrics' state, marks): written as before
    loss_method, loss_args = methods[0][1], methods[0][2]
    own = _optimizer_params(init)
    opt_classes, calls = [], {}

    def optimizer_of(entry, named, values, said):
        line = source_line(entry["train_op"], script, lines)
        return keras_optimizer(graph, sess, decays, decay_schedule(graph, entry["train_op"], decays), *said,
                               f"TF1 line {line[0]}" if line else "the TF1 graph", named, values, entry["train_op"])

    # numbers given to one TF1 optimizer class (`GradientDescentOptimizer(lr)`): the class keeps its parameters
    settings = _settings(init, own)
    built = _calls(tree, inst.cls) if settings else {}
    said = ([], [])
    made = [optimizer_of(e, {s: p for p, s in settings.items()}, {**module_dict, **argument_values(
        init, built[k], module_dict)}, said) for k, _, e in inst.instances if k in built]
    if made and len(made) == len(inst.instances) and len(set(made)) == 1 and \
            all(re.search(rf"\b{p}\b", made[0][1]) for p in settings):
        own = set()
        notes += said[0]
        todos += said[1]
        opt_classes, calls = [made[0][0]], {k: made[0][1] for k, _, _ in inst.instances}
    if init.args.kwonlyargs or init.args.posonlyargs or (init.args.vararg and init.args.vararg.arg not in own) or \
            (init.args.kwarg and init.args.kwarg.arg not in own):
        return None
    kept_params = [a.arg for a in init.args.args[1:] if a.arg not in own]
    defaults = dict(zip([a.arg for a in init.args.args][len(init.args.args) - len(init.args.defaults):],
                        map(ast.unparse, init.args.defaults)))
    if "name" in kept_params and not all(str(getattr(o, "name", "")).isidentifier() for _, o, _ in inst.instances):
        return None  # a tf.Module's name must be an identifier
    params = ['optimizer'] if own else []
    params += [f"{p}={defaults[p]}" if p in defaults else p for p in kept_params]
    for key, obj, entry in inst.instances if not calls else ():
        cls_source, expr = optimizer_of(entry, constants, module_dict, (notes, todos))
        opt_classes.append(cls_source)
        calls[key] = expr
    if not own and len(set(calls.values())) != 1:
        return None
    body = [f"class {inst.cls}(tf.Module):",
            f'{INDENT}"""One of the {len(inst.instances)} networks the script builds: its variables, its forward pass, '
            f"its loss,", f'{INDENT}and a step with its own optimizer."""', "",
            f"{INDENT}def __init__(self{''.join(', ' + p for p in params)}):",
            f"{INDENT * 2}super().__init__({'name=name' if 'name' in kept_params else ''})"]
    body += [f"{INDENT * 2}self.optimizer = {'optimizer' if own else calls[key0]}"]
    plain_members = _plain_members(init, set(kept_params), vars(obj0))
    body += [f"{INDENT * 2}{line}" for line in plain_members]
    body += [f"{INDENT * 2}self.{a} = {p}" for p, a in held.items() if f"self.{a} = {p}" not in plain_members]
    # TF1's variable scope of each instance was its name (`variable_scope(name)`): the module's name scope is
    scoped = bool(prefix) and "name" in kept_params and all(
        {v.op.name.split("/")[0] for _, v in e["grads_and_vars"]} == {getattr(o, "name", None)}
        for _, o, e in inst.instances)
    if scoped:
        body.append(f"{INDENT * 2}with self.name_scope:  # each variable named under the instance's name, as in TF1")
    for attr, v in ((variables[v.op.name], v) for v in trained):
        line = variable_line(attr, v, sess, tr).replace(f"name={v.op.name!r}", f"name={v.op.name[len(prefix):]!r}")
        if v.op.name in how.dims:  # its shape read from the constructor's arguments (`[1, n_hidden]`)
            line = _shaped(line, v, how.dims[v.op.name], [e for _, _, e in inst.instances], sess, tr)
            if line is None:
                return None
        where = source_line(v.op, script, lines)
        line = re.sub(r"# TF1 line \d+: .*$", f"# TF1 line {where[0]}: {where[1][:60]}", line) if where else line
        body.append(INDENT + line if scoped else line)
    body += ["", *forward, *method_code]
    spec = input_signature([members[a] for a in loss_args])
    body += [f"{INDENT}@tf.function({spec})",
             f"{INDENT}def {inst.train}(self, {', '.join(loss_args)}):",
             f'{INDENT * 2}"""One training step of this network\'s own optimizer; returns the loss before it."""',
             f"{INDENT * 2}with tf.GradientTape() as tape:",
             f"{INDENT * 3}loss_value = self.{loss_method}({', '.join(loss_args)})",
             f"{INDENT * 2}gradients = tape.gradient(loss_value, self.trainable_variables)",
             f"{INDENT * 2}self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))",
             f"{INDENT * 2}return loss_value"]
    rebuilt = _rebuilt(inst, tree, init, own, calls)
    if rebuilt is None:
        return None
    # the forward pass itself (`model(x)`): the instance called, `ae.prediction` -> `ae(x)`
    method_of = {a: "" if plan_methods[a][0] == "model" else plan_methods[a][0].split(".", 1)[1]
                 for a in inst.tensors if a in plan_methods}
    return body, [c for c in opt_classes if c], rebuilt, {"args": loss_args, "methods": method_of,
                                                          "untranslated": untranslated,
                                                          "method_args": {a: plan_methods[a][1] for a in method_of}}


def _shaped(line: str, v, dims: tuple, entries: list, sess, tr) -> str | None:
    """The variable's line with its shape's dimensions read from the constructor's parameters, where every
    instance's own variable is written the same but for its shape; else None."""
    at = sorted((u for _, u in entries[0]["grads_and_vars"]), key=lambda u: u.op._id).index(v)
    shape = str(v.shape.as_list())
    if line.count(shape) != 1:
        return None
    for entry in entries[1:]:
        u = sorted((w for _, w in entry["grads_and_vars"]), key=lambda w: w.op._id)[at]
        theirs = variable_line("x", u, sess, tr).split("  #")[0].replace(repr(u.op.name), "NAME")
        mine = variable_line("x", v, sess, tr).split("  #")[0].replace(repr(v.op.name), "NAME")
        if theirs.count(str(u.shape.as_list())) != 1 or \
                theirs.replace(str(u.shape.as_list()), "SHAPE") != mine.replace(shape, "SHAPE"):
            return None
    return line.replace(shape, "[" + ", ".join(map(str, dims)) + "]")


def _settings(init: ast.FunctionDef, own: set) -> dict:
    """{parameter: the TF1 setting it is}, where the parameters only the optimizer reads are each one setting of a
    TF1 optimizer class's constructor, given bare (`tf.train.GradientDescentOptimizer(lr)`); else {}."""
    expr = optimizer_call(init)
    if not own or not isinstance(expr, ast.Call) or getattr(expr.func, "attr", None) not in _TF1_OPTIMIZERS:
        return {}
    out = {n.id: s for s, n in given_settings(expr).items() if isinstance(n, ast.Name) and n.id in own}
    return out if set(out) == own else {}


def _plain_members(init: ast.FunctionDef, params: set, members: dict) -> list[str]:
    """The `__init__`'s `self.A = <its parameters, literals>` of no graph value (`self.lr = lr`), as written; `name`
    is the tf.Module's own (given to `super().__init__`)."""
    out = []
    for s in ast.walk(init):
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Attribute) and
                isinstance(s.targets[0].value, ast.Name) and s.targets[0].value.id == "self"):
            continue
        attr, loads = s.targets[0].attr, {n.id for n in ast.walk(s.value) if isinstance(n, ast.Name)}
        if attr in _MODULE_OWN or not loads <= params or _is_graph_member(members.get(attr)):
            continue
        out.append(ast.unparse(s))
    return out


def _is_graph_member(value) -> bool:
    import tensorflow as tf

    return isinstance(value, (tf.Tensor, tf.Operation, tf.Variable, tf.compat.v1.train.Optimizer))


def _rebuilt(inst: Instanced, tree: ast.Module, init: ast.FunctionDef, own: set, calls: dict) -> dict | None:
    """{global name: the TF2 statement that binds it}: each top-level `name = Cls(...)` or `name = [Cls(...), ...]`
    that built the instances, each call given its instance's optimizer; None where an instance was built otherwise."""
    labels = {label for label, _, _ in inst.instances}
    out = {}
    for s in tree.body:
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)):
            continue
        key, value = s.targets[0].id, s.value
        if key in labels and _builds(value, inst.cls):
            out[key] = f"{key} = {_new_call(value, init, own, calls[key] if own else None)}"
            labels.discard(key)
        elif isinstance(value, (ast.List, ast.Tuple)) and any(f"{key}[{i}]" in labels for i in range(len(value.elts))):
            parts = []
            for i, element in enumerate(value.elts):
                label = f"{key}[{i}]"
                if label in labels and _builds(element, inst.cls):
                    parts.append(_new_call(element, init, own, calls[label] if own else None))
                    labels.discard(label)
                else:
                    parts.append(ast.unparse(element))
            brackets = "[]" if isinstance(value, ast.List) else "()"
            out[key] = f"{key} = {brackets[0]}{', '.join(parts)}{',' if len(parts) == 1 and brackets == '()' else ''}" \
                       f"{brackets[1]}"
    return None if labels else out


def _calls(tree: ast.Module, cls: str) -> dict:
    """{instance label: the `Cls(...)` call that built it}, for `name = Cls(...)` and `name = [Cls(...), ...]`."""
    out = {}
    for s in tree.body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            key, value = s.targets[0].id, s.value
            if _builds(value, cls):
                out[key] = value
            elif isinstance(value, (ast.List, ast.Tuple)):
                out.update((f"{key}[{i}]", e) for i, e in enumerate(value.elts) if _builds(e, cls))
    return out


def _builds(node, cls: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == cls


def _new_call(call: ast.Call, init: ast.FunctionDef, own: set, optimizer: str | None) -> str:
    """`Cls(optimizer, the other arguments)`: the arguments bound to the optimizer's parameters go."""
    params = [a.arg for a in init.args.args[1:]]
    args = [ast.unparse(a) for i, a in enumerate(call.args) if i >= len(params) or params[i] not in own]
    kwargs = [f"{k.arg}={ast.unparse(k.value)}" for k in call.keywords if k.arg in params and k.arg not in own]
    first = [optimizer] if optimizer is not None else []
    return f"{call.func.id}({', '.join(first + args + kwargs)})"
