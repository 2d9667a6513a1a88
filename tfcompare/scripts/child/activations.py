"""The first step's activations, kept on each side so that `pair` can say where the two forward passes part.

TF1: every float tensor on the path from the batch to the loss (not the inputs, variables or constants), fetched
once at the first step's starting weights with its batch fed: a read that consumes nothing, taken only when the
loss draws no random numbers (so no random op's state moves). TF2: the outputs of each Keras layer call in the
first step, from the call that got TF1's batch until the first gradient. Compared by value in
`tfcompare.scripts.pair.activations`: TF1's graph and Keras's layers need not share names or boundaries.
"""

from __future__ import annotations

import sys

import numpy as np
import tensorflow as tf

from tfcompare.core.graphs import ancestors

__all__ = ["tf1_activations", "ActivationObserver", "MAX_BYTES"]

MAX_BYTES = 32 * 2 ** 20  # per side: a CNN's activations at a tutorial's batch size fit many times over
_NOT_ACTIVATIONS = {"Const", "VariableV2", "VarHandleOp", "ReadVariableOp", "Placeholder", "PlaceholderWithDefault",
                    "IteratorGetNext", "QueueDequeueManyV2", "QueueDequeueUpToV2", "QueueDequeueV2", "Shape", "Size",
                    "Rank", "Fill", "ZerosLike", "OnesLike"}


def _from_inputs(forward: set, inputs: list) -> set:
    """The ops of `forward` that depend on one of the inputs (what is computed from the batch)."""
    seeds = {t.op for t in inputs}
    reached, todo = set(), list(seeds)
    consumers: dict = {}
    for op in forward:
        for t in op.inputs:
            consumers.setdefault(t.op, []).append(op)
    while todo:
        op = todo.pop()
        for nxt in consumers.get(op, ()):
            if nxt not in reached:
                reached.add(nxt)
                todo.append(nxt)
    return reached - seeds


def tf1_activations(run, sess, loss, feed: dict, site) -> tuple[list[dict], dict]:
    """(facts per tensor, arrays `act/tf1/<i>`): the forward pass's activations on the fed batch."""
    forward = ancestors([loss])
    inputs = [k for k in feed if hasattr(k, "op")]
    batch = max((np.shape(v)[0] for v in feed.values() if np.ndim(v) >= 1), default=1)
    chosen, total = [], 0
    for op in sorted(_from_inputs(forward, inputs), key=lambda o: o._id):
        if op.type in _NOT_ACTIVATIONS or getattr(op, "_control_flow_context", None) is not None:
            continue
        for t in op.outputs:
            if not t.dtype.is_floating or t.shape.rank is None or t.shape.rank < 1 or not op.graph.is_fetchable(t):
                continue
            size = int(np.prod([d if d is not None else batch for d in t.shape.as_list()])) * t.dtype.size
            if total + size > MAX_BYTES:
                return _read(run, sess, chosen, feed, site)
            chosen.append(t)
            total += size
    return _read(run, sess, chosen, feed, site)


def _read(run, sess, tensors, feed, site) -> tuple[list[dict], dict]:
    if not tensors:
        return [], {}
    try:
        values = run(sess, tensors, feed)
    except Exception:  # a tensor that cannot be fetched on its own: not compared
        return [], {}
    facts = [{"name": t.op.name, "type": t.op.type, "site": site(t.op), "shape": list(np.shape(v))}
             for t, v in zip(tensors, values)]
    return facts, {f"act/tf1/{i}": np.asarray(v) for i, v in enumerate(values)}


class ActivationObserver:
    """`TF2Probe`'s part that keeps each Keras layer call's outputs in the first step (`_install_activations`)."""

    collecting = True  # until the first gradient; `_first_call` starts the list again
    _act_bytes = 0

    def _install_activations(self, keras) -> None:
        probe = self
        original = keras.layers.Layer.__call__
        script = self.script

        def call(layer, *args, **kwargs):
            out = original(layer, *args, **kwargs)
            if probe.collecting and not probe.busy and probe.mode == "normal" and not probe.record.steps:
                probe._keep(layer, out, script)
            return out

        keras.layers.Layer.__call__ = call

    def _restart_activations(self) -> None:
        rec = self.record
        rec.activations = []
        for key in [k for k in rec.arrays if k.startswith("act/tf2/")]:
            del rec.arrays[key]
        self._act_bytes = 0

    def _keep(self, layer, out, script) -> None:
        rec = self.record
        frame, line = sys._getframe(2), None
        while frame is not None and line is None:
            line = frame.f_lineno if frame.f_code.co_filename == script else None
            frame = frame.f_back
        for leaf in tf.nest.flatten(out):
            if not isinstance(leaf, tf.Tensor) or tf.is_symbolic_tensor(leaf) or not leaf.dtype.is_floating:
                continue
            value = leaf.numpy()
            if self._act_bytes + value.nbytes > MAX_BYTES:
                self.collecting = False
                return
            self._act_bytes += value.nbytes
            rec.arrays[f"act/tf2/{len(rec.activations)}"] = value
            rec.activations.append({"name": getattr(layer, "path", None) or layer.name,
                                    "type": type(layer).__name__, "site": f"line {line}" if line else "?",
                                    "shape": list(value.shape)})
