"""Learning-rate schedules: named as each side set them, so a finding can say which schedule differs.

A Keras optimizer's config holds a schedule as a serialised dict (`{"class_name": "ExponentialDecay", "config":
{...}}`) where a constant learning rate is a float; TF1's `tf.train.exponential_decay` and its kin are ops under a
name scope (`ExponentialDecay/...`) that feed the optimizer's apply op. A schedule is never a number to compare:
the learning rate each step actually used is (recorded on each side), and the schedule is named beside it.
"""

from __future__ import annotations

from typing import Any

from tfcompare.core.graphs import static_value

__all__ = ["SET_BY_SCRIPT", "is_schedule", "keras_text", "rate_variable", "tf1_text", "setting_text"]

# a TF1 learning rate read from a variable (`tf.Variable(0.0, trainable=False)`) the script assigns between runs: no
# schedule in the graph, as a Keras optimizer's learning-rate variable the TF2 script assigns is none
SET_BY_SCRIPT = "a variable the script sets between runs"

# TF1's schedule functions, by the name scope their ops are made under (tf.compat.v1.train.*)
_TF1_SCOPES = {"ExponentialDecay": "exponential_decay", "PiecewiseConstant": "piecewise_constant",
               "PolynomialDecay": "polynomial_decay", "CosineDecay": "cosine_decay",
               "CosineDecayRestarts": "cosine_decay_restarts", "InverseTimeDecay": "inverse_time_decay",
               "NaturalExpDecay": "natural_exp_decay", "LinearCosineDecay": "linear_cosine_decay",
               "NoisyLinearCosineDecay": "noisy_linear_cosine_decay"}
_STAIRCASE = ("ExponentialDecay", "InverseTimeDecay", "NaturalExpDecay")  # a Floor op in the scope: staircase
# the constants each schedule's ops are made from (TensorFlow's learning_rate_schedule, as compat.v1 builds it);
# a name not found is left out
_TF1_CONSTANTS = {"ExponentialDecay": {"Cast/x": "decay_steps", "Cast_1/x": "decay_rate"},
                  "PolynomialDecay": {"Cast_3/x": "decay_steps", "Cast/x": "end_learning_rate", "Cast_1/x": "power"},
                  "CosineDecay": {"Cast/x": "decay_steps"}}


def is_schedule(value: Any) -> bool:
    """A setting that is not a number (nor a flag such as nesterov): a schedule's config dict, or its object."""
    return not isinstance(value, (int, float))  # bool is an int


def _value(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def keras_text(value: Any) -> str:
    """A Keras schedule (its serialised dict or the object) as `ExponentialDecay(initial_learning_rate=0.5, ...)`."""
    if isinstance(value, dict) and "class_name" in value:
        name, config = value["class_name"], value.get("config") or {}
    elif hasattr(value, "get_config"):
        name, config = type(value).__name__, value.get_config()
    else:
        return str(value)
    shown = ", ".join(f"{k}={_value(v)}" for k, v in config.items() if k != "name")
    return f"{name}({shown})"


def setting_text(value: Any) -> str:
    """A learning-rate setting for a message: the number, or the schedule named."""
    return _value(value) if not is_schedule(value) else keras_text(value)


def rate_variable(tensor) -> str | None:
    """The name of the variable a TF1 learning-rate tensor is a read of (char-rnn's `self.lr = tf.Variable(0.0,
    trainable=False)`, assigned between runs), or None."""
    op = tensor.op
    if op.type in ("Identity", "ReadVariableOp") and op.inputs and op.inputs[0].op.type in ("VariableV2", "VarHandleOp"):
        return op.inputs[0].op.name
    return None


def tf1_text(tensor) -> str:
    """The TF1 learning-rate tensor an apply op is fed, named: `tf.train.exponential_decay(initial_learning_rate=0.5,
    staircase=True)` for a known schedule's scope; "constant" for a constant; else the op that makes it."""
    if static_value(tensor) is not None:
        return "constant"
    variable = rate_variable(tensor)
    if variable is not None:
        return f"{SET_BY_SCRIPT} ({variable})"
    scope = tensor.name.split("/")[0].split(":")[0]
    if scope not in _TF1_SCOPES:
        return f"computed by {tensor.op.type} op {tensor.op.name}"
    ops = [op for op in tensor.graph.get_operations() if op.name.startswith(scope + "/")]
    settings = []
    initial = next((op for op in ops if op.name == f"{scope}/initial_learning_rate" and op.type == "Const"), None)
    if initial is not None:
        settings.append(f"initial_learning_rate={float(static_value(initial.outputs[0])):g}")
    consts = {op.name.removeprefix(scope + "/"): op for op in ops if op.type == "Const"}
    for name, setting in _TF1_CONSTANTS.get(scope, {}).items():
        if name in consts:
            settings.append(f"{setting}={float(static_value(consts[name].outputs[0])):.6g}")
    if scope in _STAIRCASE:
        settings.append(f"staircase={any(op.type == 'Floor' for op in ops)}")
    return f"tf.train.{_TF1_SCOPES[scope]}({', '.join(settings)})"
