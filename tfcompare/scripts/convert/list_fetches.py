"""Fetches of a list of tensors: MorvanZhou's batch-norm tutorial keeps each network's layer inputs in a list
(`self.layer_input = [tf_x]`, appended to per layer) and fetches it whole, `sess.run([nets[0].layer_input, ...])`,
to plot their histograms; TF1 returns the list of their values. The TF2 model gets one method returning the list
(`model.nets_0_layer_input(tf_x, training=False)`), and the run reads each value (`[value.numpy() for value in
...]`).
"""

from __future__ import annotations

from tfcompare.scripts.convert.forward import fed_inputs
from tfcompare.scripts.convert.methods import method_lines
from tfcompare.scripts.convert.naming import fed_key, identifier
from tfcompare.scripts.convert.script_globals import fetched_names

__all__ = ["list_methods", "list_method"]


def list_methods(tree, module_dict: dict, tr, feed_tensors: list, arguments: dict, placeholder_global: dict,
                 method_taken: set, tf) -> tuple[list[str], dict]:
    """(the methods' code lines, {fetched name: (method prefix, placeholder names)}) for the script's fetched names
    bound to lists of tensors; one whose translation needs a TODO gets none (its run stays a TODO)."""
    code, planned = [], {}
    for name in sorted(fetched_names(tree)):
        value = module_dict.get(name)
        if not (isinstance(value, list) and value and all(isinstance(v, tf.Tensor) for v in value)):
            continue
        made = list_method(value, name, tr, feed_tensors, arguments, method_taken)
        if made is not None:
            method, lines, args = made
            code += lines
            planned[name] = (f"model.{method}", [placeholder_global[a] for a in args])
    return code, planned


def list_method(values: list, name: str, tr, feed_tensors: list, arguments: dict, method_taken: set,
                updates: bool = True) -> tuple[str, list[str], list[str]] | None:
    """A model method named after `name` returning `values` from one forward pass, taking the placeholders they
    read: (its name, its code lines, its argument names); None where its translation needs a TODO, or, without
    `updates`, a batch norm's moving-average switch."""
    read = {t.name for v in values for t in fed_inputs(v, feed_tensors)}
    fed = [t for t in feed_tensors if t.name in read]
    args = [arguments[fed_key(t)] for t in fed]
    todos_before = len(tr.todos)
    body, expr = tr.function(values)
    if len(tr.todos) > todos_before or (tr.updated and not updates):
        del tr.todos[todos_before:]
        return None
    method = identifier(name, method_taken)
    method_taken.add(method)
    return method, method_lines(method, args, fed, body, expr, tr), args
