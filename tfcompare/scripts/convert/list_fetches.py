"""Fetches of a list of tensors: MorvanZhou's batch-norm tutorial keeps each network's layer inputs in a list
(`self.layer_input = [tf_x]`, appended to per layer) and fetches it whole, `sess.run([nets[0].layer_input, ...])`,
to plot their histograms; TF1 returns the list of their values. The TF2 model gets one method returning the list
(`model.nets_0_layer_input(tf_x, training=False)`), and the run reads each value (`[value.numpy() for value in
...]`).
"""

from __future__ import annotations

from tfcompare.core.graphs import ancestors
from tfcompare.scripts.convert.forward import LEAVES, fed_inputs
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
    body, expr = tr.function(values, share=not _inside_the_call(values, tr))
    if len(tr.todos) > todos_before or (tr.updated and not updates):
        del tr.todos[todos_before:]
        return None
    method = identifier(name, method_taken)
    method_taken.add(method)
    return method, method_lines(method, args, fed, body, expr, tr), args


def _inside_the_call(values: list, tr) -> bool:
    """Whether a value reads an op of the forward pass other than through its output (an RNN's final state beside
    the loss on its logits): the model's call returns its output alone, so the method computes all it returns
    itself, once, not the call and a second copy of the forward pass."""
    graph = values[0].graph
    calls = [graph.get_tensor_by_name(name) for name in tr.shared if ":" in name]
    if not calls:
        return False
    inside = {op for op in ancestors(calls, control=False) if op.type not in LEAVES}
    stops = {t.op for t in calls}
    seen, todo = set(), [v.op for v in values if v.op not in stops]
    while todo:
        op = todo.pop()
        if op in seen or op in stops:
            continue
        seen.add(op)
        if op in inside:
            return True
        todo.extend(t.op for t in op.inputs)
    return False