"""Where the two forward passes part: each Keras layer output of TF2's first step matched, by value, against the
activations TF1's graph computed on the same batch from the same weights.

Names and boundaries need not agree (a Dense with `activation="relu"` is TF1's MatMul, BiasAdd and Relu; its
output is TF1's Relu), so a layer output counts as TF1's when some TF1 tensor of its size holds the same values.
The first layer whose output none holds is where the sides part; when every layer's output is one of TF1's, they
part after the model, in the loss. Said only when the first loss already differs: a cause, never a verdict.
"""

from __future__ import annotations

import numpy as np

from tfcompare.scripts.child.noise import relative
from tfcompare.scripts.child.record import SideRecord

__all__ = ["parting", "MATCH_TOL"]

# the same batch through the same weights: faithful activations differ by float32 rounding (~1e-7 relative)
MATCH_TOL = 1e-4


def _layer(facts: dict) -> str:
    return f"{facts['name']} ({facts['type']}{', ' + facts['site'] if facts['site'] != '?' else ''})"


def parting(tf1: SideRecord, tf2: SideRecord) -> list[str]:
    """One sentence: the first TF2 layer whose output no TF1 activation holds (and the closest TF1 tensor), or
    that every layer output is TF1's; nothing when either side kept no activations."""
    if not tf1.activations or not tf2.activations:
        return []
    ones = [tf1.arrays[f"act/tf1/{i}"] for i in range(len(tf1.activations))]
    last = None
    for j, facts in enumerate(tf2.activations):
        value = tf2.arrays[f"act/tf2/{j}"]
        best, best_i = np.inf, None
        for i, one in enumerate(ones):
            if one.size == value.size and one.dtype.kind == "f":
                err = relative(one.ravel(), value.ravel())  # sizes agree; shapes may not (a Flatten)
                if err < best:
                    best, best_i = err, i
        if best <= MATCH_TOL:
            last = (facts, tf1.activations[best_i])
            continue
        closest = (f"; the closest TF1 tensor of its size is {tf1.activations[best_i]['name']} "
                   f"({tf1.activations[best_i]['type']}, {tf1.activations[best_i]['site']}), rel err {best:.2g}"
                   if best_i is not None else f"; TF1 computes no tensor of its size {tuple(facts['shape'])}")
        before = (f" (the layer before it, {_layer(last[0])}, matches TF1's {last[1]['name']})" if last else
                  " (the first layer TF2 calls)")
        return [f"where the forward passes part: {_layer(facts)} is the first TF2 layer whose output in the first "
                f"step no TF1 activation holds{before}{closest}"]
    return [f"every Keras layer output of TF2's first step ({len(tf2.activations)}) is one TF1 computes on the same "
            "batch: the forward passes part after the model, in the loss"]
