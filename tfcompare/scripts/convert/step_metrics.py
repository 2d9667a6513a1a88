"""Tensors fetched with the train op: `_, acc, pred = sess.run([train_op, accuracy, output], feed)` is one forward
pass in TF1, the accuracy and the output computed from the weights the step starts from, in the same run as the
update. The rewrite computed them by calls of their own before the step (the network run three times); a reviewer
of five rewrites pointed at it. Where the script's training runs fetch one list of such tensors, the step computes
them with the loss from one forward pass and returns them after it (`return loss_value, accuracy, output`), and
the run reads them from the step: `acc, pred = [value.numpy() for value in train_step(x, y)[1:]]`.
"""

from __future__ import annotations

import ast

from tfcompare.scripts.convert.forward import fed_inputs
from tfcompare.scripts.convert.list_fetches import list_method
from tfcompare.scripts.convert.train_step import STEP_LOCALS

__all__ = ["step_metrics"]



def _trained_fetches(tree, train_names: set) -> list[list[str]]:
    """The names each training run fetches beside its train op (`sess.run([train_op, loss, acc])`: loss, acc; the
    train op first or last, as char-rnn's `sess.run([model.cost, model.final_state, model.train_op], feed)`)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run" and \
                node.args and isinstance(node.args[0], (ast.List, ast.Tuple)):
            items = node.args[0].elts
            names = [i.id for i in items if isinstance(i, ast.Name)]
            if len(names) == len(items) and set(names) & train_names:
                trains, k = [n for n in names if n in train_names], len(set(names) & train_names)
                if names[:k] != trains and names[len(names) - k:] != trains:
                    return []  # a train op between values: not in the step's order
                out.append([n for n in names if n not in train_names])
    return out


def step_metrics(tree, module_dict: dict, train_names: set, loss, loss_names: set, loss_args: list, tr,
                 feed_tensors: list, arguments: dict, plan_methods: dict, skip: set, method_taken: set, tf,
                 summaries: frozenset = frozenset()) -> tuple[list[str], str, tuple[str, ...]]:
    """(the method's code lines, its name, the names the step returns after the loss) where every training run
    fetches the same tensors beside the loss, in one order (the loss, if fetched, first), each with a model method
    and read from the loss's inputs; ([], "", ()) otherwise: the step returns its loss only. A fetched summary
    (`summaries`) is not among them: its values are computed before the step, as TF1 computed them."""
    runs = [[n for n in names if n not in summaries] for names in _trained_fetches(tree, train_names)]
    extras = {tuple(n for n in names if n not in loss_names) for names in runs} - {()}
    if len(extras) != 1:
        return [], "", ()
    (names,) = extras
    for fetched in runs:
        if fetched and [n for n in fetched if n not in loss_names] == list(names) and \
                any(n in loss_names for n in fetched) and fetched[0] not in loss_names:
            return [], "", ()  # the loss after a metric: the step's order would not be the run's
    values = [module_dict.get(n) for n in names]
    read = {t.name for t in fed_inputs(loss, feed_tensors)}
    if any(not isinstance(v, tf.Tensor) or n not in plan_methods or n in skip or n in STEP_LOCALS or
           n in loss_args or not n.isidentifier() or not plan_methods[n][0].startswith("model") or
           any(t.name not in read for t in fed_inputs(v, feed_tensors)) for n, v in zip(names, values)):
        return [], "", ()
    made = list_method([loss, *values], "loss_and_" + "_and_".join(names) if len(names) <= 2 else "loss_and_metrics",
                       tr, feed_tensors, arguments, method_taken, updates=False)
    if made is None:
        return [], "", ()
    method, lines, _ = made  # its arguments are the loss's: the values read nothing else
    return lines, method, tuple(names)
