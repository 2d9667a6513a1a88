"""TF1 graph ops -> TF2 API calls, one readable line per layer-like group, each with the TF1 line it came from.

The translator walks back from a target tensor (the loss, or another tensor the script fetches) to the
placeholders and variables. An op whose value is used once is written inline into its consumer (so
`MatMul` + `BiasAdd` + `Relu` is one line); an activation, a pooling, a named tensor of the script, a value
used twice and every group the script built with one call (`calls`: dropout, the cross-entropies, learning-rate
decay; a cross-entropy's mean is its Keras loss) gets its own line. An op without a translation becomes a
`TODO(tfcompare)` naming it and its TF1 line, never a silent change."""

from __future__ import annotations

import contextlib
import re

import numpy as np

from tfcompare.scripts.convert import tensor_ops
from tfcompare.scripts.convert.batch_norm import batch_norm
from tfcompare.scripts.convert.written_line import Line, number
from tfcompare.scripts.convert.calls import keras_loss
from tfcompare.core.generated_code import literal
from tfcompare.scripts.convert.naming import identifier
from tfcompare.scripts.convert.tf1_lines import provenance_line, source_line

from tfcompare.scripts.convert.op_spellings import (BINARY as _BINARY, LEVEL as _LEVEL, NAMED as _NAMED,
                                                   OWN_LINE as _OWN_LINE, REDUCE as _REDUCE, UNARY as _UNARY,
                                                   data_format_arg, dilations_arg)

__all__ = ["Line", "Translator", "number", "dtype_text"]

_PASS = {"Identity", "ReadVariableOp", "Snapshot", "Switch"}  # a tf.cond's Switch: its data, in either branch
_VARIABLE_OPS = {"VariableV2", "VarHandleOp", "Variable"}
_ATTRIBUTE = re.compile(r"[A-Za-z_]\w*\.[A-Za-z_]\w*")  # `bn1.y`: a field of a bound result, an atom
_ITEM = re.compile(r"[A-Za-z_]\w*\[-?\d+\]")  # `outputs2[-1]`: an item of a bound list, as cheap to read again


def dtype_text(dtype) -> str:
    return f"tf.{dtype.base_dtype.name}"


def _short(text: str, width: int = 64) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def _active(calls: dict, name: str):
    """The outermost call of the script's functions that made `name` and is not the one being written."""
    return next((c for c in calls.get(name, ()) if c.active), None)


class Translator:
    """Translate tensors of one TF1 graph; `lines` collects the statements of the function being written."""

    def __init__(self, script: str, source: list[str], sess, names: dict[str, str], variables: dict[str, str],
                 arguments: dict[str, str], groups: dict[str, "object"]):
        self.script, self.source, self.sess = script, source, sess
        self.names = names  # tensor name -> the script's own global name for it
        self.variables = variables  # variable op name -> attribute name on the model
        self.arguments = arguments  # placeholder op name (naming.fed_key) -> argument name
        self.groups = groups  # output tensor name -> calls.Group
        self.updates: dict[str, list] = {}  # batch norm op name -> its MovingAverage updates the train op ran
        # non-trainable variable op name -> attribute (moving statistics, counters): a tf.Variable(trainable=False)
        # where a function reads it; the ones read
        self.idle: dict[str, str] = {}
        self.idle_read: set[str] = set()
        self.averages: dict[str, str] = {}  # an ExponentialMovingAverage's shadow -> what it averages: op names
        self.average_object = "ema"  # the script's name for that ExponentialMovingAverage
        # loss tensor name -> [moving.Assignment]: what else its train op assigned, written after the loss; the
        # assignments written (op names) and the methods that write some
        self.assignments: dict[str, list] = {}
        self.assigned: set[str] = set()
        # the script's own functions written as methods (script_functions): output tensor / op name -> the Calls
        # that made it, outermost first (`generator`'s output is also that of the `linear` it returned)
        self.calls: dict[str, list] = {}
        self.call_ops: dict[str, list] = {}
        self.flags: dict[str, tuple[str, str]] = {}  # keep_prob tensor -> (the `training` argument, its value's text)
        self.python_flags = False  # Keras's call: `training` may be a Python bool (model(x)) as well as a tensor
        self.updating: set[str] = set()
        self.todos: list[str] = []
        self.helpers: set[str] = set()  # functions the written code calls (basic_lstm)
        self.metrics: dict[str, tuple[str, object]] = {}  # model attribute -> (its constructor, the TF1 op)
        self.remarks: dict[str, str] = {}  # op name -> a note for the comment of the line it is written on
        # the script's global NumPy arrays bound once (name, value): a large constant TF1 made of one is that name
        self.arrays: list[tuple[str, np.ndarray]] = []
        # tensor name -> the call that computes it in every function but its own (the model's forward pass, `forward`)
        self.shared: dict[str, str] = {}
        # tensor name -> every (tensor name, stem) its call returns, where it returns several (an RNN's final state)
        self.shared_parts: dict[str, list[tuple[str, str]]] = {}
        self.script_numbers = None  # script_numbers.ScriptNumbers: the script's expressions for its constants
        self._sharing = True
        # writing a script function's body (script_functions): its lines are its own, the same in every call
        self.in_function = False
        self.overrides: dict[str, str] = {}  # op name -> its code, "{}" its input (an instance's own activation)
        self._reset()

    def _reset(self):
        self.lines: list[Line] = []
        self._memo: dict[str, tuple[str, bool]] = {}  # tensor name -> (expression, compound)
        self._used: set[str] = set()
        self._consumers: dict[str, int] = {}
        self.updated: set[str] = set()  # batch norms whose moving averages this function updates when asked

    @contextlib.contextmanager
    def renamed(self, names: dict[str, str], replace: bool = False):
        """`names` (tensor name -> name) in force while one function is written: over the script's global names
        (the forward pass's own), or instead of them (a script function's body); the script's back after."""
        saved = dict(self.names)
        if replace:
            self.names.clear()
        self.names.update(names)
        try:
            yield
        finally:
            self.names.clear()
            self.names.update(saved)

    # -- one function -------------------------------------------------------------------------------------------
    def function(self, target, share: bool = True) -> tuple[list[Line], str]:
        """The statements that compute `target` from the arguments and variables, and its expression; with
        `share`, a tensor in `shared` is its call (the forward pass written once), not its ops again."""
        self._reset()
        self._sharing = share
        many = isinstance(target, (list, tuple))  # a fetched list of tensors: the list of their values
        targets = list(target) if many else [target]
        self._count(*targets)
        exprs = [self._expr(t, top=True)[0] for t in targets]
        return self.lines, f"[{', '.join(exprs)}]" if many else exprs[0]

    def _count(self, *targets) -> None:
        seen, stack = set(), [t.op for t in targets]
        while stack:
            op = stack.pop()
            if op.name in seen:
                continue
            seen.add(op.name)
            if op.type in _VARIABLE_OPS or op.type == "Placeholder" or self._shares(op) or \
                    any(n in self.arguments for n in (op.name, *(o.name for o in op.outputs))):  # fed
                continue
            inputs = self._inputs(op)
            for t in inputs:
                self._consumers[t.name] = self._consumers.get(t.name, 0) + 1
                stack.append(t.op)

    def _shares(self, op) -> bool:
        return self._sharing and any(t.name in self.shared for t in op.outputs)

    def _inputs(self, op) -> list:
        call = _active(self.call_ops, op.name)
        if call is not None:  # a call of the script's function: its arguments
            return list(call.args)
        group = next((g for g in self.groups.values() if op.name in g.outputs_ops), None)
        return list(group.inputs) if group is not None else list(op.inputs)

    # -- expressions --------------------------------------------------------------------------------------------
    def _expr(self, t, top: bool = False) -> tuple[str, bool]:
        if t.name in self._memo:
            return self._memo[t.name]
        op = t.op
        if t.name in self.arguments and op.type in _PASS | _VARIABLE_OPS:  # a variable given to a method (`W`)
            result = (self.arguments[t.name], False)
            self._memo[t.name] = result
            return result
        group = self.groups.get(t.name)
        if op.type in _PASS and op.inputs and group is None:
            result = self._expr(op.inputs[0])
            self._memo[t.name] = result
            return result
        if op.type in _VARIABLE_OPS:
            attr = self.variables.get(op.name) or self.idle.get(op.name)
            if op.name in self.averages:  # an ExponentialMovingAverage's shadow: `ema.average(self.w1)`
                attr = f"average(self.{self.variables[self.averages[op.name]]})"
            elif op.name in self.idle and op.name not in self.variables:
                self.idle_read.add(op.name)
            result = (f"{self.average_object if op.name in self.averages else 'self'}.{attr}" if attr else
                      self._todo(op, "a variable the optimizer does not train"), False)
            self._memo[t.name] = result
            return result
        if op.name in self.arguments or t.name in self.arguments:  # fed: a placeholder, `x / 255.`, an iterator's
            result = (self.arguments.get(t.name) or self.arguments[op.name], False)
            self._memo[t.name] = result
            return result
        call = _active(self.calls, t.name)
        if call is not None:
            code, compound, group = call.text(self, t), False, None
        elif op.name in self.overrides:
            code, compound, group = self.overrides[op.name].format(self.value(op.inputs[0])), False, None
        elif self._sharing and t.name in self.shared_parts:
            return self._unpack(t)
        elif self._sharing and t.name in self.shared:
            code, compound, group = self.shared[t.name], False, None
        elif group is not None:
            code, compound = group.translate(self, t), False
        else:
            code, compound = self._op(t)
        own = (t.name in self.names or top or (group is None and op.type in _OWN_LINE)
               or getattr(group, "kind", "") in ("dropout", "layer") or call is not None
               or self._consumers.get(t.name, 0) > 1 or len(code) > 90)
        if own and not (code.isidentifier() or _is_literal(code) or _ATTRIBUTE.fullmatch(code) or
                        _ITEM.fullmatch(code)):
            name = self._bind(t, code, group)
            result = (name, False)
        else:
            result = (code, compound)
        self._memo[t.name] = result
        return result

    def operand(self, t, level: int = 3, right: bool = False) -> str:
        """`t` as an operand of an operator of precedence `level`: parenthesised where Python needs it."""
        code, own = self._expr(t)
        own = int(own)
        if own and (own < level or (right and own == level)):
            return f"({code})"
        return code

    def value(self, t) -> str:
        return self._expr(t)[0]

    def _bind(self, t, code: str, group) -> str:
        name = self.names.get(t.name) or self._fresh(_NAMED.get(t.op.type, "t") if group is None else group.stem)
        op = group.op if group is not None else t.op
        shared = self._sharing and t.name in self.shared  # the forward pass's call: its TF1 lines are in the call
        call = _active(self.calls, t.name)
        site = call.chain[-1][1] if call is not None and call.chain else 0
        comment = "" if shared else f"TF1 line {site}: {_short(self.source[site - 1].strip())}" \
            if 0 < site <= len(self.source) else self._comment(op)  # a call of the script's function: where it is
        self.lines.append(Line(f"{name} = {code}", comment))
        self._used.add(name)
        return name

    def _comment(self, op) -> str:
        """The TF1 line `op` came from, and the remark on it (why a layer-like part is written op by op)."""
        line = (source_line if self.in_function else provenance_line)(op, self.script, self.source)
        parts = [f"TF1 line {line[0]}: {_short(line[1])}" if line else "", self.remarks.get(op.name, "")]
        return "; ".join(p for p in parts if p)

    def _taken(self) -> set[str]:
        return self._used | set(self.arguments.values()) | set(self.names.values())  # the script's names: reserved

    def _fresh(self, stem: str) -> str:
        taken = self._taken()
        n = 1
        while f"{stem}{n}" in taken:
            n += 1
        self._used.add(f"{stem}{n}")
        return f"{stem}{n}"

    def constant(self, t):
        """The value of a tensor computed from constants alone, or None."""
        op = t.op
        if op.type == "Const":
            return tf_make_ndarray(op.get_attr("value"))
        if op.type in _PASS and op.inputs:
            return self.constant(op.inputs[0])
        return None

    def _script_number(self, t, value) -> str | None:
        """The script's own expression for the constant `t` (`7 * 7 * 32`, `2 * n_samples`), or None."""
        op = t.op
        while op.type in _PASS and op.inputs:
            op = op.inputs[0].op
        line = source_line(op, self.script, self.source) if self.script_numbers is not None else None
        return self.script_numbers.expression(line[0], value) if line else None

    def _const_text(self, t) -> str:
        value = self.constant(t)
        if value is None:
            return self.value(t)
        own = self._script_number(t, value)
        if own is not None:
            return own
        if value.ndim == 0:
            return number(value)
        if value.size <= 16:
            return literal(value.tolist())
        if value.size and (value == value.flat[0]).all() and value.dtype == np.float32:  # batch_norm(scale=False)
            first = value.flat[0]
            return {0.0: f"tf.zeros({list(value.shape)})", 1.0: f"tf.ones({list(value.shape)})"}.get(
                float(first), f"tf.fill({list(value.shape)}, {number(first)})")
        for name, array in self.arrays:  # `tf.matmul(x_data, W)`: TF1 froze the script's array into the graph
            if array.shape == value.shape and np.array_equal(np.asarray(array, value.dtype), value):
                return name if array.dtype == value.dtype else f"tf.constant({name}, dtype=tf.{value.dtype.name})"
        return self._todo(t.op, f"a constant of {value.size} values")

    def metric(self, op, scope: str, constructor: str) -> str:
        """`self.<attr>`: the Keras metric object the model holds for a TF1 streaming metric (one per TF1 metric,
        whichever function reads it), created in the model's `__init__`."""
        for attr, (_, known) in self.metrics.items():
            if known is op:
                return f"self.{attr}"
        stem = re.sub(r"\W", "_", scope.rsplit("/", 1)[-1]).strip("_") or "metric"
        attr = identifier(f"{stem}_metric", set(self.variables.values()) | set(self.metrics))
        self.metrics[attr] = (constructor, op)
        return f"self.{attr}"

    def _todo(self, op, what: str) -> str:
        line = source_line(op, self.script, self.source)
        where = f"TF1 line {line[0]}" if line else "the TF1 graph"
        text = f"{op.type} ({what}) from {where}"
        self.todos.append(text)
        return f"TODO_tfcompare({text!r})"

    def _op(self, t) -> tuple[str, bool]:
        op, ins = t.op, list(t.op.inputs)
        kind = op.type
        if (drawn := tensor_ops.random_draw(self, op)) is not None:
            return drawn, False
        if kind in _BINARY:
            if kind in ("Add", "AddV2") and self.constant(ins[0]) is not None and self.constant(ins[1]) is None:
                ins = ins[::-1]
            symbol = _BINARY[kind]
            level = _LEVEL[symbol]
            return f"{self.operand(ins[0], level)} {symbol} {self._rhs(ins[1], level, True)}", level
        if kind == "Neg":
            return f"-{self.operand(ins[0])}", 3
        if kind in _UNARY:
            return f"{_UNARY[kind]}({self.value(ins[0])})", False
        if kind == "MatMul":
            extra = "".join(f", {k}=True" for k, a in (("transpose_a", "transpose_a"), ("transpose_b", "transpose_b"))
                            if op.get_attr(a))
            return f"tf.matmul({self.value(ins[0])}, {self.value(ins[1])}{extra})", False
        if kind == "BiasAdd":
            fmt = op.get_attr("data_format").decode()
            if fmt == "NHWC":  # the bias is on the last axis: `+` broadcasts it there, as TF2 code writes it
                return f"{self.operand(ins[0], 1)} + {self.operand(ins[1], 1, True)}", 1
            return f"tf.nn.bias_add({self.value(ins[0])}, {self.value(ins[1])}, data_format={fmt!r})", False
        if kind in _REDUCE:
            if kind == "Mean" and (loss := keras_loss(self, op)) is not None:  # a cross-entropy's mean
                return loss, False
            if self.constant(ins[1]) is None and ins[1].op.type == "Range":  # range(rank): every axis
                keep = ", keepdims=True" if op.get_attr("keep_dims") else ""
                return f"{_REDUCE[kind]}({self.value(ins[0])}{keep})", False
            axis = self._const_text(ins[1])
            keep = ", keepdims=True" if op.get_attr("keep_dims") else ""
            rank = len(ins[0].shape) if ins[0].shape.rank is not None else None
            axes = self.constant(ins[1])
            if axes is not None and rank is not None and sorted(np.atleast_1d(axes).tolist()) == list(range(rank)) \
                    and not keep:
                return f"{_REDUCE[kind]}({self.value(ins[0])})", False
            return f"{_REDUCE[kind]}({self.value(ins[0])}, axis={axis}{keep})", False
        if kind in ("SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits"):
            if t.value_index != 0:
                return self._todo(op, "its backprop output"), False
            fn = "sparse_softmax" if kind.startswith("Sparse") else "softmax"
            return f"tf.nn.{fn}_cross_entropy_with_logits(labels={self.value(ins[1])}, logits={self.value(ins[0])})", \
                False
        if kind == "Reshape":
            return f"tf.reshape({self.value(ins[0])}, {self._const_text(ins[1])})", False
        if kind == "Conv2D":
            return (f"tf.nn.conv2d({self.value(ins[0])}, {self.value(ins[1])}, strides={op.get_attr('strides')}, "
                    f"padding={op.get_attr('padding').decode()!r}{data_format_arg(op)}{dilations_arg(op)})"), False
        if kind in ("MaxPool", "AvgPool"):
            fn = "max_pool2d" if kind == "MaxPool" else "avg_pool2d"
            return (f"tf.nn.{fn}({self.value(ins[0])}, ksize={op.get_attr('ksize')}, strides={op.get_attr('strides')}, "
                    f"padding={op.get_attr('padding').decode()!r}{data_format_arg(op)})"), False
        if kind in ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"):
            return batch_norm(self, t), False
        if kind == "Shape":
            out = op.get_attr("out_type")
            return f"tf.shape({self.value(ins[0])}{'' if out.name == 'int32' else ', out_type=' + dtype_text(out)})", \
                False
        if kind == "Cast":
            return f"tf.cast({self.value(ins[0])}, {dtype_text(op.get_attr('DstT'))})", False
        if kind in ("ArgMax", "ArgMin"):  # `output_type=tf.int32`: compared with int32 labels as TF1 did
            out = op.get_attr("output_type")
            return f"tf.{kind.lower()}({self.value(ins[0])}, {self._const_text(ins[1])}" + \
                ("" if out.name == "int64" else f", output_type={dtype_text(out)}") + ")", False
        if kind in ("Equal", "NotEqual", "Greater", "Less", "GreaterEqual", "LessEqual", "Maximum", "Minimum", "Pow",
                    "SquaredDifference"):
            fn = {"Equal": "tf.equal", "NotEqual": "tf.not_equal", "Greater": "tf.greater", "Less": "tf.less",
                  "GreaterEqual": "tf.greater_equal", "LessEqual": "tf.less_equal", "Maximum": "tf.maximum",
                  "Minimum": "tf.minimum", "Pow": "tf.pow", "SquaredDifference": "tf.math.squared_difference"}[kind]
            return f"{fn}({self._rhs(ins[0], 0)}, {self._rhs(ins[1], 0)})", False
        if kind == "ReluGrad":  # a gradient the script takes in its own loss (tf.gradients: WGAN-GP's penalty)
            grads = self._rhs(ins[0], 0)
            zero = "0.0" if ins[0].dtype == "float32" else f"tf.zeros_like({grads})"
            return f"tf.where({self._rhs(ins[1], 1)} > 0, {grads}, {zero})", False
        if kind == "Unpack":
            base = self._multi(op, f"tf.unstack({self.value(ins[0])}, num={op.get_attr('num')}, "
                                   f"axis={op.get_attr('axis')})", "steps")
            return f"{base}[{t.value_index}]", False
        if kind == "Split":
            base = self._multi(op, f"tf.split({self.value(ins[1])}, {op.get_attr('num_split')}, "
                                   f"axis={self._const_text(ins[0])})", "parts")
            return f"{base}[{t.value_index}]", False
        if kind == "StridedSlice":
            return tensor_ops.subscript(self, t), False
        if kind == "Transpose":
            return f"tf.transpose({self.value(ins[0])}, {self._const_text(ins[1])})", False
        if kind == "Squeeze":
            dims = op.get_attr("squeeze_dims")
            return f"tf.squeeze({self.value(ins[0])}{f', axis={dims}' if dims else ''})", False
        if kind == "ExpandDims":
            return f"tf.expand_dims({self.value(ins[0])}, {self._const_text(ins[1])})", False
        if kind == "Const":
            return self._const_text(t), False
        if kind == "Placeholder":
            return self._todo(op, "a placeholder the step is not fed"), False
        more = tensor_ops.translate(self, t)
        if more is not None:
            return more
        return self._todo(op, "no TF2 translation written for this op"), False

    def _rhs(self, t, level: int = 3, right: bool = False) -> str:
        value = self.constant(t)
        if value is not None and value.ndim == 0:
            own = self._script_number(t, value)
            if own is not None:
                return own if own.isidentifier() or not level else f"({own})"
            text = number(value)
            return f"({text})" if text.startswith("-") and level else text
        return self.operand(t, level, right)

    def bind_pair(self, op, code: str, stems: tuple[str, str], part: str = "") -> tuple[str, str]:
        """`a1, b1 = code` (a call returning two things), written once (once per `part` of the op's)."""
        key = op.name + ":pair" + part
        if key not in self._memo:
            names = tuple(self._fresh(stem) for stem in stems)
            self.lines.append(Line(f"{', '.join(names)} = {code}", self._comment(op)))
            self._memo[key] = names
        return self._memo[key]

    def _unpack(self, t) -> tuple[str, bool]:
        """`logits, final_state = self(x, state)`: a call returning several values, once, each bound to its name."""
        parts = self.shared_parts[t.name]
        names = [self.names.get(name) or (stem if stem not in self._taken() else self._fresh(stem))
                 for name, stem in parts]
        self.lines.append(Line(f"{', '.join(names)} = {self.shared[t.name]}"))
        self._used.update(names)
        self._memo.update({name: (bound, False) for (name, _), bound in zip(parts, names)})
        return self._memo[t.name]

    def _multi(self, op, code: str, stem: str) -> str:
        """Bind a call with several outputs to one name, once; its outputs are indexed from it."""
        key = op.name + ":*"
        if key not in self._memo:
            name = self._fresh(stem)
            line = source_line(op, self.script, self.source)
            self.lines.append(Line(f"{name} = {code}", f"TF1 line {line[0]}: {_short(line[1])}" if line else ""))
            self._memo[key] = (name, False)
        return self._memo[key][0]


def _is_literal(code: str) -> bool:
    return bool(re.fullmatch(r"-?[0-9.e+-]+|True|False", code))


def tf_make_ndarray(proto) -> np.ndarray:
    import tensorflow as tf

    return tf.make_ndarray(proto)
