"""How the op-by-op translation spells TF ops in TF2 code: the function of each elementwise op and reduction, the
Python operator of each binary op and its precedence, the ops that get a line of their own, and the stem of the
name a line binds."""

from __future__ import annotations

__all__ = ["OWN_LINE", "BINARY", "LEVEL", "UNARY", "REDUCE", "NAMED", "data_format_arg", "dilations_arg"]

OWN_LINE = {"Relu", "Relu6", "Elu", "Selu", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "MaxPool", "AvgPool",
            "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits", "Conv2D", "Reshape", "Mean",
            "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}
BINARY = {"Add": "+", "AddV2": "+", "Sub": "-", "Mul": "*", "RealDiv": "/", "Div": "/", "FloorDiv": "//"}
LEVEL = {"+": 1, "-": 1, "*": 2, "/": 2, "//": 2}  # Python's precedence of the operators written; 0: an atom
UNARY = {"Relu": "tf.nn.relu", "Relu6": "tf.nn.relu6", "Elu": "tf.nn.elu", "Selu": "tf.nn.selu",
         "Sigmoid": "tf.sigmoid", "Tanh": "tf.tanh", "Softmax": "tf.nn.softmax", "LogSoftmax": "tf.nn.log_softmax",
         "Exp": "tf.exp", "Log": "tf.math.log", "Log1p": "tf.math.log1p", "Sqrt": "tf.sqrt", "Rsqrt": "tf.math.rsqrt",
         "Square": "tf.square", "Abs": "tf.abs", "L2Loss": "tf.nn.l2_loss", "StopGradient": "tf.stop_gradient",
         "Floor": "tf.floor", "Softplus": "tf.nn.softplus", "Reciprocal": "tf.math.reciprocal"}
REDUCE = {"Mean": "tf.reduce_mean", "Sum": "tf.reduce_sum", "Max": "tf.reduce_max", "Min": "tf.reduce_min",
          "Prod": "tf.reduce_prod"}
NAMED = {"Relu": "h", "Relu6": "h", "Elu": "h", "Selu": "h", "Sigmoid": "h", "Tanh": "h", "Softmax": "probs",
         "LogSoftmax": "log_probs", "MaxPool": "pool", "AvgPool": "pool", "Conv2D": "conv", "Reshape": "flat",
         "Mean": "mean", "SoftmaxCrossEntropyWithLogits": "xent", "SparseSoftmaxCrossEntropyWithLogits": "xent",
         "FusedBatchNorm": "bn", "FusedBatchNormV2": "bn", "FusedBatchNormV3": "bn"}


def data_format_arg(op) -> str:
    """`, data_format='NCHW'` where a convolution or pooling is not TF's default NHWC."""
    return "" if (fmt := op.get_attr("data_format").decode()) == "NHWC" else f", data_format={fmt!r}"


def dilations_arg(op) -> str:
    return "" if all(x == 1 for x in op.get_attr("dilations")) else f", dilations={op.get_attr('dilations')}"
