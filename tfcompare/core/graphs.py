"""Counting what is in a graph: op types of a GraphDef, its control flow, its fused kernels, HLO text."""

from __future__ import annotations

import collections
import re

__all__ = ["CONTROL_FLOW_OPS", "static_value", "read_tensors", "op_counts", "control_flow_ops", "fused_ops", "fused_kinds", "hlo_counts",
           "step_flops", "ancestors"]

CONTROL_FLOW_OPS = ("While", "StatelessWhile", "If", "StatelessIf", "Case", "StatelessCase",
                    "Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond")

_INSTRUCTION = re.compile(r"^\s*(ROOT\s+)?%?[\w.\-]+\s*=\s*\S+")


def op_counts(graph_def, *, library: bool = True) -> collections.Counter:
    """Op types of a GraphDef, including the bodies in its function library when `library`."""
    ops = collections.Counter(n.op for n in graph_def.node)
    if library:
        for fn in graph_def.library.function:
            ops.update(n.op for n in fn.node_def)
    return ops


def control_flow_ops(graph_def) -> dict[str, int]:
    counts = op_counts(graph_def)
    return {op: counts[op] for op in CONTROL_FLOW_OPS if counts[op]}


def fused_ops(graph_def) -> list[dict]:
    """Every fused kernel node: `{"node", "op", "absorbed": [ops it absorbed, from its fused_ops attr]}`."""
    out = []
    for node in graph_def.node:
        if "Fused" in node.op:
            absorbed = [s.decode() for s in node.attr["fused_ops"].list.s] if "fused_ops" in node.attr else []
            out.append({"node": node.name, "op": node.op, "absorbed": absorbed})
    return out


def fused_kinds(fused: list[dict]) -> collections.Counter:
    """`_FusedMatMul(BiasAdd)` -> how many such kernels."""
    return collections.Counter(f"{f['op']}({'+'.join(f['absorbed'])})" if f["absorbed"] else f["op"] for f in fused)


def hlo_counts(text: str) -> tuple[int, int]:
    """(instructions of the ENTRY computation, fusion instructions anywhere in the module) in HLO text."""
    instructions = fusions = 0
    in_entry = False
    for line in text.splitlines():
        if line.startswith("ENTRY "):
            in_entry = True
        elif in_entry and line.startswith("}"):
            in_entry = False
        if _INSTRUCTION.match(line):
            instructions += in_entry
            fusions += bool(re.search(r"\bfusion\(", line))
    return instructions, fusions


# element-wise arithmetic: one floating-point operation per output element
_ELEMENTWISE = {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "Neg", "Square", "Sqrt", "Rsqrt", "Exp", "Log",
                "Log1p", "Tanh", "Sigmoid", "Relu", "Maximum", "Minimum", "Pow", "SquaredDifference", "BiasAdd",
                "ReluGrad", "TanhGrad", "SigmoidGrad", "Reciprocal", "Abs", "Sum", "Mean", "Softmax", "Cos", "Sin",
                "AssignSubVariableOp", "AssignAddVariableOp", "ResourceApplyGradientDescent", "BiasAddGrad"}
# bookkeeping, not computation: left out of the op count a dispatch cost is divided by
_BOOKKEEPING = {"Placeholder", "Const", "Identity", "IdentityN", "NoOp", "ReadVariableOp", "Shape", "Reshape",
                "StopGradient", "_Arg", "_Retval", "Cast", "Pack", "StridedSlice", "ZerosLike", "OnesLike", "Fill",
                "BroadcastGradientArgs", "ExpandDims", "Squeeze"}


def _elements(shape) -> int | None:
    dims = shape.as_list() if shape.rank is not None else None
    if dims is None or any(d is None for d in dims):
        return None
    n = 1
    for d in dims:
        n *= d
    return n


def step_flops(graph) -> dict:
    """Floating-point operations of one traced step, counted from the graph's static shapes.

    Matrix products count 2·m·k·n (forward and gradient products alike), convolutions 2 multiply-adds per
    kernel tap per output element (their gradients the same as the forward), element-wise arithmetic one
    per output element. Bodies of While/If are not entered, so a graph with loops gives a lower bound
    (`has_loops`). Returns `{"flops", "dense_flops", "ops", "has_loops", "unknown_shapes"}`.
    """
    flops = dense = ops = unknown = 0
    loops = False
    for op in graph.get_operations():
        kind = op.type
        if kind in ("While", "StatelessWhile", "If", "StatelessIf", "PartitionedCall", "StatefulPartitionedCall"):
            loops = True
        if kind not in _BOOKKEEPING:
            ops += 1
        if kind in ("MatMul", "BatchMatMulV2", "BatchMatMul", "BatchMatMulV3"):
            a = op.inputs[0].shape
            out = _elements(op.outputs[0].shape)
            ta = op.get_attr("transpose_a") if kind == "MatMul" else op.get_attr("adj_x")
            k = a.as_list()[-2 if ta else -1] if a.rank else None
            if out is None or k is None:
                unknown += 1
                continue
            dense += 2 * out * k
        elif kind in ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"):
            # all three cost what the forward convolution costs: 2 * output elements * kh * kw * cin
            filt = op.inputs[1].shape if kind != "Conv2DBackpropFilter" else None
            forward_out = op.outputs[0].shape if kind == "Conv2D" else op.inputs[2].shape
            if kind == "Conv2DBackpropFilter":
                kh_kw_cin_cout = _static_filter(op)
                if kh_kw_cin_cout is None or _elements(forward_out) is None:
                    unknown += 1
                    continue
                kh, kw, cin, _ = kh_kw_cin_cout
            else:
                dims = filt.as_list() if filt.rank == 4 else None
                if dims is None or None in dims or _elements(forward_out) is None:
                    unknown += 1
                    continue
                kh, kw, cin, _ = dims
            dense += 2 * _elements(forward_out) * kh * kw * cin
        elif kind in _ELEMENTWISE:
            n = _elements(op.outputs[0].shape) if op.outputs else None
            if kind in ("Sum", "Mean", "BiasAddGrad") or (kind.endswith("VariableOp") or kind.startswith("Resource")):
                n = _elements(op.inputs[0].shape) if kind not in ("AssignSubVariableOp", "AssignAddVariableOp") \
                    else _elements(op.inputs[1].shape)
            if n is None:
                unknown += 1
                continue
            flops += n
    return {"flops": flops + dense, "dense_flops": dense, "ops": ops, "has_loops": loops, "unknown_shapes": unknown}


def static_value(t):
    """`tf.get_static_value(t)` without its side effect: TensorFlow marks a tensor it folds unfeedable, so a script
    that later feeds it (a stateful RNN's zero state, fed its last final state) would fail where it ran before."""
    import tensorflow as tf

    graph = getattr(t, "graph", None)  # none for a number or an eager tensor
    feedable = hasattr(graph, "is_feedable") and graph.is_feedable(t)
    value = tf.get_static_value(t)
    if feedable and not graph.is_feedable(t):
        graph._unfeedable_tensors.discard(t)
    return value


def _static_filter(op):
    """The filter shape of a Conv2DBackpropFilter, from its constant `filter_sizes` input."""
    try:
        from tensorflow.python.framework import tensor_util

        value = tensor_util.constant_value(op.inputs[1])
        return None if value is None else [int(v) for v in value]
    except Exception:
        return None


def read_tensors(t, fed: set) -> list:
    """Every tensor `t` is computed from, `t` too, through data inputs; the walk stops at a tensor whose name is in
    `fed`: TF1 takes a fed value in place of a tensor, so what computed it is not read."""
    out, seen, stack = [], set(), [t]
    while stack:
        x = stack.pop()
        if x.name in seen:
            continue
        seen.add(x.name)
        out.append(x)
        if x.name not in fed:
            stack.extend(i for i in x.op.inputs if i.name not in seen)
    return out


def ancestors(fetches, control: bool = True) -> set:
    """Every op the fetches (tensors or ops) depend on, through data and (unless `control` is False) control
    inputs."""
    seen, todo = set(), [getattr(f, "op", f) for f in fetches]
    while todo:
        op = todo.pop()
        if op not in seen:
            seen.add(op)
            todo.extend(t.op for t in op.inputs)
            if control:
                todo.extend(op.control_inputs)
    return seen
