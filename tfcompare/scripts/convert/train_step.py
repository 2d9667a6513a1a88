"""The TF2 script's `@tf.function` train step (the loss under a GradientTape, the Keras optimizer's
apply_gradients), and a TODO for each thing TF1's train op also did that the step does not write.
"""

from __future__ import annotations

import numpy as np

from tfcompare.core.graphs import static_value
from tfcompare.scripts.convert.moving import other_assignments
from tfcompare.scripts.convert.naming import INDENT
from tfcompare.scripts.convert.tf1_lines import source_line
from tfcompare.scripts.convert.todo_marks import COMMENT, mark_lines
from tfcompare.scripts.convert.written_line import number
from tfcompare.scripts.pair.sparse import SQUARING

__all__ = ["step_todo_lines", "step_code", "input_signature", "densifies", "clip_lines", "fetched_norm", "STEP_LOCALS",
           "gradient_factors"]

# the names the written step and the code around it bind: a value the step returns cannot take one of them
STEP_LOCALS = frozenset({"tape", "gradients", "loss_value", "model", "optimizer", "tf", "variables"})


def input_signature(placeholders: list, flags: dict | None = None) -> str:
    """`input_signature=[tf.TensorSpec(...), ...]` from TF1's placeholders, in the step's argument order: the step
    casts what it is given to the placeholder's dtype, as a TF1 feed did (float64 NumPy data to float32), and a
    batch of another size does not trace it again."""
    specs = []
    for t in placeholders:
        if t.name in (flags or {}):  # a keep_prob read as the `training` switch
            specs.append("tf.TensorSpec([], tf.bool)")
            continue
        shape = None if t.shape.rank is None else t.shape.as_list()
        specs.append(f"tf.TensorSpec({shape}, tf.{t.dtype.base_dtype.name})")
    return f"input_signature=[{', '.join(specs)}]"


def step_code(loss_method: str, loss_args: list[str], updated: set, step_todos: list[str],
              signature: str = "", name: str = "train_step", optimizer: str = "optimizer",
              trains: list[str] | None = None, call_args: list[str] | None = None, densify: bool = False,
              returns: tuple[str, ...] = (), clip: list[str] = (), norm: str = "", measured: tuple[str, ...] = (),
              after: list[str] = ()) -> list[str]:
    """The lines of `train_step` (or `name`), taking the fed placeholders `loss_args` and returning the loss; with
    several optimizers (a GAN) each step trains its TF1 var_list, `trains` (the model's attributes), not them all;
    `call_args`: the loss method's arguments where they are not the step's (`training=True`); `densify`: an
    embedding's sparse gradient made dense before an optimizer that squares it (`densifies`); `returns`: what the
    loss's method (then `step_metrics`'s) computes beside the loss, returned after it; `clip`: `clip_lines`;
    `norm`: the clip's global norm, returned last (`fetched_norm`); `measured`: what `clip`'s first lines compute
    from the gradients (`gradient_fetches`), returned before it; `after`: lines after apply_gradients (a moving
    average's update), `{variables}` the list it applied to."""
    variables = "model.trainable_variables"
    listed = []
    if trains is not None:
        variables = "variables"
        listed = [f"{INDENT}variables = [{', '.join(f'model.{a}' for a in trains)}]"]
    return [f"@tf.function({signature})" if signature else "@tf.function",
            f"def {name}({', '.join(loss_args)}):",
            f"{INDENT}with tf.GradientTape() as tape:",
            f"{INDENT * 2}{', '.join(('loss_value', *returns))} = model.{loss_method}({', '.join(call_args or loss_args)}"
            f"{', update_moving_averages=True' if updated else ''})",
            *listed,
            f"{INDENT}gradients = tape.gradient(loss_value, {variables})",
            *([f"{INDENT}# TF1's optimizer sums an embedding gradient's repeated rows before it squares them;",
               f"{INDENT}# Keras's squares each row's slices one by one: dense, they compute as TF1's did",
               f"{INDENT}gradients = [tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g "
               "for g in gradients]"] if densify else []),
            *clip,
            f"{INDENT}{optimizer}.apply_gradients(zip(gradients, {variables}))",
            *(line.replace("{variables}", variables) for line in after),
            *step_todos,
            f"{INDENT}return {', '.join(('loss_value', *returns, *measured, *([norm] if norm else [])))}"]


def fetched_norm(entry: dict, module_dict: dict, fetched: set) -> str:
    """The script's name for the global norm `tf.clip_by_global_norm` computed between the gradients of `entry` (a
    train op's found entry) and its apply_gradients, where the script fetches it (`grads, gn = ...`, then
    `sess.run([train_op, loss, gn])`): the step returns it after the loss; "" where it does not."""
    from tfcompare.core.graphs import ancestors

    applied = [g for g, _ in entry.get("grads_and_vars", []) if g is not None]
    names = [n for n in sorted(fetched) if getattr(module_dict.get(n), "op", None) is not None and
             module_dict[n].op.type == "Sqrt" and module_dict[n].op.name.split("/")[-2:] == ["global_norm"] * 2]
    inside = set(ancestors(applied)) if names else set()
    return next((n for n in names if module_dict[n].op in inside), "")


def clip_lines(entry: dict, tr, norm: str = "") -> list[str]:
    """The step's clipping between the tape and apply_gradients, as TF1's train op (`entry`) clipped between
    `compute_gradients` / `tf.gradients` and `apply_gradients` (`tf.clip_by_global_norm`, `tf.clip_by_norm`,
    `tf.clip_by_value`); any other transform is a TODO, never dropped in silence (a dropped clip that does not bind
    in the steps pair compares would pass the proof)."""
    from tfcompare.core import gradient_transforms as gt

    found = gt.tf1_transform(entry.get("raw_grads", []), [g for g, _ in entry.get("grads_and_vars", [])])
    kind, c = found["kind"], found["value"]
    if kind == gt.NONE:
        return []
    factors = gradient_factors(entry) if kind == gt.OTHER else None
    if factors is not None:  # the step's gradients are in TF1's variable order (writer: `variables = [...]`)
        listed = ", ".join(number(np.float32(f)) for f in factors)
        return [f"{INDENT}# each gradient scaled as TF1 scaled it before apply_gradients, in TF1's variable order",
                f"{INDENT}gradients = [g * factor for g, factor in zip(gradients, [{listed}])]"]
    if kind == gt.OTHER or c is None:
        tr.todos.append(f"TF1's train op transformed its gradients before applying them: {gt.text(found)}")
        return [f"{INDENT}# TODO(tfcompare): TF1 transformed the gradients here ({found['source'][:60]}); "
                "not written"]
    c, minus = number(np.float32(c)), number(np.float32(-c))  # the float32 constant as the script wrote it
    clipped = {gt.GLOBAL_NORM: f"gradients, {norm or '_'} = tf.clip_by_global_norm(gradients, {c})",
               gt.NORM: f"gradients = [tf.clip_by_norm(g, {c}) for g in gradients]",
               gt.VALUE: f"gradients = [tf.clip_by_value(g, {minus}, {c}) for g in gradients]"}[kind]
    return [f"{INDENT}{clipped}  # as TF1 clipped them before apply_gradients"]


def gradient_factors(entry: dict) -> list[float] | None:
    """Per variable, in TF1's order, the constant each gradient was multiplied by between `compute_gradients` and
    `apply_gradients` (`[(g * 2.0, v) if 'bias' in v.name else (g, v) for g, v in grads_and_vars]`: a learning
    rate per layer), 1.0 where it was applied as computed; None for any other transform, or where a variable has no
    dense gradient."""
    import tensorflow as tf

    raw, pairs = entry.get("raw_grads", []), entry.get("grads_and_vars", [])
    if not pairs or len(raw) != len(pairs):
        return None
    out = []
    for r, (a, _) in zip(raw, pairs):
        if not isinstance(r, tf.Tensor) or not isinstance(a, tf.Tensor):
            return None
        if a is r:
            out.append(1.0)
            continue
        if a.op.type != "Mul":
            return None
        x, y = a.op.inputs
        scale = next((static_value(c) for g, c in ((x, y), (y, x)) if _unread(g) is _unread(r)), None)
        if scale is None or np.ndim(scale) or not np.isfinite(scale):
            return None
        out.append(float(scale))
    return out if any(f != 1.0 for f in out) else None


def _unread(t):
    while t.op.type == "Identity" and t.op.inputs:
        t = t.op.inputs[0]
    return t


def densifies(entry: dict) -> bool:
    """Whether the step must make its sparse gradients dense: TF1's optimizer (`entry`: a train op's found entry)
    took an IndexedSlices gradient (an embedding lookup's) and is one whose Keras counterpart squares it slice by
    slice, so a row the batch holds twice would update otherwise than TF1's (which sums the row first)."""
    import tensorflow as tf

    keras_name = type(entry.get("optimizer")).__name__.removesuffix("Optimizer").lower()  # AdamOptimizer: adam
    return keras_name in SQUARING and any(isinstance(g, tf.IndexedSlices) for g, _ in entry.get("grads_and_vars", []))


def step_todo_lines(unwritten: list, train_op, tr, script: str, lines: list[str],
                    assigned: set = frozenset()) -> list[str]:
    """The TODO lines of the step (each also in `tr.todos`): the moving averages not written, and the train op's
    other assignments."""
    step_todos = _moving_average_todos(unwritten, script, lines, tr.todos)
    for variable, where in other_assignments(train_op, tr.updates, unwritten, script, lines, assigned):
        where = where or "the TF1 graph"
        tr.todos.append(f"an assignment to {variable} TF1's train op ran (not an optimizer update) from {where}")
        step_todos += mark_lines(INDENT, f"# {COMMENT} ",
                                 f"TF1's train op also assigned {variable} ({where}); not written")
    return step_todos


def _moving_average_todos(unwritten: list, script: str, lines: list[str], todos: list) -> list[str]:
    """A TODO line for each batch norm whose moving mean/variance TF1's train op updated in a form `moving` does not
    write (zero_debias): the TF2 step does not carry those updates, and says so."""
    out = []
    for op in unwritten:
        line = source_line(op, script, lines)
        where = f"TF1 line {line[0]}" if line else "the TF1 graph"
        todos.append(f"the moving-average update of {op.type} (moving mean/variance: zero_debias, "
                     f"updates_collections=None or another form) from {where}")
        out += mark_lines(INDENT, f"# {COMMENT} ", f"TF1's train op also updated the moving mean/variance of the "
                          f"batch norm at {where} (zero_debias, updates_collections=None or another form); not written")
    return out

