"""The sliding windows of a forward pass: each convolution's and pooling's padding, strides and window, read from
the graph's ops the same way on both sides (TF1's graph; TF2's step traced), in the order they were built.

SAME against VALID padding, a stride of 2 against 1, a 3x3 pool against 2x2 are among the commonest migration
mistakes, and they show first as an activation of another shape: this is what names them.
"""

from __future__ import annotations

__all__ = ["window_ops", "WINDOW_OPS"]

# op type -> kind; the spatial part of strides/ksize follows the op's data_format
WINDOW_OPS = {"Conv2D": "conv", "Conv3D": "conv", "DepthwiseConv2dNative": "conv", "Conv2DBackpropInput": "conv",
              "MaxPool": "pool", "MaxPoolV2": "pool", "AvgPool": "pool", "MaxPool3D": "pool", "AvgPool3D": "pool"}


def _attr(op, name, default=None):
    try:
        value = op.get_attr(name)
    except (ValueError, AttributeError, TypeError):
        return default
    return value.decode() if isinstance(value, bytes) else value


def _spatial(values, data_format: str) -> list[int] | None:
    if not values:
        return None
    values = list(values)
    return values[2:] if data_format.startswith("NC") else values[1:-1]


def _shape(tensor, data_format: str) -> list[int | None] | None:
    try:
        dims = tensor.shape.as_list()
    except (ValueError, AttributeError):
        return None
    return _spatial(dims, data_format)


def window_ops(ops, site=lambda op: "?") -> list[dict]:
    """One entry per convolution or pooling op among `ops`, in creation order: its kind, type, padding, spatial
    strides, window (a pool's ksize, a convolution's kernel height x width), output's spatial shape, scope and
    the script's line (`site`)."""
    out = []
    for op in sorted((op for op in ops if op.type in WINDOW_OPS), key=lambda op: op._id):
        fmt = _attr(op, "data_format", "NHWC") or "NHWC"
        kind = WINDOW_OPS[op.type]
        if kind == "pool":
            window = _spatial(_attr(op, "ksize"), fmt)
        else:
            kernel = op.inputs[1].shape.as_list() if len(op.inputs) > 1 and op.inputs[1].shape.rank else None
            window = kernel[:-2] if kernel else None
        out.append({"kind": kind, "type": op.type, "padding": _attr(op, "padding"),
                    "strides": _spatial(_attr(op, "strides"), fmt), "window": window,
                    "out": _shape(op.outputs[0], fmt) if op.outputs else None,
                    "scope": op.name.rsplit("/", 1)[0] if "/" in op.name else "", "site": site(op)})
    return out
