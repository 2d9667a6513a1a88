"""How the TF2 script's code names and lays out what it writes: a Python identifier for a TF1 name (the
script's own where it is one), never one already taken; a variable's attribute from the end of its scoped name;
the indentation of a block.
"""

from __future__ import annotations

import collections
import keyword
import re

__all__ = ["INDENT", "identifier", "fed_key", "short_names"]

INDENT = "    "
# a weight's own name says which weight of its layer, not which layer: `dense/kernel` keeps its layer's scope
_WEIGHT = re.compile(r"(kernel|recurrent_kernel|depthwise_kernel|pointwise_kernel|bias|biases|weights|w|b|gamma"
                     r"|beta|moving_mean|moving_variance|embeddings|projection|w_f_diag|w_i_diag|w_o_diag"
                     r"|Variable|Matrix)(_\d+)?", re.IGNORECASE)  # W, B too; Matrix: TF 0.x's linear()
# the scopes TF1's RNN cells open under the cell's own (`cell_0/basic_lstm_cell/kernel`): they name its kind, the
# word kept where no other scope is (a lone LSTM's `rnn/basic_lstm_cell/kernel`: `lstm_kernel`)
_CELL_SCOPES = {"basic_lstm_cell": "lstm", "lstm_cell": "lstm", "gru_cell": "gru", "basic_rnn_cell": "rnn",
                "multi_rnn_cell": "cells", "rnn": "rnn"}
# an ExponentialMovingAverage of tf.nn.moments' mean and variance (a batch norm written by hand) is the layer's
# moving mean and variance, as Keras names them (`bn1/bn1/moments/Squeeze/ExponentialMovingAverage`)
_MOMENTS = re.compile(r"(^|/)moments/Squeeze(_1)?/ExponentialMovingAverage$")


def fed_key(t) -> str:
    """What names a fed tensor among the step's arguments: its op (a placeholder, `placeholder(...) / 255.`), or the
    tensor itself where its op has several outputs (a tf.data iterator's `X, Y = iterator.get_next()`)."""
    return t.name if len(t.op.outputs) > 1 else t.op.name


def identifier(text: str, taken: set) -> str:
    name = text if text.isidentifier() else re.sub(r"\W", "_", text).strip("_") or "v"  # the script's `y_` stays
    if name[0].isdigit() or keyword.iskeyword(name):
        name = f"v_{name}"
    base, n = name, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name


def short_names(paths) -> dict[str, str]:
    """For each TF1 variable name (`rnnlm/rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel`), the end of it that
    no other of PATHS shares (`cell_0/basic_lstm_cell/kernel`), at least a weight's layer (`dense/kernel`), without
    the scopes an RNN cell adds inside it (or its kind alone: `lstm_kernel`), joined by `_` (`cell_0_kernel`; a
    hand-written batch norm's averaged moments `bn1_moving_mean`): the attribute a reviewer would name. A name
    the shortening would give two of them keeps its whole path. Not yet identifiers (`identifier` makes them)."""
    parts = {p: _MOMENTS.sub(lambda m: m[1] + ("moving_variance" if m[2] else "moving_mean"), p).split("/")
             for p in dict.fromkeys(paths)}

    def end(p: str, k: int) -> tuple:
        return tuple(parts[p][-k:])

    short = {}
    for p, comps in parts.items():
        k = 1
        while k < len(comps) and any(end(q, k) == end(p, k) for q in parts if q != p):
            k += 1
        if k == 1 and len(comps) > 1 and _WEIGHT.fullmatch(comps[-1]):
            k = 2
        # a stacked cell's weight says which cell (`cell_1/gru_cell/gates/kernel`: `cell_1_gates_kernel`)
        k = max([k] + [len(comps) - i for i in range(1, len(comps))
                       if comps[i - 1] == "multi_rnn_cell" and re.fullmatch(r"cell_\d+", comps[i])])
        scopes = comps[-k:-1]
        kept = [c for c in scopes if c not in _CELL_SCOPES] or [_CELL_SCOPES[c] for c in scopes[-1:]]
        kept.append(comps[-1])
        short[p] = "_".join(kept)
    counts = collections.Counter(short.values())
    return {p: (name if counts[name] == 1 else "_".join(parts[p])) for p, name in short.items()}
