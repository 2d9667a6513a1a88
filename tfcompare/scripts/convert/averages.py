"""An `ExponentialMovingAverage` of the trained weights that TF1's train op kept (the CIFAR-10 tutorial's
`ema.apply(tf.trainable_variables())` under `control_dependencies([apply_gradient_op])`, grouped with it), written
as TF2's own `tf.train.ExponentialMovingAverage`: the same update (`shadow -= (1 - decay) * (shadow - weight)`,
`decay = min(decay, (1 + n) / (10 + n))` with `num_updates`), the same shadow names (`w1/ExponentialMovingAverage`),
created from the initial weights before the first step as TF1's were, applied in the step after `apply_gradients`;
`ema.average(v)` where the script reads an average (an evaluation with the averaged weights).

Averages of tensors (batch moments) are not these: `moving` writes them as the assignments they are.
"""

from __future__ import annotations

import ast
import dataclasses

from tfcompare.core.graphs import ancestors
from tfcompare.scripts.convert.naming import INDENT
from tfcompare.scripts.convert.written_line import number

__all__ = ["Averages", "find", "setup_lines", "apply_line", "shadow_map", "shadows_list"]

_MODULE = "moving_averages.py"


@dataclasses.dataclass
class Averages:
    name: str  # the script's global for the ExponentialMovingAverage ("ema")
    constructor: str  # its TF2 constructor, as code ("tf.train.ExponentialMovingAverage(DECAY, num_updates=...)")
    applied: list  # the TF1 variables the train op averages (tf.Variable), in the order TF1 applied them
    shadows: dict  # shadow variable op name -> op name of the variable it averages
    groups: set  # the script's globals for ops that run the train op and the averages' update (`train_op`)
    line: int = 0  # the script's line of the constructor


def _made_here(op) -> bool:
    return any(f.filename.endswith(_MODULE) for f in (op.traceback or []))


def _other_write(op, own: set) -> bool:
    """An assignment that is neither the optimizer's (`own`: the train op's ancestry) nor the average's."""
    return op.type.startswith(("Assign", "ScatterUpdate", "ResourceScatter")) and not _made_here(op) and \
        op not in own


def find(tree, module_dict: dict, train_op, trained: list, optimizer_name: str, tf,
         before_line: int = 0) -> Averages | None:
    """The one ExponentialMovingAverage of trained variables the script binds at module level and runs with
    `train_op` (a group of both, or its update under the train op's control dependency), or None: none, several,
    or one whose constructor is not written as `(decay[, num_updates][, zero_debias=...][, name=...])` with
    `num_updates` the global step the train op increments. `before_line`: the first training step's line (a
    later graph may bind the name again)."""
    from tfcompare.scripts.convert.optimizers import stepped_variables

    found = [(k, v) for k, v in module_dict.items()
             if isinstance(v, tf.compat.v1.train.ExponentialMovingAverage) and k.isidentifier()]
    if len(found) != 1:
        return None
    name, ema = found[0]
    trained_names = {v.op.name for v in trained}
    averaged = [(ref.deref(), shadow) for ref, shadow in ema._averages.items()]
    if not averaged or any(not isinstance(v, tf.Variable) or v.op.name not in trained_names for v, _ in averaged):
        return None  # an average of a tensor (batch moments) or of a variable the optimizer does not train
    graph = train_op.graph
    updates = [op for op in graph.get_operations() if _made_here(op) and op.type == "NoOp"]
    groups, own = set(), set(ancestors([train_op]))
    for key, value in module_dict.items():
        if isinstance(value, tf.Operation) and value is not train_op and key.isidentifier():
            inside = set(ancestors([value]))
            if train_op in inside and any(u in inside for u in updates):
                if any(_other_write(op, own) for op in inside):
                    return None  # the group also assigns something else: a TODO, never dropped
                groups.add(key)
    if not groups:
        return None
    call = _constructor(tree, name, before_line)
    if call is None:
        return None
    stepped = stepped_variables(graph, train_op)
    args = _arguments(call, module_dict, ema, stepped, optimizer_name, tf)
    if args is None:
        return None
    shadows = {shadow.op.name: v.op.name for v, shadow in averaged}
    applied = [v for v, _ in sorted(averaged, key=lambda item: item[1].op._id)]
    return Averages(name, f"tf.train.ExponentialMovingAverage({', '.join(args)})", applied, shadows, groups,
                    call.lineno)


def _constructor(tree, name: str, before_line: int = 0):
    """The script's `name = tf.train.ExponentialMovingAverage(...)` call, where it is bound once above
    `before_line` (0: anywhere)."""
    calls = [n.value for n in ast.walk(tree) if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name and isinstance(n.value, ast.Call)
             and (not before_line or n.lineno < before_line)]
    if len(calls) != 1:
        return None
    func = calls[0].func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return calls[0] if called == "ExponentialMovingAverage" else None


def _arguments(call, module_dict: dict, ema, stepped: set, optimizer_name: str, tf) -> list[str] | None:
    given = dict(zip(("decay", "num_updates", "zero_debias", "name"), call.args))
    given.update({k.arg: k.value for k in call.keywords if k.arg})
    if len(call.args) > 4 or set(given) - {"decay", "num_updates", "zero_debias", "name"} or "decay" not in given:
        return None
    decay = given["decay"]
    out = [_number_text(decay, module_dict, ema._decay)]
    if "num_updates" in given:
        value = module_dict.get(given["num_updates"].id) if isinstance(given["num_updates"], ast.Name) else None
        if not isinstance(value, tf.Variable) or value.op.name not in stepped:
            return None  # a step count other than the global step the train op increments
        out.append(f"num_updates={optimizer_name}.iterations")
    for key in ("zero_debias", "name"):
        if key in given:
            try:
                out.append(f"{key}={ast.literal_eval(given[key])!r}")
            except ValueError:
                return None
    return out


def _number_text(node, module_dict: dict, value) -> str:
    """The decay as the script wrote it where that is a number or a module-level name bound to one; else its value."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return ast.unparse(node)
    if isinstance(node, ast.Name) and isinstance(module_dict.get(node.id), (int, float)) and \
            module_dict[node.id] == value:
        return node.id
    return number(value)


def setup_lines(averages: Averages, variables: dict, trained: list, where: str) -> list[str]:
    """The module-level lines after the optimizer: the object, and its shadows made from the initial weights (a
    first `apply` copies each weight and moves it nowhere), as TF1 initialized them."""
    return [f"# {where}: the weights' moving averages, kept by the train step",
            f"{averages.name} = {averages.constructor}",
            f"{averages.name}.apply({_listed(averages, variables, trained, 'model.trainable_variables')})"
            "  # the averages start at the initial weights, as TF1's did"]


def _listed(averages: Averages, variables: dict, trained: list, every: str) -> str:
    """`every` where TF1 averaged every variable the step trains, else the list of the model's attributes."""
    if {v.op.name for v in averages.applied} == {v.op.name for v in trained}:
        return every
    return "[" + ", ".join(f"model.{variables[v.op.name]}" for v in averages.applied) + "]"


def apply_line(averages: Averages, variables: dict, trained: list) -> str:
    """The step's line after `apply_gradients` (`{variables}`: the list the step applied its gradients to)."""
    return (f"{INDENT}{averages.name}.apply({_listed(averages, variables, trained, '{variables}')})"
            "  # after the update, as TF1's control dependency ran it")


def shadows_list(averages: Averages | None, variables: dict, trained: list) -> str:
    """The shadows as a list, as code: what the rewrite's checkpoints save beside the model and the optimizer (TF1's
    Saver saved them with every other variable; the model does not track them). "" where there are none."""
    if averages is None:
        return ""
    return f"[{averages.name}.average(v) for v in {_listed(averages, variables, trained, 'model.trainable_variables')}]"


def shadow_map(averages: Averages | None, variables: dict) -> dict[str, str]:
    """{a shadow's TF1 name (its key in a Saver checkpoint): the model's attribute path of the weight it averages}."""
    if averages is None:
        return {}
    return {shadow: variables[name] for shadow, name in averages.shadows.items() if name in variables}
