"""What the step fetches from the gradients themselves: `sess.run([train_op, loss, grad_norm, max_abs_grad])` where
`grad_norm = tf.global_norm([g for g, _ in grads_and_vars])` reads `compute_gradients`' raw gradients (a clip's own
global norm is `fetched_norm`'s). TF1 computed them in the training run, from the gradients of that step; the
rewrite's step computes them from its tape's gradients, taken in TF1's variable order, and returns them after the
loss. Before, such a run was a TODO and the rewrite never took a step.
"""

from __future__ import annotations

import re

from tfcompare.core.graphs import ancestors
from tfcompare.scripts.convert.naming import INDENT
from tfcompare.scripts.convert.train_step import STEP_LOCALS, fetched_norm

__all__ = ["step_fetches", "gradient_lines"]


def step_fetches(found: dict, module_dict: dict, fetched: set, alone: bool, arguments: dict) -> tuple[str, list]:
    """(the clip's global norm the script fetches, or ""; the script's names of the other fetched tensors computed
    from the raw gradients), where the graph has one optimizer (`alone`) and their names are free in the step."""
    if not alone:
        return "", []
    taken = STEP_LOCALS | set(arguments.values())
    norm = fetched_norm(found, module_dict, fetched)
    norm = "" if norm in taken else norm
    raw = {g.name for g in found.get("raw_grads", [])}
    if not raw:
        return norm, []
    measured = [n for n in sorted(fetched) if n != norm and n not in taken and n.isidentifier() and
                hasattr(module_dict.get(n), "op") and module_dict[n] is not found.get("loss") and
                raw & {t.name for op in ancestors([module_dict[n]]) for t in op.outputs}]
    return norm, measured


def gradient_lines(measured: list, module_dict: dict, found: dict, tr, variables: dict) -> tuple[list, list, list]:
    """(the step's lines computing `measured` from `gradients`, the names, the model's attributes in TF1's order of
    the gradients, for the tape); ([], [], []) where one of them needs a translation tfcompare does not have."""
    if not measured:
        return [], [], []
    pairs = found["grads_and_vars"]
    order = [variables.get(v.op.name) for _, v in pairs]
    if None in order:
        return [], [], []
    saved = dict(tr.arguments)
    tr.arguments.update({g.name: f"gradients[{i}]" for i, g in enumerate(found["raw_grads"])})
    todos = len(tr.todos)
    try:  # all at once: what they share (`flat_grads`) computed once, each under the script's name
        body, expr = tr.function([module_dict[name] for name in measured])
        lines = [line.text(INDENT) for line in body]
        if expr != f"[{', '.join(measured)}]":
            lines.append(f"{INDENT}{', '.join(measured)}{',' if len(measured) == 1 else ''} = {expr}")
    finally:
        tr.arguments.clear()
        tr.arguments.update(saved)
    if len(tr.todos) > todos or any("TODO" in line for line in lines):
        del tr.todos[todos:]
        return [], [], []
    lines = [re.sub(r"\bself\.", "model.", line) for line in lines]  # the step is the script's, not a method
    return [f"{INDENT}# what the script fetched from the gradients, before any transform, as TF1 computed it",
            *lines], list(measured), order
