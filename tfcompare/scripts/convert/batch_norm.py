"""TF1's fused batch norm kernel in the TF2 rewrite: the same kernel through `tf.raw_ops` (TF2 has no public fused
call, and `tf.nn.moments` + `tf.nn.batch_normalization` differ from it by float32 rounding), in training mode with
the moving-average updates TF1's train op ran, and in inference mode on the moving statistics (the other branch of
`tf.layers.batch_normalization(training=is_training)`'s cond).
"""

from __future__ import annotations

import numpy as np

from tfcompare.scripts.convert.naming import INDENT
from tfcompare.scripts.convert.written_line import Line, number

__all__ = ["batch_norm"]

_OUTPUTS = ("y", "batch_mean", "batch_variance")  # the kernel's variance output is Bessel-corrected, as TF1 used it


def batch_norm(tr, t) -> str:
    """The expression of output `t` of a FusedBatchNorm op; its moving averages' updates written after its line."""
    op, ins = t.op, list(t.op.inputs)
    if t.value_index >= len(_OUTPUTS):
        return tr._todo(op, "its reserve-space output")
    training = op.get_attr("is_training")
    x, scale, offset = (tr.value(i) for i in ins[:3])
    stats = "mean=[], variance=[]" if training else f"mean={tr.value(ins[3])}, variance={tr.value(ins[4])}"
    fmt = op.get_attr("data_format").decode()
    factor = op.get_attr("exponential_avg_factor") if op.type == "FusedBatchNormV3" else 1.0
    extra = "" if factor == 1.0 or not training else f", exponential_avg_factor={number(np.float32(factor))}"
    call = (f"tf.raw_ops.{op.type}(x={x}, scale={scale}, offset={offset}, {stats}, "
            f"epsilon={number(np.float32(op.get_attr('epsilon')))}{extra}, data_format={fmt!r}, "
            f"is_training={training})")
    updates = tr.updates.get(op.name) if training else None
    fresh = op.name + ":*" not in tr._memo
    if t.value_index == 0 and not updates and fresh:
        return f"{call}.y"
    bn = tr._multi(op, call, "bn")
    if updates and fresh:  # TF1's UPDATE_OPS, run by its train op: assign_moving_average(v, batch stat, decay)
        tr.updated.add(op.name)
        tr.lines.append(Line("if update_moving_averages:", "TF1's train op ran these (UPDATE_OPS)"))
        for update in updates:
            v = f"self.{update.attr}"
            tr.lines.append(Line(f"{INDENT}{v}.assign_sub(({v} - {bn}.{_OUTPUTS[update.output]}) * "
                                 f"{number(np.float32(update.factor))})",
                                 f"1 - decay; {update.where}" if update.where else "1 - decay"))
    return f"{bn}.{_OUTPUTS[t.value_index]}"
