"""The TF2 expression of TF1 ops that tutorials use beside layers: one-hot labels, embedding lookups, batched and
unshaped matmuls, `tf.where`, padding, tiling and slicing, random draws in the forward pass (a VAE's noise),
transposed and depthwise convolutions, local response normalisation, a TF1 `tf.cond` on a fed flag. Each is the
one public TF2 call that runs the same kernel, so the rewrite computes what TF1 did, bit for bit (`Translator._op`
asks here last).
"""

from __future__ import annotations

import numpy as np

from tfcompare.scripts.convert.written_line import number

__all__ = ["translate", "subscript", "unwrapped", "random_draw"]

_UNARY = {"Sign": "tf.sign", "Round": "tf.round", "Sin": "tf.sin", "Cos": "tf.cos", "Ceil": "tf.math.ceil",
          "Erf": "tf.math.erf", "ZerosLike": "tf.zeros_like", "OnesLike": "tf.ones_like", "Rint": "tf.math.rint",
          "IsNan": "tf.math.is_nan", "LogicalNot": "tf.logical_not", "Softsign": "tf.nn.softsign",
          "IsInf": "tf.math.is_inf", "IsFinite": "tf.math.is_finite", "Tan": "tf.tan", "Atan": "tf.atan",
          "Asin": "tf.asin", "Acos": "tf.acos", "Sinh": "tf.sinh", "Cosh": "tf.cosh", "Expm1": "tf.math.expm1",
          "Lgamma": "tf.math.lgamma", "Digamma": "tf.math.digamma",
          # tf.diag / tf.diag_part (gone from TF2) are these kernels: rank k in, rank 2k out (and back)
          "Diag": "tf.linalg.tensor_diag", "DiagPart": "tf.linalg.tensor_diag_part",
          "MatrixInverse": "tf.linalg.inv", "MatrixDeterminant": "tf.linalg.det"}
_BINARY = {"LogicalAnd": "tf.logical_and", "LogicalOr": "tf.logical_or", "FloorMod": "tf.math.floormod",
           "TruncateDiv": "tf.truncatediv", "DivNoNan": "tf.math.divide_no_nan", "Atan2": "tf.math.atan2",
           "Xlogy": "tf.math.xlogy", "Xdivy": "tf.math.xdivy"}


def _whole_list(parts: list[str]) -> str | None:
    """`outputs1` where `parts` are `outputs1[0]`, `outputs1[1]`, ..., `outputs1[-1]`: the last by -1 (as an unrolled
    RNN's outputs are indexed), so the items before it are all there are."""
    if len(parts) < 2 or not parts[-1].endswith("[-1]"):
        return None
    base = parts[-1][:-len("[-1]")]
    return base if base.isidentifier() and parts[:-1] == [f"{base}[{i}]" for i in range(len(parts) - 1)] else None


def _lstm_state(tr, ins: list, parts: list[str]) -> str | None:
    """`state1` where `parts` are `state1[0]`, `state1[1]`: an LSTM's (c, h), the whole state (rnn_state stacks a
    stateful RNN's final state), alone or one cell's of a stack."""
    group = tr.groups.get(ins[0].name) if len(ins) == 2 else None
    if group is None or group.kind not in ("lstm", "stack") or tr.groups.get(ins[1].name) is not group:
        return None
    where = [group.params.get("state_index", {}).get(x.name) for x in ins]
    if None in where or where not in ([(1, 0), (1, 1)], [(1, 0, where[0][-1]), (1, 1, where[0][-1])]):
        return None
    base = parts[0][:-len("[0]")]  # h may be written as the last output (`outputs2[-1]`, static_rnn's): the same
    return base if parts[0] == f"{base}[0]" and base.isidentifier() else None


def _dtype(dtype) -> str:
    return f"tf.{dtype.name}"


def translate(tr, t) -> tuple[str, bool | int] | None:
    """(expression, precedence level or False) of tensor `t`, or None when its op is not one of these."""
    op, ins = t.op, list(t.op.inputs)
    kind = op.type
    v = tr.value
    if kind in _UNARY:
        return f"{_UNARY[kind]}({v(ins[0])})", False
    if kind in _BINARY:
        return f"{_BINARY[kind]}({v(ins[0])}, {v(ins[1])})", False
    if kind == "ConcatV2":  # every item of one list, in order (an unrolled RNN's outputs): the list itself
        parts = [v(x) for x in ins[:-1]]
        return f"tf.concat({_whole_list(parts) or '[' + ', '.join(parts) + ']'}, {tr._const_text(ins[-1])})", False
    if kind == "Pack":  # every item of one list, in order (an unrolled RNN's outputs): the list itself
        parts = [v(x) for x in ins]
        whole = _whole_list(parts) or _lstm_state(tr, ins, parts)
        return f"tf.stack({whole or '[' + ', '.join(parts) + ']'}, axis={op.get_attr('axis')})", False
    if kind == "OneHot":
        axis = op.get_attr("axis")
        on, off = tr.constant(ins[2]), tr.constant(ins[3])
        extra = "" if on == 1 and off == 0 else f", on_value={tr._const_text(ins[2])}, off_value={tr._const_text(ins[3])}"
        extra += "" if axis == -1 else f", axis={axis}"
        dtype = op.get_attr("T")
        extra += "" if dtype.name == "float32" else f", dtype={_dtype(dtype)}"
        return f"tf.one_hot({v(ins[0])}, {tr._const_text(ins[1])}{extra})", False
    if kind == "InTopKV2":  # TF1's tf.nn.in_top_k(predictions, targets, k); TF2 takes targets first
        return f"tf.math.in_top_k(targets={v(ins[1])}, predictions={v(ins[0])}, k={tr._const_text(ins[2])})", False
    if kind in ("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"):
        extra = "".join(f", {k}=True" for k, a in (("adjoint_a", "adj_x"), ("adjoint_b", "adj_y")) if op.get_attr(a))
        return f"tf.matmul({v(ins[0])}, {v(ins[1])}{extra})", False
    if kind in ("GatherV2", "ResourceGather", "Gather"):
        if kind == "ResourceGather":
            return f"tf.gather({v(ins[0])}, {v(ins[1])})", False
        axis = tr.constant(ins[2]) if kind == "GatherV2" else 0
        if axis is None:
            return None
        dims = op.get_attr("batch_dims") if kind == "GatherV2" else 0
        return (f"tf.gather({v(ins[0])}, {v(ins[1])}{'' if int(axis) == 0 else f', axis={int(axis)}'}"
                f"{'' if not dims else f', batch_dims={dims}'})"), False
    if kind in ("Select", "SelectV2"):
        return f"tf.where({v(ins[0])}, {v(ins[1])}, {v(ins[2])})", False
    if kind == "AddN":
        return f"tf.add_n([{', '.join(v(x) for x in ins)}])", False
    if kind == "Tile":
        return f"tf.tile({v(ins[0])}, {tr._const_text(ins[1])})", False
    if kind == "Fill":
        like, value = ins[0], tr.constant(ins[1])
        if like.op.type == "Shape" and value is not None and value.ndim == 0 and value in (0, 1) and \
                like.op.inputs[0].dtype == op.outputs[0].dtype:  # TF1's graph-mode ones_like / zeros_like
            return f"tf.{'ones' if value == 1 else 'zeros'}_like({v(like.op.inputs[0])})", False
        return f"tf.fill({tr._const_text(ins[0])}, {v(ins[1])})", False
    if kind in ("Pad", "PadV2", "MirrorPad"):
        mode = "" if kind != "MirrorPad" else f", mode={op.get_attr('mode').decode()!r}"
        value = f", constant_values={v(ins[2])}" if kind == "PadV2" and tr.constant(ins[2]) != 0 else ""
        return f"tf.pad({v(ins[0])}, {tr._const_text(ins[1])}{mode}{value})", False
    if kind == "Slice":
        return f"tf.slice({v(ins[0])}, {tr._const_text(ins[1])}, {tr._const_text(ins[2])})", False
    if kind == "Range":
        return f"tf.range({v(ins[0])}, {v(ins[1])}, {v(ins[2])})", False
    if kind == "Merge":  # a TF1 tf.cond (an is_training placeholder's branches): TF2's tf.cond on the same value
        branches = _cond_branches(op)
        if branches is None:
            return None
        pred, if_false, if_true = branches
        return f"tf.cond({v(pred)}, lambda: {v(if_true)}, lambda: {v(if_false)})", False
    if kind == "Cumsum" and tr.constant(ins[1]) is not None:
        flags = "".join(f", {k}=True" for k in ("exclusive", "reverse") if op.get_attr(k))
        return f"tf.math.cumsum({v(ins[0])}, axis={int(tr.constant(ins[1]))}{flags})", False
    if kind in ("MatrixDiag", "MatrixDiagV2", "MatrixDiagV3") and all(tr.constant(x) is not None
                                                                      for x in ins[1:]) and \
            all(np.all(tr.constant(x) == d) for x, d in zip(ins[1:], (0, -1, -1, 0))):
        return f"tf.linalg.diag({v(ins[0])})", False
    if kind == "LeakyRelu":
        return f"tf.nn.leaky_relu({v(ins[0])}, alpha={op.get_attr('alpha'):g})", False
    if kind == "ClipByValue":
        return f"tf.clip_by_value({v(ins[0])}, {v(ins[1])}, {v(ins[2])})", False
    if kind in ("RandomStandardNormal", "RandomUniform", "TruncatedNormal"):
        # a draw in the forward pass (a VAE's noise): TF2's generator draws other numbers; pair gives this call
        # TF1's draws (child/draws.py), so the steps compare
        fn = {"RandomStandardNormal": "tf.random.normal", "RandomUniform": "tf.random.uniform",
              "TruncatedNormal": "tf.random.truncated_normal"}[kind]
        dtype = op.get_attr("dtype")
        return f"{fn}({tr._const_text(ins[0]) if tr.constant(ins[0]) is not None else v(ins[0])}" \
               f"{'' if dtype.name == 'float32' else ', dtype=' + _dtype(dtype)})", False
    if kind == "Conv2DBackpropInput":
        return (f"tf.nn.conv2d_transpose({v(ins[2])}, {v(ins[1])}, {v(ins[0])}, strides={op.get_attr('strides')}, "
                f"padding={op.get_attr('padding').decode()!r})"), False
    if kind == "DepthwiseConv2dNative":
        return (f"tf.nn.depthwise_conv2d({v(ins[0])}, {v(ins[1])}, strides={op.get_attr('strides')}, "
                f"padding={op.get_attr('padding').decode()!r})"), False
    if kind == "LRN":
        args = ", ".join(f"{k}={op.get_attr(a):g}" for k, a in (("depth_radius", "depth_radius"), ("bias", "bias"),
                                                                 ("alpha", "alpha"), ("beta", "beta")))
        return f"tf.nn.local_response_normalization({v(ins[0])}, {args})", False
    return None


def random_draw(tr, op) -> str | None:
    """`tf.random.normal(shape, mean=m, stddev=s)` for the `rnd * s + m` TF's random_normal (and truncated_normal)
    built around its op: one call, as the script wrote it, not `tf.random.normal(shape) * 1.0 + 0.0`."""
    if op.type not in ("Add", "AddV2") or op.inputs[0].op.type != "Mul":
        return None
    mul, mean = op.inputs[0].op, tr.constant(op.inputs[1])
    draw, stddev = mul.inputs[0].op, tr.constant(mul.inputs[1])
    fn = {"RandomStandardNormal": "tf.random.normal", "TruncatedNormal": "tf.random.truncated_normal"}.get(draw.type)
    if fn is None or mean is None or stddev is None or np.ndim(mean) or np.ndim(stddev) or \
            len(draw.outputs[0].consumers()) != 1 or len(mul.outputs[0].consumers()) != 1:
        return None
    shape = draw.inputs[0]
    args = [tr._const_text(shape) if tr.constant(shape) is not None else tr.value(shape)]
    args += [f"mean={number(mean)}"] if float(mean) != 0.0 else []
    args += [f"stddev={number(stddev)}"] if float(stddev) != 1.0 else []
    dtype = draw.get_attr("dtype")
    args += [] if dtype.name == "float32" else [f"dtype={_dtype(dtype)}"]
    return f"{fn}({', '.join(args)})"


def _cond_branches(op):
    """(predicate, false branch's value, true branch's value) of a v1 `tf.cond`'s Merge: its inputs are the false
    and the true branch's results, each reading its data through Switch outputs of one predicate (output 0 in the
    false branch, 1 in the true one); None for any other Merge (a while loop's, a nested cond's)."""
    if len(op.inputs) != 2:
        return None
    preds = set()
    for branch, t in enumerate(op.inputs):
        stack, seen = [t], set()
        while stack:
            x = stack.pop()
            if x.name in seen:
                continue
            seen.add(x.name)
            if x.op.type == "Switch":
                if x.value_index != branch:
                    return None
                preds.add(unwrapped(x.op.inputs[1]).name)
                continue
            if x.op.type in ("Merge", "Enter", "Exit", "NextIteration", "LoopCond"):
                return None
            # a constant branch (`lambda: 1.0`) reaches its Switch through the pivot, a control input
            stack.extend([*x.op.inputs, *(o for c in x.op.control_inputs for o in c.outputs)])
    if len(preds) != 1:
        return None
    pred = op.graph.get_tensor_by_name(preds.pop())
    return pred, op.inputs[0], op.inputs[1]


def unwrapped(t):
    """A cond's predicate through its own Identity (`pred_id`): one predicate for every Switch of the cond."""
    while t.op.type == "Identity" and t.op.inputs:
        t = t.op.inputs[0]
    return t


def subscript(tr, t) -> str:
    """`x[:, -1, :]`: TF1's StridedSlice (what `x[...]` on a tensor makes) with constant bounds, as Python's
    subscript; bounds computed at run time are a TODO."""
    op, ins = t.op, list(t.op.inputs)
    bounds = [tr.constant(x) for x in ins[1:]]
    if any(b is None for b in bounds):
        return tr._todo(op, "a slice with bounds computed at run time")
    begin, end, strides = (np.atleast_1d(b).tolist() for b in bounds)
    mask = {k: op.get_attr(k) for k in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                         "shrink_axis_mask")}
    parts = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if mask["ellipsis_mask"] & bit:
            parts.append("...")
        elif mask["new_axis_mask"] & bit:
            parts.append("tf.newaxis")
        elif mask["shrink_axis_mask"] & bit:
            parts.append(str(b))
        else:
            lo = "" if mask["begin_mask"] & bit else str(b)
            hi = "" if mask["end_mask"] & bit else str(e)
            parts.append(f"{lo}:{hi}" + ("" if s == 1 else f":{s}"))
    return f"{tr.operand(ins[0], 4)}[{', '.join(parts)}]"
