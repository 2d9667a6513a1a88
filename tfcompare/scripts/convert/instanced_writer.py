"""The TF2 script of a TF1 script whose class is built several times (`instances`): the script's own code carried
over around the TF2 class, its instances rebuilt with their optimizers, every `net.train` / `net.loss` / `net.x`
of its runs read as the instance's step, method and argument.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tfcompare.core.generated_code import in_docstring
from tfcompare.core.source_files import read_script
from tfcompare.scripts.convert import source as carried
from tfcompare.scripts.convert.instances import class_code, find_instanced, init_of, member_spans, optimizer_call
from tfcompare.scripts.convert.late import with_inline_fetches
from tfcompare.scripts.convert.optimizers import script_constants
from tfcompare.scripts.convert.own_modules import without_replaced_imports
from tfcompare.scripts.convert.provenance import per_block, script_comments
from tfcompare.scripts.convert.script_globals import read_globals
from tfcompare.scripts.convert.todo_marks import todo_marks
from tfcompare.scripts.convert.writer import Written, comment_marks, opening

__all__ = ["write_instanced"]


def write_instanced(script: str, module_dict: dict, sess, found: dict, groups: dict, decays: dict,
                    first_step_line: int, main: str | None = None) -> Written | str | None:
    """The rewrite, or None where the script is not of this kind (`convert` then writes one model as before), or
    a note saying why a script of nearly this kind is not written so."""
    import tensorflow as tf

    text = read_script(script)
    lines = text.split("\n")
    tree = ast.parse(text)
    if re.search(r"\bSaver\s*\(|\bFileWriter\s*\(", text):
        return None  # a checkpoint or summaries of the one model: written as before
    inst = find_instanced(tree, module_dict, found)
    if inst is None or isinstance(inst, str):
        return inst
    notes, todos = [], []
    graph = sess.graph
    graph_line = min((f.lineno for op in graph.get_operations() for f in (op.traceback or []) if f.filename == script),
                     default=first_step_line)
    before = min(graph_line, first_step_line)
    call = optimizer_call(init_of(inst.node))  # `opt(LR, **kwargs)`: LR is the rewrite's learning rate too
    constants = (script_constants(tree, module_dict, before, call) if isinstance(call, ast.Call) else {}) or \
        script_constants(tree, module_dict, before)
    made = class_code(inst, script, lines, sess, decays, groups, constants, module_dict, notes, todos)
    if made is None:
        return None
    body, opt_classes, new_calls, parts = made
    names, _, graph_names, _, tf_names = read_globals(module_dict, found["train_op"], tf)
    spans, what = member_spans(tree, inst, set(module_dict) | {n.id for n in ast.walk(tree)
                                                              if isinstance(n, ast.Name)})
    args = parts["args"]
    by_holder: dict[str, dict] = {}
    for plain, (holder, attr) in what.items():
        by_holder.setdefault(holder, {})[attr] = plain

    def plain(holder: str, attr: str) -> str:
        return by_holder.get(holder, {}).get(attr, f"{holder}__{attr}")

    methods, steps, untranslated = {}, {}, set()
    for plain_name, (holder, attr) in what.items():
        if attr == inst.train:
            loss_attr = next((a for a, m in parts["methods"].items() if a in inst.tensors and
                              vars(inst.instances[0][1])[a] is inst.instances[0][2]["loss"]), None)
            steps[plain_name] = (f"{holder}.{inst.train}", [plain(holder, a) for a in args],
                                 {plain(holder, loss_attr)} if loss_attr else set())
        elif attr in parts["untranslated"]:
            untranslated.add(plain_name)
        elif attr in parts["methods"]:
            method = parts["methods"][attr]
            methods[plain_name] = (f"{holder}.{method}" if method else holder,
                                   [plain(holder, a) for a in parts["method_args"][attr]])
    # the instances and the lists of them are the script's own objects now, no graph values
    held = {k for k, v in module_dict.items() if any(v is o for _, o, _ in inst.instances) or (
        isinstance(v, (list, tuple)) and v and all(any(x is o for _, o, _ in inst.instances) for x in v))}
    plan = carried.Plan(graph=(graph_names - held) | set(what), train=set(steps), methods=methods, step_args=[], loss=None,
                        tf_names=tf_names, steps=steps, untranslated=untranslated,
                        placeholders={p for p, (_, a) in what.items() if a in inst.placeholders},
                        classes={inst.cls}, rebuilt=new_calls)
    kept = carried.rewrite(with_inline_fetches(text, spans), plan, first_step_line, main)
    if kept.summaries:
        return None
    name = in_docstring(Path(script).name)
    about = [f"TF2 rewrite of {name}, written by `tfcompare convert` from the graph the TF1 script built.",
             f"{inst.cls} is a tf.Module: each instance holds its own variables (same shapes and initializers as "
             f"TF1's), its forward pass and loss, op by op, and a @tf.function step with its own Keras optimizer "
             f"carrying the TF1 instance's settings."]
    out = opening(kept, about, notes)
    for source in dict.fromkeys(opt_classes):
        out += [source.strip("\n"), "", ""]
    out += per_block(body, script_comments(text)) + ["", ""]
    out += [t.lstrip("\n") if i == 0 else t for i, t in enumerate(kept.tail)]
    text_out = comment_marks("\n".join(out).rstrip() + "\n")
    text_out = without_replaced_imports(text_out, Path(script).parent)
    notes.append(f"{inst.cls} is built {len(inst.instances)} times, each instance a network with its own "
                 f"optimizer: the TF2 class keeps that, each instance's step is `{inst.train}`")
    if inst.varying is not None:
        read = sorted({*inst.varying.activations.values(), *(d for s in inst.varying.dims.values() for d in s
                                                             if isinstance(d, str))})
        notes.append(f"the instances compute otherwise only where {inst.cls}'s arguments {', '.join(read)} reach "
                     f"the graph (an activation, a width): the TF2 class reads them there; pair proves the instances "
                     f"its steps train (an instance the script trains only after others' many steps is not "
                     f"compared: --steps)")
    return Written(text_out, todo_marks(text_out), notes, len(inst.instances))
