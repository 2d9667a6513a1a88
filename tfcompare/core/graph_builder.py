"""The TF1 half of the case contract: helpers a TF1 builder closes its graph with.

Every builder is called by the harness inside `with tf.compat.v1.Graph().as_default()`; nothing
here switches eager execution off for the process, so TF1 graphs and TF2 models share one process.
TF1 symbols come through the single alias `tf1`.
"""

from __future__ import annotations

import contextlib
import contextvars

import tensorflow as tf

from tfcompare.core.cases import GraphParts, InputSpec

__all__ = ["tf1", "placeholders", "graph_parts", "weight_loader", "replicated"]

tf1 = tf.compat.v1


def placeholders(specs: tuple[InputSpec, ...]) -> dict:
    """One placeholder per input, `None` on the batch dim and on every varying dim."""
    return {s.name: tf1.placeholder(s.dtype, shape=s.signature_shape(), name=s.name) for s in specs}


_REPLICATION: contextvars.ContextVar = contextvars.ContextVar("replication", default=None)


@contextlib.contextmanager
def replicated(replicas: int):
    """Inside the block, `graph_parts` wraps the case's optimizer in `SyncReplicasOptimizer` for `replicas`
    workers (TF1 between-graph replication, synchronous), with a global step; the wrapper is yielded so the
    session can get its hook. A builder that made its own train op cannot be replicated: that is an error."""
    state = {"replicas": replicas, "optimizer": None}
    token = _REPLICATION.set(state)
    try:
        yield state
    finally:
        _REPLICATION.reset(token)


def graph_parts(inputs, output, loss, optimizer, variables) -> GraphParts:
    """Close a builder: `optimizer.minimize(loss)` over `variables`, in name order; or, when the TF1 code
    already made its train op (`train_op = tf1.train.AdamOptimizer(lr).minimize(loss)`), that op as it is.
    `variables` is `{name: variable}`, or a list named by the graph's own names (`hidden/kernel`)."""
    variables = _by_name(variables)
    replication = _REPLICATION.get()
    if replication is not None:
        if not callable(getattr(optimizer, "minimize", None)):
            raise ValueError("this graph's train op was made by its builder, so it cannot be replicated: pass "
                             "graph_parts the tf.compat.v1.train optimizer instead")
        n = replication["replicas"]
        sync = tf1.train.SyncReplicasOptimizer(optimizer, replicas_to_aggregate=n, total_num_replicas=n)
        replication["optimizer"] = sync
        train_op = sync.minimize(loss, global_step=tf1.train.get_or_create_global_step(),
                                 var_list=list(variables.values()))
        return GraphParts(inputs=inputs, output=output, loss=loss, train_op=train_op, variables=variables)
    if isinstance(optimizer, (tf.Operation, tf.Tensor)):
        train_op = optimizer
    elif callable(getattr(optimizer, "minimize", None)):
        train_op = optimizer.minimize(loss, var_list=list(variables.values()))
    else:
        raise TypeError(f"graph_parts needs a tf.compat.v1.train optimizer or the train op it made, not "
                        f"{type(optimizer).__name__}")
    return GraphParts(inputs=inputs, output=output, loss=loss, train_op=train_op, variables=variables)


def _by_name(variables) -> dict:
    """Variables given as a list are named as TF1 names them (`hidden/kernel`)."""
    if isinstance(variables, (list, tuple)):
        return {v.op.name: v for v in variables}
    return variables


def weight_loader(variables: dict):
    """An op that assigns every variable from a placeholder, and those placeholders by name.

    The harness and the exporter load the shared NumPy weights through it (a constant initialiser would
    copy large weights into the GraphDef).
    """
    feeds = {n: tf1.placeholder(v.dtype.base_dtype, v.shape) for n, v in variables.items()}
    return tf.group(*[variables[n].assign(p) for n, p in feeds.items()]), feeds
