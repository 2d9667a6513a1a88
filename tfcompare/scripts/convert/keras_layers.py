"""`convert --style keras`: the TF1 op groups that are exactly one Keras layer, found in the graph and written as one.

A group becomes a layer only where Keras computes the same ops on the same weights: `MatMul` [+ bias] [+ activation]
is `keras.layers.Dense`, `Conv2D` [+ bias] [+ activation] is `Conv2D` (NHWC), `MaxPool` / `AvgPool` are
`MaxPooling2D` / `AveragePooling2D`, a batch-preserving `Reshape` is `Flatten` / `Reshape`, dropout at a constant
rate is `Dropout` (called with training=True: TF1's drops on every run). The layer's weights are TF1's variables
(same shapes, TF1's initializer as a Keras initializer). Everything else stays op by op (the translator writes
it), and a part that looks like a layer but is not one exactly says why in its comment: a fed keep_prob (a Keras
Dropout's rate is fixed when built), batch norm (Keras's is not TF1's fused kernel), TF1's LSTM cell (another
weight layout). A weight a layer owns that the graph also reads elsewhere (an l2 term, a tied decoder) is read
there as `self.dense1.kernel`; a second use of it in a matmul stays op by op (a layer has its own weights).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from tfcompare.scripts.child import initialisation
from tfcompare.scripts.convert.initializers import named
from tfcompare.scripts.convert.ops import number
from tfcompare.scripts.convert.script_numbers import script_array, script_constant

__all__ = ["Layer", "find", "keras_initializer", "FALLBACKS"]

_PASS = {"Identity", "ReadVariableOp", "Snapshot"}
_VARIABLE_OPS = {"VariableV2", "VarHandleOp", "Variable"}
_ACTIVATIONS = {"Relu": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Softmax": "softmax", "Elu": "elu",
                "Softplus": "softplus", "Selu": "selu", "Relu6": "relu6"}
_FUSED_BATCH_NORM = ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
FALLBACKS = {  # why a part is written op by op rather than as the Keras layer it resembles
    "dropout": "not keras.layers.Dropout: keep_prob is fed each run (a Dropout layer's rate is fixed)",
    # the keep_prob that is the `training` argument: the traced methods take it as a bool tensor
    "dropout_training": "not keras.layers.Dropout: `training` is a tensor in the methods' input_signature",
    "batch_norm": "not keras.layers.BatchNormalization: Keras normalises with separate moments ops, not TF1's "
                  "fused kernel (float32 results differ by ~5e-7)",
    "lstm": "not keras.layers.LSTM: Keras keeps kernel and recurrent_kernel apart and orders the gates i, f, c, o "
            "(TF1: one kernel, gates i, j, f, o, forget_bias added on each step)",
}


@dataclasses.dataclass
class Layer:
    """One Keras layer standing for a group of TF1 ops; the translator writes `self.<attr>(x)` for its output."""

    attr: str
    cls: str  # keras.layers.Dense
    args: list[str]  # constructor arguments, as written
    op: object  # the group's last op: its TF1 line is the layer's
    inputs: list  # [the tensor the layer is called on]
    outputs_ops: set
    weights: dict = dataclasses.field(default_factory=dict)  # "kernel" / "bias" -> TF1 variable
    build: str = ""  # the input shape the layer is built for (a layer with weights), as written
    call_extra: str = ""
    kind: str = "layer"
    first: object = None  # the group's first op (MatMul, Conv2D), where its TF1 lines start
    unread: list = dataclasses.field(default_factory=list)  # (role, TF1 variable) whose initializer is unread

    @property
    def stem(self) -> str:
        return self.attr.rstrip("0123456789") or "layer"

    def translate(self, tr, t) -> str:
        return f"self.{self.attr}({tr.value(self.inputs[0])}{self.call_extra})"

    def arguments(self) -> list[str]:
        return [*self.args, 'name="' + self.attr + '"']


def keras_initializer(v, sess, tr=None) -> str | None:
    """TF1's initializer of `v` as a Keras initializer (written), or None when its scheme cannot be read; with
    the translator `tr`, the script's own `tf.constant_initializer(expression)` is Keras's Constant of it."""
    python = script_constant(v, tr) if tr is not None else None
    if python is not None:
        return f"keras.initializers.Constant({python})"
    scheme = initialisation.tf1_scheme(v, sess)
    kind = (scheme or {}).get("scheme")
    keras_name = named(scheme, list(v.shape.as_list()))
    if keras_name:
        return f"keras.initializers.{keras_name}"

    def f(x):
        return number(np.float32(x))

    if kind in ("normal", "truncated_normal"):
        cls = "RandomNormal" if kind == "normal" else "TruncatedNormal"
        mean = f"mean={f(scheme['mean'])}, " if scheme["mean"] else ""
        return f"keras.initializers.{cls}({mean}stddev={f(scheme['stddev'])})"
    if kind == "uniform":
        return f"keras.initializers.RandomUniform(minval={f(scheme['low'])}, maxval={f(scheme['high'])})"
    if kind == "constant":
        value = float(scheme["value"])
        return '"zeros"' if value == 0 else '"ones"' if value == 1 else f"keras.initializers.Constant({f(value)})"
    array = script_array(v, tr) if tr is not None else None  # `tf.Variable(W1)`: the script's array
    return f"keras.initializers.Constant({array[0]})" if array is not None else None


class _Graph:
    """The forward ops of the fetched targets as the translator sees them (a recorded call is one node)."""

    def __init__(self, tr, targets, trained: dict):
        self.tr, self.trained = tr, trained  # trained: variable op name -> TF1 variable
        self.targets = {t.name for t in targets}
        self.users: dict[str, list] = {}  # tensor name -> ops reading it
        self.ops: list = []
        seen, stack = set(), [t.op for t in targets]
        while stack:
            op = stack.pop()
            if op.name in seen:
                continue
            seen.add(op.name)
            self.ops.append(op)
            if op.type in _VARIABLE_OPS or op.type == "Placeholder":
                continue
            for t in tr._inputs(op):
                self.users.setdefault(t.name, []).append(op)
                stack.append(t.op)
        self.ops.sort(key=lambda o: o._id)
        self.grouped = set()
        for group in tr.groups.values():
            self.grouped |= set(group.outputs_ops)

    def variable(self, t, rank: int):
        """The trained float32 variable `t` reads (through identities), if it has rank `rank`."""
        while t.op.type in _PASS and t.op.inputs:
            t = t.op.inputs[0]
        v = self.trained.get(t.op.name)
        if v is None or v.dtype.base_dtype.name != "float32" or v.shape.rank != rank:
            return None
        return v

    def only_user(self, t):
        """The one op reading `t`, when `t` is an intermediate the script neither names nor fetches."""
        users = self.users.get(t.name, [])
        if len(users) != 1 or t.name in self.targets or t.name in self.tr.names or users[0].name in self.grouped:
            return None
        return users[0]


def _shape(t) -> list | None:
    return t.shape.as_list() if t.shape.rank is not None else None


class _Finder:
    def __init__(self, graph: _Graph, sess, taken: set):
        self.g, self.sess, self.taken = graph, sess, taken
        self.layers: list[Layer] = []
        self.owner: dict[str, str] = {}  # variable op name -> "dense1.kernel"
        self.counts: dict[str, int] = {}

    def _name(self, stem: str) -> str:
        n = self.counts.get(stem, 0)
        while True:
            n += 1
            if f"{stem}{n}" not in self.taken:
                break
        self.counts[stem] = n
        self.taken.add(f"{stem}{n}")
        return f"{stem}{n}"

    def _free(self, v) -> bool:
        return v is not None and v.op.name not in self.owner

    def _tail(self, out, units: int, ops: set, bias_format_ok) -> tuple:
        """Absorb a bias add (a rank-1 variable of `units`) and an activation after `out`."""
        bias, activation = None, None
        user = self.g.only_user(out)
        if user is not None and user.type in ("Add", "AddV2", "BiasAdd") and bias_format_ok(user):
            other = [t for t in user.inputs if t.name != out.name]
            v = self.g.variable(other[0], 1) if len(other) == 1 and (user.type != "BiasAdd" or
                                                                      user.inputs[0].name == out.name) else None
            if self._free(v) and v.shape.as_list() == [units]:
                bias, out = v, user.outputs[0]
                ops.add(user.name)
                user = self.g.only_user(out)
        if user is not None and user.type in _ACTIVATIONS:
            activation, out = _ACTIVATIONS[user.type], user.outputs[0]
            ops.add(user.name)
        return out, bias, activation

    def _weights(self, layer: Layer, kernel, bias, args: list) -> None:
        args.append(f"use_bias={bias is not None}" if bias is None else "")
        for role, v in (("kernel", kernel), ("bias", bias)):
            if v is None:
                continue
            init = keras_initializer(v, self.sess, self.g.tr)
            if init is not None:
                args.append(f"{role}_initializer={init}")
            else:
                args.append(f'{role}_initializer="zeros"')
                layer.unread.append((role, v))
            layer.weights[role] = v
            self.owner[v.op.name] = f"{layer.attr}.{role}"
        layer.args = [a for a in args if a]

    def dense(self, op) -> None:
        if op.get_attr("transpose_a") or op.get_attr("transpose_b"):
            return
        x, kernel = op.inputs[0], self.g.variable(op.inputs[1], 2)
        if not self._free(kernel) or _shape(x) is None or len(_shape(x)) != 2 or _shape(x)[1] is None:
            return
        ops = {op.name}
        units = kernel.shape.as_list()[1]
        out, bias, activation = self._tail(op.outputs[0], units, ops, lambda u: u.type != "BiasAdd" or
                                           u.get_attr("data_format") == b"NHWC")
        layer = Layer(self._name("dense"), "keras.layers.Dense", [], out.op, [x], ops,
                      build=f"(None, {kernel.shape.as_list()[0]})", first=op)
        args = [str(units)] + ([f'activation="{activation}"'] if activation else [])
        self._weights(layer, kernel, bias, args)
        self.layers.append(layer)

    def conv(self, op) -> None:
        if op.get_attr("data_format") != b"NHWC" or op.get_attr("padding") not in (b"SAME", b"VALID"):
            return
        x, kernel = op.inputs[0], self.g.variable(op.inputs[1], 4)
        shape = _shape(x)
        if not self._free(kernel) or shape is None or len(shape) != 4 or shape[3] is None:
            return
        strides, dilations = op.get_attr("strides"), op.get_attr("dilations")
        if strides[0] != 1 or strides[3] != 1 or dilations[0] != 1 or dilations[3] != 1:
            return
        kh, kw, _, filters = kernel.shape.as_list()
        ops = {op.name}
        out, bias, activation = self._tail(op.outputs[0], filters, ops, lambda u: u.type != "BiasAdd" or
                                           u.get_attr("data_format") == b"NHWC")
        layer = Layer(self._name("conv"), "keras.layers.Conv2D", [], out.op, [x], ops,
                      build=f"({', '.join(str(d) for d in [None, *shape[1:]])})", first=op)
        args = [str(filters), f"({kh}, {kw})"]
        if tuple(strides[1:3]) != (1, 1):
            args.append(f"strides=({strides[1]}, {strides[2]})")
        args.append(f'padding="{op.get_attr("padding").decode().lower()}"')
        if tuple(dilations[1:3]) != (1, 1):
            args.append(f"dilation_rate=({dilations[1]}, {dilations[2]})")
        if activation:
            args.append(f'activation="{activation}"')
        self._weights(layer, kernel, bias, args)
        self.layers.append(layer)

    def pool(self, op) -> None:
        ksize, strides = op.get_attr("ksize"), op.get_attr("strides")
        if op.get_attr("data_format") != b"NHWC" or ksize[0] != 1 or ksize[3] != 1 or strides[0] != 1 or \
                strides[3] != 1 or _shape(op.inputs[0]) is None or len(_shape(op.inputs[0])) != 4:
            return
        cls = "MaxPooling2D" if op.type == "MaxPool" else "AveragePooling2D"
        args = [f"pool_size=({ksize[1]}, {ksize[2]})", f"strides=({strides[1]}, {strides[2]})",
                f'padding="{op.get_attr("padding").decode().lower()}"']
        self.layers.append(Layer(self._name("pool"), f"keras.layers.{cls}", args, op, [op.inputs[0]], {op.name}))

    def reshape(self, op, tr) -> None:
        """A reshape that keeps the batch axis: [-1, n] of a rank > 2 input is Flatten, [-1, ...] is Reshape."""
        target, shape = tr.constant(op.inputs[1]), _shape(op.inputs[0])
        if target is None or shape is None or len(shape) < 2 or None in shape[1:]:
            return
        if any(u.type in _FUSED_BATCH_NORM for u in self.g.users.get(op.outputs[0].name, [])):
            return  # batch norm's own reshape around TF1's fused kernel (written op by op): no layer of its own
        target = [int(d) for d in np.atleast_1d(target)]
        if len(target) < 2 or target[0] != -1 or min(target[1:]) < 1 or \
                int(np.prod(target[1:])) != int(np.prod(shape[1:])):
            return
        if len(target) == 2 and len(shape) > 2:
            self.layers.append(Layer(self._name("flatten"), "keras.layers.Flatten", [], op, [op.inputs[0]],
                                     {op.name}))
        elif target[1:] != shape[1:]:
            self.layers.append(Layer(self._name("reshape"), "keras.layers.Reshape", [repr(tuple(target[1:]))], op,
                                     [op.inputs[0]], {op.name}))

    def dropout(self, tr, group) -> Layer | None:
        """A dropout at a constant rate; a fed keep_prob / rate stays tf.nn.dropout (a Keras rate is fixed)."""
        x, level = group.inputs
        value = tr.constant(level)
        if value is None or np.ndim(value) != 0:
            return None
        rate = 1.0 - float(value) if group.params["keep"] else float(value)
        layer = Layer(self._name("dropout"), "keras.layers.Dropout", [number(np.float32(rate))], group.op, [x],
                      set(group.outputs_ops), call_extra=", training=True")
        self.layers.append(layer)
        return layer


def find(tr, targets, trained: list, sess, taken: set) -> tuple[list[Layer], dict[str, str], dict[str, str]]:
    """The Keras layers of the forward pass of `targets` (added to `tr.groups`), which model attribute each
    trained variable a layer owns becomes ("dense1.kernel"), and a remark per op name for the parts written op by
    op that resemble a layer (`FALLBACKS`)."""
    graph = _Graph(tr, targets, {v.op.name: v for v in trained})
    finder = _Finder(graph, sess, taken)
    remarks: dict[str, str] = {}
    for name, group in list(tr.groups.items()):
        if name not in graph.users and name not in graph.targets:
            continue  # not in the forward pass of any target
        if group.kind == "dropout":
            layer = finder.dropout(tr, group)
            if layer is not None:
                tr.groups[name] = layer
            else:
                flagged = len(group.inputs) > 1 and group.inputs[1].name in tr.flags
                remarks[group.op.name] = FALLBACKS["dropout_training" if flagged else "dropout"]
        elif group.kind == "lstm":
            remarks[group.op.name] = FALLBACKS["lstm"]
    for op in graph.ops:
        if op.name in graph.grouped:
            continue
        if op.type == "MatMul":
            finder.dense(op)
        elif op.type == "Conv2D":
            finder.conv(op)
        elif op.type in ("MaxPool", "AvgPool"):
            finder.pool(op)
        elif op.type == "Reshape":
            finder.reshape(op, tr)
        elif op.type in _FUSED_BATCH_NORM:
            remarks[op.name] = FALLBACKS["batch_norm"]
    for layer in finder.layers:
        tr.groups[layer.op.outputs[0].name] = layer
    return finder.layers, finder.owner, remarks

