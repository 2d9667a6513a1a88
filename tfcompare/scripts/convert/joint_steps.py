"""One step for train ops the script runs together (a GAN's `sess.run([train_D, train_G, ...], feed)`).

Each train op writes its own network and reads the other's; TF1's graph gives the run no order, so it means both
gradients from the run's starting weights (what `pair` compares, see `child.joint_runs`). The TF2 step written for
it is TensorFlow's own GAN step: both losses under two tapes, each gradient, each update, the losses returned in
the order TF1 made the train ops. A train op the script runs only together with the others gets no step of its own.
"""

from __future__ import annotations

import ast
import dataclasses

from tfcompare.scripts.convert.naming import INDENT

__all__ = ["Part", "runs_together", "joint_code"]


@dataclasses.dataclass
class Part:
    """One train op of the joint step: its loss method and arguments, the model attributes it trains, its
    optimizer's name in the script."""

    name: str  # the train op's global name
    loss: str
    args: list
    trains: list
    optimizer: str


def runs_together(tree: ast.Module, train: dict, apart) -> tuple[list[list[str]], set[str]]:
    """(each set of train ops one `Session.run` fetches together, as global names in the order TF1 made them,
    where `apart(ops)` says TF1's graph lets them be one step; the names also used otherwise: alone in a run,
    `train_op.run()`, passed anywhere). `train`: global name -> train op."""
    together, inside = [], []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run"
                and node.args and isinstance(node.args[0], (ast.List, ast.Tuple))):
            continue
        names = [e for e in node.args[0].elts if isinstance(e, ast.Name) and e.id in train]
        ops = list(dict.fromkeys(e.id for e in names))
        if len({id(train[n]) for n in ops}) > 1 and apart([train[n] for n in ops]):
            combo = sorted(ops, key=lambda n: train[n]._id)
            if combo not in together:
                together.append(combo)
            inside += names
    loads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in train]
    otherwise = {n.id for n in loads if all(n is not m for m in inside)}
    return together, otherwise


def joint_code(name: str, parts: list[Part], args: list[str], signature: str) -> list[str]:
    """The lines of the joint step `name(args)`: returns each part's loss."""
    tapes = ", ".join(f"tf.GradientTape() as {p.name}_tape" for p in parts)
    out = [f"@tf.function({signature})" if signature else "@tf.function", f"def {name}({', '.join(args)}):",
           f"{INDENT}# TF1 ran these train ops in one Session.run: every gradient from the same weights, then every "
           "update", f"{INDENT}with {tapes}:"]
    out += [f"{INDENT * 2}{p.name}_loss = model.{p.loss}({', '.join(p.args)})" for p in parts]
    for p in parts:
        out += [f"{INDENT}{p.name}_variables = [{', '.join(f'model.{a}' for a in p.trains)}]",
                f"{INDENT}{p.name}_gradients = {p.name}_tape.gradient({p.name}_loss, {p.name}_variables)"]
    out += [f"{INDENT}{p.optimizer}.apply_gradients(zip({p.name}_gradients, {p.name}_variables))" for p in parts]
    return out + [f"{INDENT}return {', '.join(f'{p.name}_loss' for p in parts)}"]


def joint_steps(together: list[list[str]], parts: dict, train: dict, by_argument: dict, placeholder_global: dict,
                loss_names: dict, taken: set) -> tuple[dict, list[str], set]:
    """For each set of train ops run together whose every op has a `Part` (`parts`: id of the train op -> Part):
    (the plan's `joint`: frozenset of global names -> (step, its placeholder globals, each op's loss globals), the
    steps' lines, the ids of the train ops joined)."""
    from tfcompare.scripts.convert.naming import identifier
    from tfcompare.scripts.convert.train_step import input_signature

    plan, code, joined = {}, [], set()
    for combo in together:
        ops = [train[n] for n in combo]
        if any(id(op) not in parts for op in ops):
            continue
        mine = [parts[id(op)] for op in ops]
        args = list(dict.fromkeys(a for p in mine for a in p.args))
        if any(a not in by_argument for a in args):
            continue
        args.sort(key=lambda a: by_argument[a].op._id)  # the order TF1 made its placeholders, as a one-op step
        name = identifier("train_step" if len(together) == 1 else "_".join(p.name for p in mine) + "_step", taken)
        code += ["", "", *joint_code(name, mine, args, input_signature([by_argument[a] for a in args]))]
        plan[frozenset(combo)] = (name, [placeholder_global[a] for a in args], [loss_names[id(op)] for op in ops])
        joined |= {id(op) for op in ops}
    return plan, code, joined
