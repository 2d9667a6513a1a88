"""TF1's optimizer in the TF2 script: a Keras optimizer with TF1's settings, or, where Keras's update differs
from TF1's (Momentum, RMSProp, Adagrad), a Keras optimizer class written into the script with TF1's update;
TF1's exponential_decay on the global step as a Keras schedule on the optimizer's iteration count.
"""

from __future__ import annotations

import numpy as np

from tfcompare.core.graphs import ancestors
from tfcompare.core.optimizer_replay import tf1_learning_rate, tf1_optimizer
from tfcompare.core.schedules import rate_variable
from tfcompare.scripts.convert.ops import number
from tfcompare.scripts.convert.script_numbers import bound_once

__all__ = ["decay_schedule", "given_settings", "keras_optimizer", "optimizer_values", "script_constants",
           "stepped_variables"]

# TF1 optimizer constructors' positional parameters, as tfcompare's settings name them
_POSITIONAL = {
    "GradientDescentOptimizer": ("learning_rate",),
    "AdamOptimizer": ("learning_rate", "beta1", "beta2", "epsilon"),
    "MomentumOptimizer": ("learning_rate", "momentum"),
    "RMSPropOptimizer": ("learning_rate", "decay", "momentum", "epsilon"),
    "AdagradOptimizer": ("learning_rate", "initial_accumulator"),
    "AdadeltaOptimizer": ("learning_rate", "rho", "epsilon"),
}
_KEYWORDS = {"initial_accumulator_value": "initial_accumulator"}
_WRITTEN = {"model", "optimizer", "train_step", "Model", "tf", "np", "keras"}

_OPTIMIZER_CLASSES = {
    "momentum": '''
class Momentum(tf.keras.optimizers.Optimizer):
    """TF1's MomentumOptimizer as a Keras optimizer:
        accumulation = momentum * accumulation + gradient; variable -= lr * accumulation
    (Keras's SGD keeps -lr * accumulation as its velocity instead: the same steps while the
    learning rate stays, but not TF1's slot, which a TF1 checkpoint holds, and it differs once
    the learning rate changes)."""

    def __init__(self, learning_rate, momentum, use_nesterov=False, name="Momentum", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.momentum, self.use_nesterov = momentum, use_nesterov

    def build(self, variables):
        if self.built:
            return
        super().build(variables)
        self.accumulations = [self.add_variable_from_reference(v, "momentum") for v in variables]

    def get_config(self):
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.use_nesterov}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config, use_nesterov=config.get("nesterov", False))
        config.pop("nesterov", None)
        return super().from_config(config, custom_objects)

    def update_step(self, gradient, variable, learning_rate):
        lr = tf.cast(learning_rate, variable.dtype)
        accumulation = self.accumulations[self._get_variable_index(variable)]
        accumulation.assign(accumulation * self.momentum + gradient)
        if self.use_nesterov:
            variable.assign_sub(gradient * lr + accumulation * self.momentum * lr)
        else:
            variable.assign_sub(lr * accumulation)
''',
    "rmsprop": '''
class RMSProp(tf.keras.optimizers.Optimizer):
    """TF1's RMSPropOptimizer as a Keras optimizer: the mean-square slot starts at 1.0 (Keras's
    RMSprop starts it at 0), epsilon inside the root as in Keras; centered, the mean gradient
    (from 0) is subtracted inside the root too: rsqrt(ms - mg**2 + epsilon)."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, centered=False,
                 name="RMSProp", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.decay, self.momentum, self.epsilon, self.centered = decay, momentum, epsilon, centered

    def build(self, variables):
        if self.built:
            return
        super().build(variables)
        self.mean_squares = [self.add_variable_from_reference(v, "rms", initializer="ones")
                             for v in variables]
        self.moments = [self.add_variable_from_reference(v, "momentum") for v in variables]
        if self.centered:
            self.mean_gradients = [self.add_variable_from_reference(v, "mg") for v in variables]

    def get_config(self):
        return {**super().get_config(), "rho": self.decay, "momentum": self.momentum,
                "epsilon": self.epsilon, "centered": self.centered}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config, decay=config.get("rho", 0.9))
        config.pop("rho", None)
        return super().from_config(config, custom_objects)

    def update_step(self, gradient, variable, learning_rate):
        lr = tf.cast(learning_rate, variable.dtype)
        i = self._get_variable_index(variable)
        ms, moment = self.mean_squares[i], self.moments[i]
        ms.assign_add((tf.square(gradient) - ms) * (1 - self.decay))
        if self.centered:
            mg = self.mean_gradients[i]
            mg.assign_add((gradient - mg) * (1 - self.decay))
            root = tf.sqrt(ms - tf.square(mg) + self.epsilon)
            moment.assign(moment * self.momentum + gradient * lr / root)
        else:
            moment.assign(moment * self.momentum + lr * gradient * tf.math.rsqrt(ms + self.epsilon))
        variable.assign_sub(moment)
''',
    "adagrad": '''
class Adagrad(tf.keras.optimizers.Optimizer):
    """TF1's AdagradOptimizer as a Keras optimizer: the accumulator starts at
    initial_accumulator_value, no epsilon (Keras's Adagrad adds one)."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, name="Adagrad", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.initial_accumulator_value = initial_accumulator_value

    def build(self, variables):
        if self.built:
            return
        super().build(variables)
        init = tf.keras.initializers.Constant(self.initial_accumulator_value)
        self.accumulators = [self.add_variable_from_reference(v, "accumulator", initializer=init)
                             for v in variables]

    def get_config(self):
        return {**super().get_config(), "initial_accumulator_value": self.initial_accumulator_value}

    def update_step(self, gradient, variable, learning_rate):
        lr = tf.cast(learning_rate, variable.dtype)
        accumulator = self.accumulators[self._get_variable_index(variable)]
        accumulator.assign_add(tf.square(gradient))
        variable.assign_sub(lr * gradient * tf.math.rsqrt(accumulator))
''',
}


def decay_schedule(graph, train_op, decays: dict) -> tuple[str, set[str]] | None:
    """(the exponential_decay tensor that sets the optimizer's learning rate, the variables its train op steps) when
    the train op steps one (`minimize(global_step=...)`): TF1's decay is then a Keras schedule on the optimizer's
    iteration count, and the global step that count."""
    train_ancestors = {op.name for op in ancestors([train_op])}
    stepped = stepped_variables(graph, train_op)
    for name, decay in decays.items():
        if name.split(":")[0] in train_ancestors and None not in decay.values():
            return (name, stepped) if stepped else None
    return None


def stepped_variables(graph, train_op) -> set[str]:
    """The variables the train op adds to (`minimize(global_step=...)`, an `assign_add` in its group): op names."""
    train_ancestors = {op.name for op in ancestors([train_op])}
    return {op.inputs[0].op.name for op in graph.get_operations()
            if op.type in ("AssignAdd", "AssignAddVariableOp") and op.inputs
            and (op.name in train_ancestors or train_op in op.control_inputs)}


def script_constants(tree, module_dict: dict, before_line: int, call=None) -> dict[str, str]:
    """{setting: the script's own name for it}: where the script's one TF1 optimizer constructor takes a setting
    as a module-level name bound once, to a number, above `before_line` (`learning_rate = 0.01` ...
    `GradientDescentOptimizer(learning_rate)`), the rewrite's optimizer takes the same name. `before_line` is the
    script's first line that built graph ops: the rewrite's model and optimizer go where its graph began, so a
    name bound below it would be read before it is bound. keras_optimizer uses a name only where its value is the
    setting the graph holds. `call`: that constructor's call where the script makes it in a class it builds several
    times (`opt(LR, **kwargs)`)."""
    import ast

    if call is None:
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _constructor(n.func) in _POSITIONAL]
        if len(calls) != 1:
            return {}
        call = calls[0]
    given = given_settings(call)
    numbers = {name for name, n in bound_once(tree, module_dict, before_line).items() if _is_number(n.value)}
    return {setting: node.id for setting, node in given.items()
            if isinstance(node, ast.Name) and node.id in numbers and node.id not in _WRITTEN}


def given_settings(call) -> dict:
    """{TF1 setting: the expression a TF1 optimizer constructor's call gives it} (`AdamOptimizer(LR)`: learning_rate
    -> LR); a constructor the script passes around (`opt(LR)`): its first argument, the learning rate of every one."""
    given = dict(zip(_POSITIONAL.get(_constructor(call.func), ("learning_rate",)), call.args))
    given.update({_KEYWORDS.get(k.arg, k.arg): k.value for k in call.keywords if k.arg})
    return given


def _constructor(func) -> str:
    return getattr(func, "attr", None) or getattr(func, "id", "")


def _is_number(node) -> bool:
    import ast

    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def keras_optimizer(graph, sess, decays: dict, schedule, notes: list, todos: list,
                    line: str, own: dict | None = None, module_dict: dict | None = None,
                    train_op=None) -> tuple[str, str]:
    """(class source or "", the expression that makes the optimizer of `train_op`, or of the graph's first); `own`
    (script_constants) names the settings the script gave by name, written as those names where the graph holds
    their values."""
    side = tf1_optimizer(graph, sess, train_op)
    if side is None:
        todos.append("the optimizer (no TF1 Apply op tfcompare knows)")
        return "", "tf.keras.optimizers.SGD()  # TODO(tfcompare): the TF1 optimizer is not one tfcompare knows"
    s = side.settings

    def value(key: str) -> str:
        name = (own or {}).get(key)
        if name is not None and np.float32((module_dict or {}).get(name)) == np.float32(s[key]):
            return name
        return number(np.float32(s[key]))

    lr = value("learning_rate")
    if schedule is not None and decays[schedule[0]].get("kind") == "piecewise":
        decay = decays[schedule[0]]
        lr = (f"tf.keras.optimizers.schedules.PiecewiseConstantDecay(boundaries={decay['boundaries']}, "
              f"values=[{', '.join(number(np.float32(v)) for v in decay['values'])}])")
        notes.append("TF1's piecewise_constant on the global step became a Keras PiecewiseConstantDecay schedule on "
                     "the optimizer's iteration count (both start at 0 and count the steps; a step at a boundary "
                     "takes the value before it on both)")
    elif schedule is not None:
        decay = decays[schedule[0]]
        lr = (f"tf.keras.optimizers.schedules.ExponentialDecay({number(np.float32(decay['learning_rate']))}, "
              f"decay_steps={number(np.float32(decay['decay_steps']))}, "
              f"decay_rate={number(np.float32(decay['decay_rate']))}, staircase={decay['staircase']})")
        notes.append("TF1's exponential_decay on the global step became a Keras ExponentialDecay schedule on "
                     "the optimizer's iteration count (both start at 0 and count the steps)")
    if side.kind == "sgd":
        return "", f"tf.keras.optimizers.SGD(learning_rate={lr})"
    if side.kind == "adam":
        return "", (f"tf.keras.optimizers.Adam(learning_rate={lr}, beta_1={value('beta1')}, "
                    f"beta_2={value('beta2')}, epsilon={value('epsilon')})")
    if side.kind == "momentum":
        nesterov = ", use_nesterov=True" if s.get("nesterov") else ""
        return _OPTIMIZER_CLASSES["momentum"], f"Momentum(learning_rate={lr}, momentum={value('momentum')}{nesterov})"
    if side.kind == "rmsprop":
        centered = ", centered=True" if s.get("centered") else ""
        return _OPTIMIZER_CLASSES["rmsprop"], (f"RMSProp(learning_rate={lr}, decay={value('decay')}, "
                                               f"momentum={value('momentum')}, "
                                               f"epsilon={value('epsilon')}{centered})")
    if side.kind == "adadelta":  # Keras's Adadelta is TF1's formula, its slots from 0 as TF1's
        return "", (f"tf.keras.optimizers.Adadelta(learning_rate={lr}, rho={value('rho')}, "
                    f"epsilon={value('epsilon')})")
    return _OPTIMIZER_CLASSES["adagrad"], (f"Adagrad(learning_rate={lr}, initial_accumulator_value="
                                           f"{value('initial_accumulator')})")


def optimizer_values(module_dict: dict, schedule, tf, optimizer: str = "optimizer", trained=None) -> dict[str, str]:
    """What a fetch of the global step (the schedule's, or the one `trained`, (graph, train op), adds to) or of the
    decayed learning rate becomes: the Keras optimizer's (named `optimizer` in the rewrite) iteration count, which
    counts its steps from 0 as TF1's global step did, and its current learning rate."""
    decayed, stepped = schedule if schedule is not None else (None, stepped_variables(*trained) if trained else ())
    rate = _rate_variable(*trained) if trained and schedule is None else None
    out = {}
    for key, value in module_dict.items():
        if isinstance(value, tf.Variable) and value.op.name in stepped:
            out[key] = f"{optimizer}.iterations.numpy()"
        elif decayed is not None and isinstance(value, tf.Tensor) and value.name == decayed or \
                isinstance(value, tf.Variable) and value.op.name == rate:
            out[key] = f"{optimizer}.learning_rate.numpy()"
    return out


def _rate_variable(graph, train_op) -> str | None:
    """The variable TF1's optimizer reads its learning rate from (char-rnn's `self.lr = tf.Variable(0.0,
    trainable=False)`, set between runs by `sess.run(tf.assign(model.lr, ...))`): Keras's optimizer holds its
    learning rate in a variable too, which the rewrite assigns."""
    rate = tf1_learning_rate(graph, train_op)
    return None if rate is None else rate_variable(rate)
