"""The parts of TF1's loss a cause can be named from: the cross-entropy's logits and labels, the regularisation term.

Read once, at the first step's starting weights on the batch that step consumed (in `TF1Probe._at_start`, where
every variable is put back afterwards), so nothing is pulled from a pipeline and nothing moves. `pair.causes`
then asks whether TF2's first loss is what a known mistake would make of them: label smoothing, logits taken as
probabilities, a softmax over another axis, a regularisation term k times TF1's.
"""

from __future__ import annotations

import numpy as np

from tfcompare.core.graphs import ancestors

__all__ = ["find", "read"]

_CROSS_ENTROPY = {"SparseSoftmaxCrossEntropyWithLogits": "sparse", "SoftmaxCrossEntropyWithLogits": "dense"}
_SUMS = {"Add", "AddV2", "AddN"}
_DATA = {"Placeholder", "PlaceholderWithDefault", "IteratorGetNext", "IteratorGetNextSync", "QueueDequeueV2",
         "QueueDequeueManyV2", "QueueDequeueUpToV2", "QueueDequeue", "QueueDequeueMany", "QueueDequeueUpTo"}


def find(loss) -> dict:
    """{"kind", "logits", "labels", "regularisation"}: the first softmax cross-entropy on the way to the loss
    (None when there is none, or several) and the summands of the loss that read weights and no data."""
    forward = ancestors([loss])
    entropies = sorted((op for op in forward if op.type in _CROSS_ENTROPY), key=lambda op: op._id)
    out = {"kind": None, "logits": None, "labels": None, "regularisation": []}
    if len(entropies) == 1:
        op = entropies[0]
        out.update(kind=_CROSS_ENTROPY[op.type], logits=op.inputs[0], labels=op.inputs[1])
    for term in _summands(loss):
        reads = ancestors([term])
        if any(op.type == "L2Loss" for op in reads) and not any(op.type in _DATA for op in reads):
            out["regularisation"].append(term)
    return out


def _summands(tensor, depth: int = 0) -> list:
    op = tensor.op
    if op.type in ("Identity",) and depth < 8:
        return _summands(op.inputs[0], depth + 1)
    if op.type in _SUMS and depth < 8:
        return [t for x in op.inputs for t in _summands(x, depth + 1)]
    return [tensor]


def read(run, sess, feed: dict, parts: dict) -> dict[str, np.ndarray]:
    """The parts' values on `feed`, as arrays named for the record (`cause/...`)."""
    fetch = {}
    if parts["kind"] is not None:
        fetch["logits"], fetch["labels"] = parts["logits"], parts["labels"]
    if parts["regularisation"]:
        fetch["regularisation"] = parts["regularisation"]
    if not fetch:
        return {}
    values = run(sess, fetch, feed)
    out = {f"cause/{k}": np.asarray(v) for k, v in values.items() if k != "regularisation"}
    if "regularisation" in values:
        out["cause/regularisation"] = np.asarray(sum(float(np.sum(v)) for v in values["regularisation"]))
    return out
