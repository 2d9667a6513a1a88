"""Write the TF2 script: the TF1 graph as a `tf.Module`, a Keras optimizer with TF1's settings (TF1's update
written out where Keras's formula differs), a `@tf.function` train step, and the script's own code around them.

Called in the child that ran the TF1 script, at its first training step, with the graph, the session and the
script's globals at that moment. This module lays the script out; its parts come from `script_globals` (what the
script's globals are), `optimizers`, `model_init` (the Model's `__init__`), `methods` (its methods), `train_step`,
`written_cells` (code written in as it is) and `source` (the script's own code, carried over).
"""

from __future__ import annotations

import dataclasses
import re
import textwrap
from pathlib import Path

from tfcompare.core.graphs import ancestors
from tfcompare.core.generated_code import in_docstring
from tfcompare.core.source_files import read_script
from tfcompare.scripts.convert import keras_layers
from tfcompare.scripts.convert import source as carried
from tfcompare.scripts.convert import summaries as summary_ops
from tfcompare.scripts.convert.plan import ITERATOR_OUTPUTS
from tfcompare.scripts.convert.written_cells import HELPER_SOURCE, LOADER, LOADER_NOTE
from tfcompare.scripts.convert.forward import call_lines, fed_inputs, model_output, returned_beside
from tfcompare.scripts.convert.late import with_inline_fetches
from tfcompare.scripts.convert.line_width import MAX_LINE
from tfcompare.scripts.convert.cut_fetches import cut_methods, cut_runs
from tfcompare.scripts.convert.list_fetches import list_methods
from tfcompare.scripts.convert.fetch_groups import group_methods, without_superseded
from tfcompare.scripts.convert.step_metrics import step_metrics
from tfcompare.scripts.convert.methods import fetch_methods, summary_methods
from tfcompare.scripts.convert.model_init import keras_init_lines, metric_lines, variable_line
from tfcompare.scripts.convert.moving import assignments, idle_variables, moving_average_updates
from tfcompare.scripts.convert.naming import INDENT, fed_key, identifier, short_names
from tfcompare.scripts.convert.ops import Translator
from tfcompare.scripts.convert.estimator_runs import add_loss, estimator_plan
from tfcompare.scripts.convert.averages import apply_line, find as find_averages, setup_lines, shadow_map, shadows_list
from tfcompare.scripts.convert.fed_itself import fed_itself_notes, unfed_defaults
from tfcompare.scripts.convert.rnn_state import stacked_states, state_feeds, zero_state_lines
from tfcompare.scripts.convert.tf1_lines import source_line
from tfcompare.scripts.convert.optimizers import decay_schedule, keras_optimizer, optimizer_values, script_constants
from tfcompare.scripts.convert.own_modules import without_replaced_imports
from tfcompare.scripts.convert.script_functions import find_calls, forward_names, framework_names, function_methods
from tfcompare.scripts.convert.script_globals import fetched_names, read_globals
from tfcompare.scripts.convert.script_numbers import ScriptNumbers
from tfcompare.scripts.convert.saving import restore_helper, save_helper
from tfcompare.scripts.convert.tf1_checkpoint import METHOD as RESTORE, restore_method
from tfcompare.scripts.convert.provenance import model_comments, per_block
from tfcompare.scripts.convert.joint_steps import Part, joint_steps, runs_together
from tfcompare.scripts.convert.later_steps import later_steps
from tfcompare.scripts.convert.todo_marks import mark_lines, todo_marks
from tfcompare.scripts.convert.gradient_fetches import gradient_lines, step_fetches
from tfcompare.scripts.convert.train_step import (clip_lines, densifies, gradient_factors, input_signature,
                                                  step_code, step_todo_lines)
from tfcompare.scripts.convert.training_flag import switch_argument, training_flags
from tfcompare.scripts.child.train_ops import independent, variables_of, writes_apart

__all__ = ["Written", "write", "comment_marks", "opening"]


@dataclasses.dataclass
class Written:
    text: str
    todos: list[str]
    notes: list[str]
    instances: int = 0  # a class built several times (instanced_writer): how many instances it trains


_MODULE_DOC = ["The model is a tf.Module with the TF1 variables (same shapes and initializers); its methods are the",
               "TF1 forward pass and loss, op by op, each block naming the TF1 lines it came from.",
               "Training runs in a"]
_MODULE_CALL_DOC = ["The model is a tf.Module with the TF1 variables (same shapes and initializers); its __call__ is",
                    "the TF1 forward pass, its other methods the loss and metrics computed from it, op by op, each",
                    "block naming the TF1 lines it came from. Training runs in a"]
_KERAS_DOC = ["The model is a Keras Model: Keras layers where TF1's ops are exactly one (same weights, shapes and",
              "initializers), op by op elsewhere, each block naming the TF1 lines it came from. Training runs in a"]


def _paragraph(indent: str, text: str) -> list[str]:
    """`text` as lines within MAX_LINE (a docstring tfcompare writes: its names may be long)."""
    return textwrap.wrap(text, MAX_LINE, initial_indent=indent, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False)


def opening(kept, about: list[str], notes: list, keras: bool = False) -> list[str]:
    """The written script down to its model: the TF1 script's docstring with `about` (two paragraphs) below it, or
    `about` as the docstring; TF2's imports (and the loader's); the MNIST loader where the script read MNIST; the
    script's own code above its graph (`kept`: source.Carried)."""
    if kept.docstring:  # the script's own docstring (its authors, its licence) as written; this note below it
        out = [kept.docstring, "", *(line for text in about for line in _paragraph("# ", text)), ""]
    else:
        out = [*_paragraph("", f'"""{about[0]}'), "", *_paragraph("", f'{about[1]}"""'), ""]
    imports = kept.imports if "import tensorflow as tf" in kept.imports else ["import tensorflow as tf", *kept.imports]
    if keras and "import keras" not in imports:
        imports.insert(imports.index("import tensorflow as tf") + 1, "import keras")
    if kept.loader:
        imports += [extra for extra in ("import gzip", "import os", "import types", "import numpy as np")
                    if extra not in imports]
    out += sorted(set(imports), key=imports.index) + [""]
    if kept.loader:
        out += [LOADER.strip("\n"), "", ""]
        notes.append(LOADER_NOTE)
    out += [t.lstrip("\n") if i == 0 else t for i, t in enumerate(kept.head)]
    return out + (["", ""] if kept.head else [])


def _note_lines(match) -> str:
    """A NOTE mark as `# NOTE(tfcompare): ...`, its text continued on `#` lines within MAX_LINE."""
    return _mark_lines(match, "# NOTE(tfcompare): ")


def _todo_lines(match) -> str:
    """A TODO mark as `pass  # TODO(tfcompare): ...`, its text continued on `#` lines within MAX_LINE."""
    return _mark_lines(match, "pass  # TODO(tfcompare): ")


def _mark_lines(match, lead: str) -> str:
    return "\n".join(mark_lines(match.group(1), lead, match.group(3)))


def comment_marks(body: str) -> str:
    """The rewrite's TODO and NOTE string statements as comments, each within MAX_LINE; the blank lines above one
    stay above it (an indent of spaces and tabs only: `\\s*` took them in, and put them between its lines)."""
    body = re.sub(r"^([ \t]*)(['\"])" + carried.TODO_MARK + r"(.*)\2$", _todo_lines, body, flags=re.M)
    return re.sub(r"^([ \t]*)(['\"])" + carried.NOTE_MARK + r"(.*)\2$", _note_lines, body, flags=re.M)


def _independent(module_dict: dict, train_ops: list) -> set:
    """The script's names of train ops that share no variable with any other of them."""
    if len(train_ops) < 2:
        return set()
    worlds = [variables_of(op) for op in train_ops]
    alone = [op for op, mine in zip(train_ops, worlds)
             if not any(mine & other for other in worlds if other is not mine)]
    return {k for k, v in module_dict.items() if any(v is op for op in alone)}


def write(script: str, module_dict: dict, sess, found: dict, groups: dict, decays: dict, feed: dict,
          first_step_line: int, style: str = "module", late: set | None = None,
          inline: dict | None = None, main: str | None = None) -> Written:
    """The TF2 script for the TF1 `script`, stopped at its first training step; `style` "module" (a tf.Module)
    or "keras" (a keras.Model of Keras layers where a group of TF1 ops is exactly one); `main`: the script's
    function the step ran in (its locals are in `module_dict`), whose body is rewritten in place."""
    import ast

    import numpy as np
    import tensorflow as tf

    text = read_script(script)  # as Python read it: its coding line honoured
    lines = text.split("\n")  # Python's lines: a form feed or U+2028 inside one does not end it
    text = with_inline_fetches(text, inline or {})  # sess.run(tf.reduce_sum(...)) read as sess.run(its name)
    graph, loss, train_op = sess.graph, found["loss"], found["train_op"]
    # several optimizers (a GAN's discriminator and generator): the model holds every one's variables, and each
    # later train op gets a step of its own (`later_steps`)
    others = [e for e in found.get("entries", []) if e["train_op"] is not train_op and e["loss"] is not None
              and e["grads_and_vars"]]
    trained = sorted({v.op.name: v for e in [found, *others] for _, v in e["grads_and_vars"]}.values(),
                     key=lambda v: v.op._id)
    notes: list[str] = []

    fed_states = state_feeds(ast.parse(text), module_dict, groups, tf)  # a stateful RNN's state fed back
    module_dict = {**module_dict, **stacked_states(module_dict, groups, graph, tf)}
    names, var_globals, graph_names, train_names, tf_names = read_globals(module_dict, train_op, tf)
    names.update({t.name: t.global_name for t in fed_states})

    taken = {"name", "variables", "trainable_variables", "submodules", "name_scope", "non_trainable_variables",
             RESTORE}
    if style == "keras":
        import keras

        taken |= set(dir(keras.Model))  # a method or weight must not hide Keras's own (`loss`, `weights`, ...)
    # an attribute is the script's own name of the variable, else the end of its scoped name no other shares
    short = short_names(v.op.name for v in trained + graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES))
    variables = {v.op.name: identifier(var_globals.get(v.op.name, short[v.op.name]), taken) for v in trained}

    feed_tensors = []
    for key in feed:
        t = graph.get_tensor_by_name(key if ":" in key else key + ":0") if isinstance(key, str) else key
        if isinstance(t, tf.Tensor):  # a tuple fed (an RNN's state) is one of `fed_states`, or not written
            feed_tensors.append(t)
    # a placeholder the script feeds only after the first step (a VAE's `z` to sample from): an argument of the
    # methods that read it, as a fed one is
    feed_tensors += [v for k, v in module_dict.items() if isinstance(v, tf.Tensor) and v.op.type == "Placeholder"
                     and v.graph is graph and k.isidentifier() and all(v is not t for t in feed_tensors)]
    stood_for = {m.name for f in fed_states for m in f.members}  # a GRU's zero state fed itself: its StateFeed
    feed_tensors = [t for t in feed_tensors if t.name not in stood_for] + fed_states
    feed_tensors.sort(key=lambda t: t.op._id)
    estimator = estimator_plan(module_dict, text, feed_tensors, names, groups)  # its batches: `images`, `labels`
    # an argument never takes a name the forward pass binds (the script's global names of its tensors)
    own_names = {names.get(t.name) for t in feed_tensors}
    arg_taken = set(variables.values()) | {n for n in names.values() if n not in own_names}
    arguments = {fed_key(t): identifier(names.get(t.name, fed_key(t)), arg_taken) for t in feed_tensors}
    placeholder_global = {arguments[fed_key(t)]: names.get(t.name) for t in feed_tensors}
    by_argument = {arguments[fed_key(t)]: t for t in feed_tensors}  # a placeholder, or a tensor fed in its place
    fed_itself = fed_itself_notes(feed_tensors, arguments, script, lines) if not estimator else {}
    notes += [f"{arg}: {text}" for arg, text in fed_itself.items()]

    tr = Translator(script, lines, sess, names, variables, arguments, groups)
    tr.python_flags = style == "keras"
    tr.updates, unwritten = moving_average_updates(graph, train_op, loss, script, lines)
    idle = idle_variables(graph)
    # variable op name -> (attr, tf.Variable): the non-trainable variables (moving statistics) read or updated
    moving = {name: (identifier(var_globals.get(name, short.get(name, name)), taken), v) for name, v in idle.items()}
    for update in (u for us in tr.updates.values() for u in us):
        name = update.variable.op.name
        if name not in moving:
            moving[name] = (identifier(var_globals.get(name, short.get(name, name)), taken), update.variable)
        update.attr = moving[name][0]
    tr.idle = {name: attr for name, (attr, _) in moving.items()}
    for entry in [found, *others]:
        tr.assignments[entry["loss"].name] = assignments(graph, entry["train_op"], entry["loss"], tr.updates, idle,
                                                         script, lines)
    planned = ancestors([a.op for items in tr.assignments.values() for a in items])
    unwritten = [op for op in unwritten if op not in planned]  # its updates are assignments written op by op
    tree = ast.parse(text)
    flags = training_flags(tree, module_dict, feed, feed_tensors, names, groups, first_step_line)
    for flag in flags:  # `keep_prob: 0.8` to train, `keep_prob: 1.0` elsewhere: the `training` argument
        old = arguments[fed_key(flag.placeholder)]
        new = identifier("training", arg_taken)
        arguments[fed_key(flag.placeholder)] = new
        placeholder_global[new], by_argument[new] = placeholder_global.pop(old), by_argument.pop(old)
        tr.flags[flag.placeholder.name], flag.param = (new, flag.keep_text), new
        notes.append(f"{flag.name} (fed {flag.keep:g} in training, 1.0 elsewhere) is the `{new}` argument: dropout "
                     "only when training")
    bound = [t.id for n in tree.body if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
             for t in ast.walk(n) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)]
    tr.arrays = [(k, v) for k, v in module_dict.items() if isinstance(v, np.ndarray) and v.size > 1 and
                 bound.count(k) == 1 and k.isidentifier() and not k.startswith("_")]
    tr.script_numbers = ScriptNumbers(tree, module_dict, first_step_line, variables)
    targets = [loss]
    # what the (one) step returns from its gradients: the clip's global norm, and what the script computed from them
    norm, measured = step_fetches(found, module_dict, fetched_names(tree), not others and style == "module", arguments)
    targets += [v for n in sorted(fetched_names(tree) - {norm, *measured}) if isinstance(
        v := module_dict.get(n), tf.Tensor) and v is not loss and v.op.type != "Placeholder"]
    targets += [e["loss"] for e in others if all(e["loss"] is not t for t in targets)]
    targets += [t for t in estimator.pop("targets", []) if all(t is not u for u in targets)]

    opt_line = source_line(train_op, script, lines)
    opt_where = f"TF1 line {opt_line[0]}" if opt_line else "the TF1 graph"
    schedule = decay_schedule(graph, train_op, decays)
    graph_line = min((f.lineno for op in graph.get_operations() for f in (op.traceback or []) if f.filename == script),
                     default=first_step_line)  # the model and optimizer are written where the graph began
    constants = script_constants(tree, module_dict, min(graph_line, first_step_line))
    opt_class, opt_expr = keras_optimizer(graph, sess, decays, schedule, notes, tr.todos, opt_where, constants,
                                          module_dict, train_op)
    values = {name: f"model.{variables[op]}.numpy()" for op, name in var_globals.items() if op in variables}
    # beside other optimizers' steps (`G_solver_step`), the first is named after its train op too (`D_solver_step`)
    first = sorted(k for k, v in module_dict.items() if v is train_op and k.isidentifier()) if others else []
    step_taken = set(module_dict) | {"model", "Model", "tf", "np", "keras"}
    step_name = identifier(f"{first[0]}_step", step_taken) if first else "train_step"
    optimizer_name = identifier(f"{first[0]}_optimizer", step_taken | {step_name}) if first else "optimizer"
    values.update(optimizer_values(module_dict, schedule, tf, optimizer_name, (graph, train_op)))
    # the weights' ExponentialMovingAverage the train op keeps: TF2's own, its averages read by `ema.average(v)`
    averages = find_averages(tree, module_dict, train_op, trained, optimizer_name, tf, first_step_line) \
        if not others else None
    if averages is not None:
        tr.averages, tr.average_object = dict(averages.shadows), averages.name
    values.update({t.global_name: f"{t.global_name}.numpy()" for t in fed_states})  # `sess.run(init_state)`
    layers: list = []
    if style == "keras":
        tf1_names = dict(variables)  # the names the module style would give, for the layers' comments
        layers, owned, tr.remarks = keras_layers.find(tr, targets, trained, sess,
                                                      taken | set(variables.values()) | set(arguments.values()))
        variables.update(owned)  # a layer's weight is read as self.dense1.kernel where it is used op by op
    method_taken = set(variables.values()) | taken | {layer.attr for layer in layers}
    # the moving averages' flag is not shared yet: no one forward pass where the loss's method updates them
    out_tensor = None if tr.updates or any(tr.assignments.values()) else model_output(loss, trained, feed_tensors)
    if out_tensor is not None and style == "keras":
        fed = [t.name not in tr.flags for t in fed_inputs(out_tensor, feed_tensors)]
        if sum(fed) != 1 or fed.index(True) != 0:  # Keras's call: one input tensor, then `training=`
            out_tensor = None
    # the script's own graph-building functions: the forward pass's names and the helpers it calls (`conv2d`), or,
    # with no one forward pass, the functions themselves (a GAN's generator, discriminator), as methods
    script_calls = find_calls(graph, script, tree, module_dict)
    own_names, helpers = forward_names(script_calls, out_tensor, tr, lambda: framework_names(
        graph, script, tree, out_tensor)) if out_tensor is not None else ({}, {})
    function_code = function_methods(tr, helpers if out_tensor is not None else script_calls) \
        if style == "module" else []
    # what the call returns beside its output (an RNN's final state): module style; Keras's call returns one output
    extras = returned_beside(out_tensor, targets, feed_tensors) if out_tensor is not None and style == "module" \
        else []
    forward_code = call_lines(out_tensor, tr, style, feed_tensors, arguments, own_names, fed_itself, extras) \
        if out_tensor is not None else []
    methods, method_code, plan_methods, untranslated, fetched_summaries, updated = fetch_methods(
        targets, loss, names, values, tr, style, taken, method_taken, feed_tensors, arguments, placeholder_global, tf)
    loss_method, loss_args = methods[0][1], methods[0][2]
    flag_args = {name for name, _ in tr.flags.values()}
    step_params = [a for a in loss_args if a not in flag_args]  # the step always trains: `training=True` inside
    add_loss(estimator, loss, f"model.{loss_method}", [placeholder_global[a] for a in loss_args], module_dict)
    plan_summaries, summary_lines = summary_methods(fetched_summaries, tr, loss, methods, method_taken, method_code,
                                                    feed_tensors, arguments, placeholder_global, script, lines,
                                                    untranslated)

    runs_cut = cut_runs(tree, module_dict, feed_tensors, tf)  # `sess.run(ae_y, {ae_z: z})`: a method from `z`
    cut_code, cut_planned = cut_methods(runs_cut, module_dict, plan_methods, tr, feed_tensors, arguments,
                                        placeholder_global, method_taken, tf)
    method_code += cut_code
    list_code, listed = list_methods(tree, module_dict, tr, feed_tensors, arguments, placeholder_global,
                                     method_taken, tf)  # `sess.run(nets[0].layer_input)`: a list of values
    method_code += list_code
    plan_methods.update(listed)
    group_code, grouped = group_methods(tree, module_dict, tr, feed_tensors, arguments, placeholder_global,
                                        method_taken, plan_methods, set(listed) | untranslated, tf)
    method_code += group_code
    trained_attrs = {variables[v.op.name]: v for v in trained}
    if style == "keras":
        init_lines = keras_init_lines(layers, {a: v for a, v in trained_attrs.items() if "." not in a}, tf1_names,
                                      sess, tr)
    else:
        init_lines = [variable_line(attr, v, sess, tr) for attr, v in trained_attrs.items()]
    init_lines += [line for attr, (constructor, op) in tr.metrics.items()
                   for line in metric_lines(attr, constructor, op, tr, style)]
    unwritten += [graph.get_operation_by_name(bn) for bn in tr.updates if bn not in updated]  # not on the loss path
    assigned = {a.variable.op.name for items in tr.assignments.values() for a in items if a.op.name in tr.assigned}
    step_todos = step_todo_lines(unwritten, train_op, tr, script, lines, assigned)
    clip = clip_lines(found, tr, norm)  # TF1's clipping between its gradients and apply_gradients
    measure, measured, order = gradient_lines(measured, module_dict, found, tr, variables)
    if not order and gradient_factors(found) is not None:  # per-variable factors: the gradients in TF1's order
        order = [variables.get(v.op.name) for _, v in found["grads_and_vars"]]
        order = [] if None in order else order
    for key, value in module_dict.items():  # `G_loss = G_recon_loss`: both names fetch the one method
        own = names.get(value.name) if isinstance(value, tf.Tensor) else None
        if own in plan_methods and key not in plan_methods and key.isidentifier():
            plan_methods[key] = plan_methods[own]
    # train ops the script runs in one Session.run (a GAN's both networks): one step for them (joint_steps)
    train_globals = {k: v for k, v in module_dict.items() if k.isidentifier() and any(
        v is e["train_op"] for e in [found, *others])}
    together, otherwise = runs_together(tree, train_globals, lambda ops: not independent(ops) and writes_apart(
        ops)) if others else ([], set())
    skip = {n for combo in together for n in combo} - otherwise
    later = later_steps(others, methods, module_dict, variables, placeholder_global, by_argument, tr,
                        (graph, sess, decays, notes, constants), script, lines, assigned, skip)
    if first and not (updated or step_todos or clip or flag_args & set(loss_args) or densifies(found)):
        later.parts[first[0]] = Part(first[0], loss_method, list(loss_args), later.first_trains(found, variables),
                                     optimizer_name)
    loss_globals = {id(e["train_op"]): {k for k, v in module_dict.items() if v is e["loss"]} for e in [found, *others]}
    joint, joint_lines, joined = joint_steps(
        together, {id(module_dict[n]): p for n, p in later.parts.items()}, train_globals, by_argument,
        placeholder_global, loss_globals, step_taken | {step_name, *(s for s, _, _ in later.steps.values())})
    first_step = not (first and set(first) <= skip and id(train_op) in joined)
    metric_code, metric_method, step_extras = step_metrics(
        tree, module_dict, set(train_globals), loss, loss_globals[id(train_op)], list(loss_args), tr, feed_tensors,
        arguments, plan_methods, set(listed) | untranslated | set(plan_summaries), method_taken, tf, frozenset(
            plan_summaries)) \
        if first_step and not (others or updated or step_todos) else ([], "", ())
    method_code += metric_code
    written_moving = {name: attr for name, (attr, v) in moving.items()  # read (by any step) or updated
                      if name in tr.idle_read or name in assigned
                      or any(u.variable is v for bn in updated for u in tr.updates.get(bn, ()))}
    init_lines += [variable_line(attr, moving[name][1], sess, tr, trainable=False)
                   for name, attr in written_moving.items()]
    restore_lines = restore_method({**{v.op.name: variables[v.op.name] for v in trained}, **written_moving},
                                   shadow_map(averages, variables))

    plan = carried.Plan(graph=graph_names, train=train_names | set(later.steps) | (averages.groups if averages
                                                                                    else set()),
                        methods=plan_methods, values=values,
                        steps=later.steps, loss_names={k for k, v in module_dict.items() if v is loss},
                        after={k for k, v in values.items() if v.startswith(f"{optimizer_name}.iterations")},
                        step_name=step_name, optimizer_name=optimizer_name,
                        step_args=[placeholder_global[a] for a in step_params], loss=names.get(loss.name),
                        tf_names=tf_names, untranslated=untranslated, summaries=plan_summaries,
                        summary_lines=summary_lines, late=set(late or ()),
                        placeholders={k for k, v in module_dict.items() if isinstance(v, tf.Tensor)
                                      and v.op.type in ("Placeholder", "PlaceholderWithDefault")} |
                        {t.global_name for t in fed_states}, defaults={**unfed_defaults(module_dict, tf),
                                                          **{t.global_name: t.global_name for t in fed_states}},
                        datasets={k for k, v in module_dict.items() if isinstance(v, tf.data.Dataset)},
                        iterators={k for k, v in module_dict.items() if isinstance(v, tf.compat.v1.data.Iterator)},
                        pipeline={k for k, v in module_dict.items() if isinstance(v, tf.Tensor)
                                  and v.op.type in ITERATOR_OUTPUTS},
                        independent=_independent(module_dict, [found["train_op"], *(e["train_op"] for e in others)]),
                        joint=joint, cut_methods=cut_planned, cuts={n for cut in runs_cut for n in cut},
                        lists=set(listed), groups=grouped,
                        step_extras=(*step_extras, *measured, *([norm] if norm else [])),
                        flags={flag.name: (flag.param, flag.values) for flag in flags},
                        tf1_restore=bool(restore_lines), shadows=shadows_list(averages, variables, trained),
                        **estimator)
    if any(g is None for g in plan.step_args):
        tr.todos.append("the training feed: a fed placeholder has no global name in the TF1 script")
    kept = carried.rewrite(text, plan, first_step_line, main)

    name = in_docstring(Path(script).name)  # a file name is data: quotes and newlines escaped, never code
    doc = (_MODULE_CALL_DOC if forward_code else _MODULE_DOC) if style == "module" else _KERAS_DOC
    about = [f'TF2 rewrite of {name}, written by `tfcompare convert` from the graph the TF1 script built.',
             " ".join(doc) + " @tf.function step with a Keras optimizer carrying TF1's settings."]
    out = opening(kept, about, notes, keras=style == "keras")
    if any("TODO_tfcompare(" in c for c in method_code):
        out += ["", "def TODO_tfcompare(what):",
                f'{INDENT}raise NotImplementedError(f"tfcompare convert could not translate {{what}}")', ""]
    for source in dict.fromkeys(c for c in (opt_class, *later.classes) if c):
        out += [source.strip("\n"), "", ""]
    for helper in sorted(tr.helpers):
        out += [HELPER_SOURCE[helper].strip("\n"), "", ""]
    model_part = []
    if style == "keras":  # keras.models.load_model finds the class by this name, and rebuilds it with its config
        model_part.append("@keras.saving.register_keras_serializable()")
    model_part += ["class Model(tf.Module):" if style == "module" else "class Model(keras.Model):",
            *_paragraph(INDENT, f'"""The TF1 graph of {name}: its trained variables, '
                                f'{"its forward pass, " if forward_code else ""}and one method per tensor the '
                                'script fetches."""' if style == "module" else
                        f'"""The TF1 graph of {name}: Keras layers where a group of TF1 ops is exactly one, the '
                        'other trained variables as weights of the model; one method per tensor the script '
                        'fetches, op by op around the layers (the loss and what no Keras layer computes the same '
                        'way)."""'), "",
            *([f"{INDENT}def __init__(self):", f"{INDENT * 2}super().__init__(name=\"model\")"] if style == "module"
              else [f"{INDENT}def __init__(self, name=\"model\", **kwargs):",
                    f"{INDENT * 2}super().__init__(name=name, **kwargs)"]), *init_lines, "",
            *forward_code, *function_code, *method_code, *restore_lines, "",
            "model = Model()",
            f"{optimizer_name} = {opt_expr}  # {opt_where}: {(opt_line[1][:60] if opt_line else '')}".rstrip(),
            *(setup_lines(averages, variables, trained, f"TF1 line {averages.line}") if averages else []),
            *later.optimizers, *zero_state_lines(fed_states),
            *(["", "", *step_code(metric_method or loss_method, step_params, updated, step_todos,
                        input_signature([by_argument[a] for a in step_params])
                        if all(a in by_argument for a in step_params) else "",
                        name=step_name, optimizer=optimizer_name, call_args=[
                            a if a not in flag_args else switch_argument(a, True, set(loss_args[i:]) <= flag_args)
                            for i, a in enumerate(loss_args)],
                        densify=densifies(found), trains=later.first_trains(found, variables) or order or None,
                        returns=step_extras, clip=[*measure, *clip], norm=norm,
                        measured=measured, after=[apply_line(averages, variables, trained)] if averages else []
                        )] if first_step else []),
            *later.code, *joint_lines,
            "", ""]
    out += per_block(model_part, model_comments(text, tree))  # provenance per block, the script's comments
    if kept.summaries:
        out += [summary_ops.HELPER.strip("\n"), "", ""]
    if kept.saves:
        out += [*save_helper(optimizer_name, plan.shadows), "", ""]
    if kept.restores:
        out += [*restore_helper(optimizer_name, bool(restore_lines), averages.name if averages else "",
                                plan.shadows, train_op), "", ""]
    out += [t.lstrip("\n") if i == 0 else t for i, t in enumerate(kept.tail)]
    body = "\n".join(out).rstrip() + "\n"
    # the methods a group's method or the step's replaced everywhere (the loss's too, when the step computes it)
    superseded = [n for names in grouped for n in names] + ([*step_extras, "loss"] if step_extras else [])
    body = without_superseded(comment_marks(body), superseded, {**plan_methods, "loss": (f"model.{loss_method}",)},
                              "" if step_extras else loss_method)
    body = without_replaced_imports(body, Path(script).parent)  # `from model import Model`: written below
    return Written(body, todo_marks(body), notes)  # the console's list is the file's marks, one for one
