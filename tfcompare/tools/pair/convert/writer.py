"""Write the TF2 script: the TF1 graph as a `tf.Module`, a Keras optimizer with TF1's settings (TF1's update
written out where Keras's formula differs), a `@tf.function` train step, and the script's own code around them.

Called in the child that ran the TF1 script, at its first training step, with the graph, the session and the
script's globals at that moment.
"""

from __future__ import annotations

import dataclasses
import inspect
import keyword
import re
import types
from pathlib import Path

import numpy as np

from tfcompare.core.graphs import ancestors
from tfcompare.core.optimizer_replay import tf1_optimizer
from tfcompare.tools.pair import initialisation
from tfcompare.tools.pair.convert import keras_layers
from tfcompare.tools.pair.convert import source as carried
from tfcompare.tools.pair.convert import summaries as summary_ops
from tfcompare.tools.pair.convert.moving import moving_average_updates, other_assignments
from tfcompare.tools.pair.convert.ops import Translator, number, source_line
from tfcompare.tools.pair.loaders import _DataSet

__all__ = ["Written", "write", "LSTM_HELPER", "GRU_HELPER"]

_INDENT = "    "


@dataclasses.dataclass
class Written:
    text: str
    todos: list[str]
    notes: list[str]


def _identifier(text: str, taken: set) -> str:
    name = text if text.isidentifier() else re.sub(r"\W", "_", text).strip("_") or "v"  # the script's `y_` stays
    if name[0].isdigit() or keyword.iskeyword(name):
        name = f"v_{name}"
    base, n = name, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name


def _is_graph_value(value, tf) -> bool:
    if isinstance(value, (tf.Tensor, tf.Operation, tf.Variable, tf.compat.v1.train.Optimizer)):
        return True
    if isinstance(value, tf.compat.v1.Session) or type(value).__name__ in ("Session", "InteractiveSession"):
        return True
    if isinstance(value, dict):
        return any(_is_graph_value(v, tf) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_is_graph_value(v, tf) for v in value[:50])
    module = type(value).__module__ or ""
    return module.startswith(("tensorflow.python", "tfcompare.core.legacy")) and not isinstance(value, types.ModuleType)


def _fetched_names(tree) -> set:
    """Global names the script passes to `Session.run` or calls `.eval()` on."""
    import ast

    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "run" and node.args:
                fetch = node.args[0]
                items = fetch.elts if isinstance(fetch, (ast.List, ast.Tuple)) else [fetch]
                names |= {i.id for i in items if isinstance(i, ast.Name)}
            elif node.func.attr == "eval" and isinstance(node.func.value, ast.Name):
                names.add(node.func.value.id)
    return names


def _initializer(v, sess, attr: str, tr: Translator) -> str:
    shape = list(v.shape.as_list())
    dtype = v.dtype.base_dtype
    dt = "" if dtype.name == "float32" else f", dtype=tf.{dtype.name}"
    scheme = initialisation.tf1_scheme(v, sess)
    kind = (scheme or {}).get("scheme")
    if kind in ("normal", "truncated_normal"):
        fn = "tf.random.normal" if kind == "normal" else "tf.random.truncated_normal"
        mean = f", mean={number(np.float32(scheme['mean']))}" if scheme["mean"] else ""
        return f"{fn}({shape}{mean}, stddev={number(np.float32(scheme['stddev']))}{dt})"
    if kind == "uniform":
        low, high = (number(np.float32(scheme[k])) for k in ("low", "high"))
        return f"tf.random.uniform({shape}, {low}, {high}{dt})"
    if kind == "constant":
        value = float(scheme["value"])
        if value == 0:
            return f"tf.zeros({shape}{dt})"
        if value == 1:
            return f"tf.ones({shape}{dt})"
        return f"tf.fill({shape}, tf.constant({number(np.asarray(value, dtype.as_numpy_dtype))}{dt}))"
    line = source_line(v.op, tr.script, tr.source)
    where = f"TF1 line {line[0]}" if line else "the TF1 graph"
    tr.todos.append(f"the initializer of {attr} ({v.initial_value.op.type}) from {where}")
    return f"tf.zeros({shape}{dt})  # TODO(tfcompare): initializer {v.initial_value.op.type} from {where}"


_OPTIMIZER_CLASSES = {
    "momentum": '''
class Momentum(tf.keras.optimizers.Optimizer):
    """TF1's MomentumOptimizer as a Keras optimizer: accumulation = momentum * accumulation + gradient;
    variable -= lr * accumulation (Keras's SGD folds the learning rate into the velocity, which differs once
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
    """TF1's RMSPropOptimizer as a Keras optimizer: the mean-square slot starts at 1.0 and epsilon is added
    inside the root (Keras's RMSprop starts it at 0 and adds epsilon outside the root); centered, the mean
    gradient (from 0) is subtracted inside the root too: rsqrt(ms - mg**2 + epsilon)."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, centered=False, name="RMSProp",
                 **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.decay, self.momentum, self.epsilon, self.centered = decay, momentum, epsilon, centered

    def build(self, variables):
        if self.built:
            return
        super().build(variables)
        self.mean_squares = [self.add_variable_from_reference(v, "rms", initializer="ones") for v in variables]
        self.moments = [self.add_variable_from_reference(v, "momentum") for v in variables]
        if self.centered:
            self.mean_gradients = [self.add_variable_from_reference(v, "mg") for v in variables]

    def get_config(self):
        return {**super().get_config(), "rho": self.decay, "momentum": self.momentum, "epsilon": self.epsilon,
                "centered": self.centered}

    def update_step(self, gradient, variable, learning_rate):
        lr = tf.cast(learning_rate, variable.dtype)
        i = self._get_variable_index(variable)
        ms, moment = self.mean_squares[i], self.moments[i]
        ms.assign_add((tf.square(gradient) - ms) * (1 - self.decay))
        if self.centered:
            mg = self.mean_gradients[i]
            mg.assign_add((gradient - mg) * (1 - self.decay))
            moment.assign(moment * self.momentum + gradient * lr / tf.sqrt(ms - tf.square(mg) + self.epsilon))
        else:
            moment.assign(moment * self.momentum + lr * gradient * tf.math.rsqrt(ms + self.epsilon))
        variable.assign_sub(moment)
''',
    "adagrad": '''
class Adagrad(tf.keras.optimizers.Optimizer):
    """TF1's AdagradOptimizer as a Keras optimizer: the accumulator starts at initial_accumulator_value, no epsilon
    (Keras's Adagrad adds one)."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, name="Adagrad", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.initial_accumulator_value = initial_accumulator_value

    def build(self, variables):
        if self.built:
            return
        super().build(variables)
        init = tf.keras.initializers.Constant(self.initial_accumulator_value)
        self.accumulators = [self.add_variable_from_reference(v, "accumulator", initializer=init) for v in variables]

    def get_config(self):
        return {**super().get_config(), "initial_accumulator_value": self.initial_accumulator_value}

    def update_step(self, gradient, variable, learning_rate):
        lr = tf.cast(learning_rate, variable.dtype)
        accumulator = self.accumulators[self._get_variable_index(variable)]
        accumulator.assign_add(tf.square(gradient))
        variable.assign_sub(lr * gradient * tf.math.rsqrt(accumulator))
''',
}

LSTM_HELPER = '''
def basic_lstm(inputs, kernel, bias, forget_bias=1.0):
    """TF1's BasicLSTMCell unrolled over `inputs` as static_rnn did, from a zero state: gates i, j, f, o =
    split([x, h] @ kernel + bias, 4); c = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j); h = tanh(c) *
    sigmoid(o). Returns (outputs, (c, h))."""
    c = h = tf.zeros([tf.shape(inputs[0])[0], kernel.shape[1] // 4], dtype=kernel.dtype)
    outputs = []
    for x in inputs:
        i, j, f, o = tf.split(tf.nn.bias_add(tf.matmul(tf.concat([x, h], 1), kernel), bias), 4, axis=1)
        c = c * tf.sigmoid(f + forget_bias) + tf.sigmoid(i) * tf.tanh(j)
        h = tf.tanh(c) * tf.sigmoid(o)
        outputs.append(h)
    return outputs, (c, h)
'''

GRU_HELPER = '''
def gru(inputs, gate_kernel, gate_bias, candidate_kernel, candidate_bias):
    """TF1's GRUCell unrolled over `inputs` as static_rnn / dynamic_rnn did, from a zero state: r, u =
    split(sigmoid([x, h] @ gate_kernel + gate_bias), 2); c = tanh([x, r * h] @ candidate_kernel + candidate_bias);
    h = u * h + (1 - u) * c. Returns (outputs, h)."""
    h = tf.zeros([tf.shape(inputs[0])[0], candidate_kernel.shape[1]], dtype=candidate_kernel.dtype)
    outputs = []
    for x in inputs:
        gates = tf.sigmoid(tf.nn.bias_add(tf.matmul(tf.concat([x, h], 1), gate_kernel), gate_bias))
        r, u = tf.split(gates, 2, axis=1)
        c = tf.tanh(tf.nn.bias_add(tf.matmul(tf.concat([x, r * h], 1), candidate_kernel), candidate_bias))
        h = u * h + (1 - u) * c
        outputs.append(h)
    return outputs, h
'''
_HELPER_SOURCE = {"lstm": LSTM_HELPER, "gru": GRU_HELPER}

# written into the TF2 script (which imports no tfcompare): the DataSet pair's loader stub hands TF1, then the
# loader on tf.keras.datasets.mnist
_LOADER = inspect.getsource(_DataSet) + '''

def read_data_sets(train_dir=None, fake_data=False, one_hot=False, dtype=None, reshape=True, validation_size=0,
                   seed=None, source_url=None):
    """TF1's tensorflow.examples.tutorials.mnist.input_data.read_data_sets (gone from TF 2), on
    tf.keras.datasets.mnist: no validation split is held out and batches are not shuffled."""
    (x, y), (test_x, test_y) = tf.keras.datasets.mnist.load_data()
    test = _DataSet(test_x, test_y, one_hot, reshape)
    return types.SimpleNamespace(train=_DataSet(x, y, one_hot, reshape), test=test, validation=test)
'''


def _schedule(graph, train_op, decays: dict) -> tuple[str, set[str]] | None:
    """(the exponential_decay tensor that sets the optimizer's learning rate, the variables its train op steps) when
    the train op steps one (`minimize(global_step=...)`): TF1's decay is then a Keras schedule on the optimizer's
    iteration count, and the global step that count."""
    train_ancestors = {op.name for op in ancestors([train_op])}
    stepped = {op.inputs[0].op.name for op in graph.get_operations()
               if op.type in ("AssignAdd", "AssignAddVariableOp") and op.inputs
               and (op.name in train_ancestors or train_op in op.control_inputs)}
    for name, decay in decays.items():
        if name.split(":")[0] in train_ancestors and None not in decay.values():
            return (name, stepped) if stepped else None
    return None


def _optimizer(graph, sess, decays: dict, schedule, notes: list, todos: list, line: str) -> tuple[str, str]:
    """(class source or "", the expression that makes the optimizer)."""
    side = tf1_optimizer(graph, sess)
    if side is None:
        todos.append("the optimizer (no TF1 Apply op tfcompare knows)")
        return "", "tf.keras.optimizers.SGD()  # TODO(tfcompare): the TF1 optimizer is not one tfcompare knows"
    s = side.settings
    lr = number(np.float32(s["learning_rate"]))
    if schedule is not None:
        decay = decays[schedule[0]]
        lr = (f"tf.keras.optimizers.schedules.ExponentialDecay({number(np.float32(decay['learning_rate']))}, "
              f"decay_steps={number(np.float32(decay['decay_steps']))}, "
              f"decay_rate={number(np.float32(decay['decay_rate']))}, staircase={decay['staircase']})")
        notes.append("TF1's exponential_decay on the global step became a Keras ExponentialDecay schedule on "
                     "the optimizer's iteration count (both start at 0 and count the steps)")
    if side.kind == "sgd":
        return "", f"tf.keras.optimizers.SGD(learning_rate={lr})"
    if side.kind == "adam":
        return "", (f"tf.keras.optimizers.Adam(learning_rate={lr}, beta_1={number(np.float32(s['beta1']))}, "
                    f"beta_2={number(np.float32(s['beta2']))}, epsilon={number(np.float32(s['epsilon']))})")
    if side.kind == "momentum":
        nesterov = ", use_nesterov=True" if s.get("nesterov") else ""
        return _OPTIMIZER_CLASSES["momentum"], \
            f"Momentum(learning_rate={lr}, momentum={number(np.float32(s['momentum']))}{nesterov})"
    if side.kind == "rmsprop":
        centered = ", centered=True" if s.get("centered") else ""
        return _OPTIMIZER_CLASSES["rmsprop"], (f"RMSProp(learning_rate={lr}, decay={number(np.float32(s['decay']))}, "
                                               f"momentum={number(np.float32(s['momentum']))}, "
                                               f"epsilon={number(np.float32(s['epsilon']))}{centered})")
    return _OPTIMIZER_CLASSES["adagrad"], (f"Adagrad(learning_rate={lr}, initial_accumulator_value="
                                           f"{number(np.float32(s['initial_accumulator']))})")


def _optimizer_values(module_dict: dict, schedule, tf) -> dict[str, str]:
    """What a fetch of the global step or of the decayed learning rate becomes under a schedule: the Keras
    optimizer's iteration count and current learning rate."""
    if schedule is None:
        return {}
    decayed, stepped = schedule
    out = {}
    for key, value in module_dict.items():
        if isinstance(value, tf.Variable) and value.op.name in stepped:
            out[key] = "optimizer.iterations.numpy()"
        elif isinstance(value, tf.Tensor) and value.name == decayed:
            out[key] = "optimizer.learning_rate.numpy()"
    return out


_MODULE_DOC = ["The model is a tf.Module with the TF1 variables (same shapes and initializers); its methods are the",
               "TF1 forward pass and loss, op by op, each line naming the TF1 line it came from. Training runs in a"]
_KERAS_DOC = ["The model is a Keras Model: Keras layers where TF1's ops are exactly one (same weights, shapes and",
              "initializers), op by op elsewhere, each line naming the TF1 line it came from. Training runs in a"]


def _wrapped(head: str, args: list[str], comment: str) -> list[str]:
    """`head(args)  # comment`; when long, the comment on a line of its own above and the arguments packed."""
    one = f"{_INDENT * 2}{head}({', '.join(args)})"
    if len(one) + len(comment) + 4 <= 120:
        return [one + (f"  # {comment}" if comment else "")]
    out = [f"{_INDENT * 2}# {comment}"] if comment else []
    if len(one) <= 116:
        return out + [one]
    out, line = out + [f"{_INDENT * 2}{head}("], ""
    for i, arg in enumerate(args):
        piece = arg + (")" if i == len(args) - 1 else ",")
        if line and len(_INDENT * 3 + line + " " + piece) > 116:
            out.append(_INDENT * 3 + line)
            line = ""
        line = f"{line} {piece}" if line else piece
    return out + [_INDENT * 3 + line]


def _keras_init_lines(layers: list, loose: dict, tf1_names: dict, sess, tr: Translator) -> list[str]:
    """The Keras model's __init__ body: the weights no layer owns (add_weight with TF1's initializer), then each
    layer in the order of the forward pass, built for its input shape so its weights exist before the first step."""
    out = []
    for attr, v in loose.items():
        line = source_line(v.op, tr.script, tr.source)
        comment = (f"TF1 line {line[0]}: {line[1][:60]}" if line else "") + "; not in a Keras layer"
        init = keras_layers.keras_initializer(v, sess)
        if init is None:
            init = '"zeros"'
            comment += f"; TODO(tfcompare): initializer {v.initial_value.op.type}"
            tr.todos.append(f"the initializer of {attr} ({v.initial_value.op.type}) from "
                            f"{f'TF1 line {line[0]}' if line else 'the TF1 graph'}")
        dtype = v.dtype.base_dtype.name
        args = [f"shape={tuple(v.shape.as_list())}", f"initializer={init}",
                *([] if dtype == "float32" else [f'dtype="{dtype}"']), f'name="{attr}"']
        out += _wrapped(f"self.{attr} = self.add_weight", args, comment.lstrip("; "))
    for layer in sorted(layers, key=lambda x: x.op._id):
        first, line = (source_line(op, tr.script, tr.source) for op in (layer.first or layer.op, layer.op))
        comment = ""
        if first and line:
            span = f" {first[0]}" if first[0] == line[0] else f"s {first[0]}-{line[0]}"
            comment = f"TF1 line{span}: {first[1] if len(first[1]) <= 60 else first[1][:57] + '...'}"
        if layer.weights:
            comment += "; TF1's " + ", ".join(tf1_names[v.op.name] for v in layer.weights.values())
        for role, v in layer.unread:
            comment += f"; TODO(tfcompare): {role} initializer {v.initial_value.op.type}"
            tr.todos.append(f"the initializer of {layer.attr}.{role} ({v.initial_value.op.type}) from "
                            f"{f'TF1 line {line[0]}' if line else 'the TF1 graph'}")
        out += _wrapped(f"self.{layer.attr} = {layer.cls}", layer.arguments(), comment.lstrip("; "))
        if layer.build:
            out.append(f"{_INDENT * 2}self.{layer.attr}.build({layer.build})")
    return out


def _variable_line(attr: str, v, sess, tr: Translator, trainable: bool = True) -> str:
    """`self.attr = tf.Variable(TF1's initializer, name=...)`, naming the TF1 line that made it."""
    line = source_line(v.op, tr.script, tr.source)
    comment = f"  # TF1 line {line[0]}: {line[1][:60]}" if line else ""
    init = _initializer(v, sess, attr, tr)
    flag = "" if trainable else ", trainable=False"
    if "#" in init:
        return (f"{_INDENT * 2}self.{attr} = tf.Variable({init.split('  #')[0]}{flag}, name={attr!r})"
                f"  #{init.split('  #', 1)[1]}")
    return f"{_INDENT * 2}self.{attr} = tf.Variable({init}{flag}, name={attr!r}){comment}"


def _moving_average_todos(unwritten: list, script: str, lines: list[str], todos: list) -> list[str]:
    """A TODO line for each batch norm whose moving mean/variance TF1's train op updated in a form `moving` does not
    write (zero_debias): the TF2 step does not carry those updates, and says so."""
    out = []
    for op in unwritten:
        line = source_line(op, script, lines)
        where = f"TF1 line {line[0]}" if line else "the TF1 graph"
        todos.append(f"the moving-average update of {op.type} (moving mean/variance: zero_debias, "
                     f"updates_collections=None or another form) from {where}")
        out.append(f"{_INDENT}# TODO(tfcompare): TF1's train op also updated the moving mean/variance of the "
                   f"batch norm at {where} (zero_debias, updates_collections=None or another form); not written")
    return out


def _summary_methods(fetched: dict, tr: Translator, loss, methods: list, taken: set, code: list, feed_tensors: list,
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
            method = _identifier(f"summary_{s.tag}", taken)
            reach = {op.name for op in ancestors([s.value])}
            args = [arguments[t.op.name] for t in feed_tensors if t.op.name in reach]
            code.append(f"{_INDENT}def {method}(self{''.join(', ' + a for a in args)}):")
            code.extend(line.text(_INDENT * 2) for line in body)
            code.extend([f"{_INDENT * 2}return {expr}", ""])
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


def write(script: str, module_dict: dict, sess, found: dict, groups: dict, decays: dict, feed: dict,
          first_step_line: int, style: str = "module", late: set | None = None) -> Written:
    """The TF2 script for the TF1 `script`, stopped at its first training step; `style` "module" (a tf.Module)
    or "keras" (a keras.Model of Keras layers where a group of TF1 ops is exactly one)."""
    import ast

    import tensorflow as tf

    text = Path(script).read_text()
    lines = text.splitlines()
    graph, loss, train_op = sess.graph, found["loss"], found["train_op"]
    trained = sorted((v for _, v in found["grads_and_vars"]), key=lambda v: v.op._id)
    notes: list[str] = []

    names: dict[str, str] = {}  # tensor name -> global name
    var_globals: dict[str, str] = {}
    graph_names, train_names, tf_names = set(), set(), set()
    for key, value in module_dict.items():
        if key.startswith("__"):
            continue
        if isinstance(value, types.ModuleType):
            if value.__name__.startswith("tensorflow") and "tutorials" not in value.__name__:
                tf_names.add(key)
            continue
        if isinstance(value, tf.Variable):
            var_globals.setdefault(value.op.name, key)
        elif isinstance(value, tf.Tensor):
            names.setdefault(value.name, key)
        elif isinstance(value, tf.Operation) and value is train_op:
            train_names.add(key)
        elif isinstance(value, dict):
            for k, v in value.items():
                if isinstance(v, tf.Variable) and isinstance(k, str):
                    var_globals.setdefault(v.op.name, f"{key}_{k}")
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value[:50]):
                if isinstance(v, tf.Variable):
                    var_globals.setdefault(v.op.name, f"{key}_{i}")
        if _is_graph_value(value, tf):
            graph_names.add(key)

    taken = {"name", "variables", "trainable_variables", "submodules", "name_scope", "non_trainable_variables"}
    if style == "keras":
        import keras

        taken |= set(dir(keras.Model))  # a method or weight must not hide Keras's own (`loss`, `weights`, ...)
    variables = {v.op.name: _identifier(var_globals.get(v.op.name, v.op.name), taken) for v in trained}

    feed_tensors = []
    for key in feed:
        t = graph.get_tensor_by_name(key if ":" in key else key + ":0") if isinstance(key, str) else key
        feed_tensors.append(t)
    feed_tensors.sort(key=lambda t: t.op._id)
    # an argument never takes a name the forward pass binds (the script's global names of its tensors)
    own_names = {names.get(t.name) for t in feed_tensors}
    arg_taken = set(variables.values()) | {n for n in names.values() if n not in own_names}
    arguments = {t.op.name: _identifier(names.get(t.name, t.op.name), arg_taken) for t in feed_tensors}
    placeholder_global = {arguments[t.op.name]: names.get(t.name) for t in feed_tensors}

    tr = Translator(script, lines, sess, names, variables, arguments, groups)
    tr.updates, unwritten = moving_average_updates(graph, train_op, loss, script, lines)
    moving = {}  # variable op name -> (attr, tf.Variable): the non-trainable statistics the step updates
    for update in (u for us in tr.updates.values() for u in us):
        name = update.variable.op.name
        if name not in moving:
            moving[name] = (_identifier(var_globals.get(name, name), taken), update.variable)
        update.attr = moving[name][0]
    tree = ast.parse(text)
    targets = [loss]
    for name in sorted(_fetched_names(tree)):
        value = module_dict.get(name)
        if isinstance(value, tf.Tensor) and value is not loss and value.op.type != "Placeholder":
            targets.append(value)

    opt_line = source_line(train_op, script, lines)
    opt_where = f"TF1 line {opt_line[0]}" if opt_line else "the TF1 graph"
    schedule = _schedule(graph, train_op, decays)
    opt_class, opt_expr = _optimizer(graph, sess, decays, schedule, notes, tr.todos, opt_where)
    values = {name: f"model.{variables[op]}.numpy()" for op, name in var_globals.items() if op in variables}
    values.update(_optimizer_values(module_dict, schedule, tf))
    methods, method_code, plan_methods, untranslated = [], [], {}, set()
    layers: list = []
    if style == "keras":
        tf1_names = dict(variables)  # the names the module style would give, for the layers' comments
        layers, owned, tr.remarks = keras_layers.find(tr, targets, trained, sess,
                                                      taken | set(variables.values()) | set(arguments.values()))
        variables.update(owned)  # a layer's weight is read as self.dense1.kernel where it is used op by op
    method_taken = set(variables.values()) | taken | {layer.attr for layer in layers}
    fetched_summaries = {}  # global name of a fetched summary -> its summaries
    for target in targets:
        own = names.get(target.name)
        if target is not loss and own in values:
            continue  # the decayed learning rate: the optimizer's own
        found = summary_ops.find(target, tf) if target is not loss and own else None
        if found is not None:
            fetched_summaries[own] = found
            continue
        todos_before = list(tr.todos)
        body, expr = tr.function(target)
        if target is not loss and len(tr.todos) > len(todos_before):
            untranslated.add(own)  # a fetch (a merged summary) with no translation: None where it was fetched
            continue
        method = own or "loss"
        method = _identifier(f"{method}_fn" if style == "keras" and method in taken else method, method_taken)
        reach = {op.name for op in ancestors([target])}
        args = [arguments[t.op.name] for t in feed_tensors if t.op.name in reach]
        if target is loss:
            updated = set(tr.updated)
        flag = ", update_moving_averages=False" if tr.updated else ""
        method_code.append(f"{_INDENT}def {method}(self{''.join(', ' + a for a in args)}{flag}):")
        method_code += [line.text(_INDENT * 2) for line in body]
        method_code.append(f"{_INDENT * 2}return {expr}")
        method_code.append("")
        methods.append((target, method, args))
        if own:
            plan_methods[own] = (f"model.{method}", [placeholder_global[a] for a in args])
    loss_method, loss_args = methods[0][1], methods[0][2]
    plan_summaries, summary_lines = _summary_methods(fetched_summaries, tr, loss, methods, method_taken, method_code,
                                                     feed_tensors, arguments, placeholder_global, script, lines,
                                                     untranslated)

    trained_attrs = {variables[v.op.name]: v for v in trained}
    if style == "keras":
        init_lines = _keras_init_lines(layers, {a: v for a, v in trained_attrs.items() if "." not in a}, tf1_names,
                                       sess, tr)
    else:
        init_lines = [_variable_line(attr, v, sess, tr) for attr, v in trained_attrs.items()]
    init_lines += [_variable_line(attr, v, sess, tr, trainable=False) for name, (attr, v) in moving.items()
                   if any(u.variable is v for bn in updated for u in tr.updates[bn])]
    unwritten += [graph.get_operation_by_name(bn) for bn in tr.updates if bn not in updated]  # not on the loss path

    step_todos = _moving_average_todos(unwritten, script, lines, tr.todos)
    for variable, where in other_assignments(train_op, tr.updates, unwritten, script, lines):
        where = where or "the TF1 graph"
        tr.todos.append(f"an assignment to {variable} TF1's train op ran (not an optimizer update) from {where}")
        step_todos.append(f"{_INDENT}# TODO(tfcompare): TF1's train op also assigned {variable} ({where}); "
                          "not written")

    plan = carried.Plan(graph=graph_names, train=train_names, methods=plan_methods, values=values,
                        after={k for k, v in values.items() if v.startswith("optimizer.iterations")},
                        step_args=[placeholder_global[a] for a in loss_args], loss=names.get(loss.name),
                        tf_names=tf_names, untranslated=untranslated, summaries=plan_summaries,
                        summary_lines=summary_lines, late=set(late or ()),
                        placeholders={k for k, v in module_dict.items() if isinstance(v, tf.Tensor)
                                      and v.op.type in ("Placeholder", "PlaceholderWithDefault")})
    if any(g is None for g in plan.step_args):
        tr.todos.append("the training feed: a fed placeholder has no global name in the TF1 script")
    kept = carried.rewrite(text, plan, first_step_line)

    out = [f'"""TF2 rewrite of {Path(script).name}, written by `tfcompare convert` from the graph the TF1 script '
           'built.',
           "",
           *(_MODULE_DOC if style == "module" else _KERAS_DOC),
           '@tf.function step with a Keras optimizer carrying TF1\'s settings."""', ""]
    imports = kept.imports if "import tensorflow as tf" in kept.imports else ["import tensorflow as tf", *kept.imports]
    if style == "keras" and "import keras" not in imports:
        imports.insert(imports.index("import tensorflow as tf") + 1, "import keras")
    if kept.loader:
        for extra in ("import types", "import numpy as np"):
            if extra not in imports:
                imports.append(extra)
    out += sorted(set(imports), key=imports.index) + [""]
    if kept.loader:
        out += [_LOADER.strip("\n"), "", ""]
        notes.append("input_data.read_data_sets (gone from TF 2) is written into the script on "
                     "tf.keras.datasets.mnist, without a validation split or shuffling")
    out += [t.lstrip("\n") if i == 0 else t for i, t in enumerate(kept.head)]
    if kept.head:
        out += ["", ""]
    all_todos = tr.todos + kept.todos
    if any("TODO_tfcompare(" in c for c in method_code):
        out += ["", "def TODO_tfcompare(what):",
                f'{_INDENT}raise NotImplementedError(f"tfcompare convert could not translate {{what}}")', ""]
    if opt_class:
        out += [opt_class.strip("\n"), "", ""]
    for helper in sorted(tr.helpers):
        out += [_HELPER_SOURCE[helper].strip("\n"), "", ""]
    out += ["class Model(tf.Module):" if style == "module" else "class Model(keras.Model):",
            f'{_INDENT}"""The TF1 graph of {Path(script).name}: its trained variables, and one method per tensor the '
            'script fetches."""' if style == "module" else
            f'{_INDENT}"""The TF1 graph of {Path(script).name}: Keras layers where a group of TF1 ops is exactly one, '
            f'the other\n{_INDENT}trained variables as weights of the model; one method per tensor the script '
            f'fetches, op by op\n{_INDENT}around the layers (the loss and what no Keras layer computes the same '
            'way)."""', "",
            f"{_INDENT}def __init__(self):", f"{_INDENT * 2}super().__init__(name=\"model\")", *init_lines, "",
            *method_code, "",
            "model = Model()",
            f"optimizer = {opt_expr}  # {opt_where}: {(opt_line[1][:60] if opt_line else '')}".rstrip(),
            "", "",
            "@tf.function",
            f"def train_step({', '.join(loss_args)}):",
            f"{_INDENT}with tf.GradientTape() as tape:",
            f"{_INDENT * 2}loss_value = model.{loss_method}({', '.join(loss_args)}"
            f"{', update_moving_averages=True' if updated else ''})",
            f"{_INDENT}gradients = tape.gradient(loss_value, model.trainable_variables)",
            f"{_INDENT}optimizer.apply_gradients(zip(gradients, model.trainable_variables))",
            *step_todos,
            f"{_INDENT}return loss_value", "", ""]
    if kept.summaries:
        out += [summary_ops.HELPER.strip("\n"), "", ""]
    out += [t.lstrip("\n") if i == 0 else t for i, t in enumerate(kept.tail)]
    body = "\n".join(out).rstrip() + "\n"
    body = re.sub(r"^(\s*)(['\"])" + carried.TODO_MARK + r"(.*)\2$", r"\1pass  # TODO(tfcompare): \3", body,
                  flags=re.M)
    body = re.sub(r"^(\s*)(['\"])" + carried.NOTE_MARK + r"(.*)\2$", r"\1# NOTE(tfcompare): \3", body, flags=re.M)
    return Written(body, all_todos, notes)
