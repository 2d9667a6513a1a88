"""The Model's methods: one per tensor the script fetches (the loss first), op by op, taking the fed
placeholders it reaches; and for each fetched TF1 summary the methods computing what it summarised.
"""

from __future__ import annotations

from tfcompare.scripts.convert import summaries as summary_ops
from tfcompare.scripts.convert.forward import fed_inputs
from tfcompare.scripts.convert.moving import assignment_lines
from tfcompare.scripts.convert.naming import INDENT, fed_key, identifier
from tfcompare.scripts.convert.ops import Translator
from tfcompare.scripts.convert.tf1_lines import source_line
from tfcompare.scripts.convert.train_step import input_signature
from tfcompare.scripts.convert.written_line import return_lines

__all__ = ["fetch_methods", "method_lines", "summary_methods"]


def fetch_methods(targets: list, loss, names: dict, values: dict, tr: Translator, style: str, taken: set,
                  method_taken: set, feed_tensors: list, arguments: dict, placeholder_global: dict, tf):
    """The methods of `targets` (the loss first); returns ([(target, method, argument names)], their code lines,
    fetched global name -> (method prefix, placeholder names), fetched names with no translation, fetched global
    name -> its TF1 summaries, the moving averages the loss updates)."""
    methods, method_code, plan_methods, untranslated = [], [], {}, set()
    fetched_summaries = {}  # global name of a fetched summary -> its summaries
    for target in targets:
        own = names.get(target.name)
        if target is not loss and own in values:
            continue  # the decayed learning rate: the optimizer's own
        found = summary_ops.find(target, tf) if target is not loss and own else None
        if found is not None:
            fetched_summaries[own] = found
            continue
        if target is not loss and own and target.name in tr.shared and target.name not in tr.shared_parts:
            # the forward pass itself: `model(x)` (one of several values it returns: a method reading it)
            plan_methods[own] = ("model", [placeholder_global[arguments[fed_key(t)]]
                                           for t in fed_inputs(target, feed_tensors)])
            continue
        todos_before = list(tr.todos)
        body, expr = tr.function(target)
        if target is not loss and len(tr.todos) > len(todos_before):
            untranslated.add(own)  # a fetch (a merged summary) with no translation: None where it was fetched
            continue
        method = own or "loss"
        method = identifier(f"{method}_fn" if style == "keras" and method in taken else method, method_taken)
        fed = fed_inputs(target, feed_tensors)
        args = [arguments[fed_key(t)] for t in fed]
        assignment_lines(tr, tr.assignments.get(target.name, []))  # its train op's assignments, at its end
        if target is loss:
            updated = set(tr.updated)
        method_code += method_lines(method, args, fed, body, expr, tr)
        methods.append((target, method, args))
        if own:
            plan_methods[own] = (f"model.{method}", [placeholder_global[a] for a in args])
    return methods, method_code, plan_methods, untranslated, fetched_summaries, updated


def method_lines(method: str, args: list, fed: list, body: list, expr: str, tr: Translator) -> list[str]:
    """One method of the Model: `body` (the translator's lines) returning `expr`; with its batch norms' moving
    averages, an `update_moving_averages=False` switch (and it is registered in `tr.updating`), else, taking
    arguments, a tf.function casting them as TF1's placeholders did (`model.accuracy(test_x, test_y)` is called
    outside the step too)."""
    flag = ", update_moving_averages=False" if tr.updated else ""
    code = [f"{INDENT}@tf.function({input_signature(fed, tr.flags)})"] if args and not flag else []
    code.append(f"{INDENT}def {method}(self{''.join(', ' + a for a in args)}{flag}):")
    code += [*return_lines(body, expr, INDENT * 2, set(tr.names.values())), ""]
    if tr.updated:
        tr.updating.add(method)
    return code


def summary_methods(fetched: dict, tr: Translator, loss, methods: list, taken: set, code: list, feed_tensors: list,
                    arguments: dict, placeholder_global: dict, script: str, lines: list[str], untranslated: set):
    """The model methods computing what each fetched summary summarised; returns (fetched name -> [(tag, kind,
    method prefix, placeholder names, is the loss)], source lines of the summary ops written in TF2)."""
    plan, written_lines = {}, set()
    for own, found in fetched.items():
        items, todos_before = [], list(tr.todos)
        for s in found:
            if s.value is loss:
                items.append((s.tag, s.kind, f"model.{methods[0][1]}",
                              [placeholder_global[a] for a in methods[0][2]], True))
                continue
            body, expr = tr.function(s.value)
            method = identifier(f"summary_{s.tag}", taken)
            fed = fed_inputs(s.value, feed_tensors)
            args = [arguments[fed_key(t)] for t in fed]
            if args:  # NumPy's float64 data cast to the placeholder's dtype, as TF1's feed did
                code.append(f"{INDENT}@tf.function({input_signature(fed, tr.flags)})")
            code.append(f"{INDENT}def {method}(self{''.join(', ' + a for a in args)}):")
            code.extend([*return_lines(body, expr, INDENT * 2, set(tr.names.values())), ""])
            items.append((s.tag, s.kind, f"model.{method}", [placeholder_global[a] for a in args], False))
        if len(tr.todos) > len(todos_before):
            untranslated.add(own)
            continue
        plan[own] = items
        for s in found:
            where = source_line(s.op, script, lines)
            if where:
                written_lines.add(where[0])
    return plan, written_lines
