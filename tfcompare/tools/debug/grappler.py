"""Which Grappler pass makes a graph mode's numbers differ from eager's: the whole optimizer off, then each pass off.

TF2: `tf.config.optimizer.set_experimental_options` applies to functions instantiated afterwards, so each rerun
builds a fresh runner (a new `tf.function`); the options are put back exactly as they were. TF1: the Session's
own `RewriterConfig`, per rerun. Also: the graph after each pass in Grappler's order, for `--dump`.
"""

from __future__ import annotations

import contextlib
import time
from typing import Callable

import tensorflow as tf
from tensorflow.core.protobuf import config_pb2, meta_graph_pb2, rewriter_config_pb2
from tensorflow.python.eager import context  # to restore the optimizer options exactly (no public API)
from tensorflow.python.grappler import tf_optimizer  # Grappler on a given graph (no public API)

from tfcompare.tools.debug.report import PassSearch

__all__ = ["PASSES", "ORDER", "STAGE", "tf2_options", "tf1_config", "bisect", "per_pass_graphs"]

# the switchable passes, by their name in both APIs (tf.config.optimizer options and RewriterConfig fields)
PASSES = ("arithmetic_optimization", "constant_folding", "remapping", "layout_optimizer", "loop_optimization",
          "dependency_optimization", "shape_optimization", "function_optimization", "common_subgraph_elimination",
          "debug_stripper", "implementation_selector", "pin_to_host_optimization", "scoped_allocator_optimization")
# Grappler's default pipeline order, by the names `RewriterConfig.optimizers` takes (for the per-pass dumps)
ORDER = ("pruning", "function", "common_subgraph_elimination", "debug_stripper", "constfold", "shape", "arithmetic",
         "layout", "remap", "loop", "dependency", "memory")
# a switchable pass's stage in ORDER (the per-pass dump file its rewrite first shows in)
STAGE = {"function_optimization": "function", "common_subgraph_elimination": "common_subgraph_elimination",
         "debug_stripper": "debug_stripper", "constant_folding": "constfold", "shape_optimization": "shape",
         "arithmetic_optimization": "arithmetic", "layout_optimizer": "layout", "remapping": "remap",
         "loop_optimization": "loop", "dependency_optimization": "dependency"}


@contextlib.contextmanager
def tf2_options(options: dict):
    """Grappler options for the `tf.function`s instantiated inside the block; the previous ones restored after."""
    ctx = context.context()
    saved = dict(ctx.get_optimizer_experimental_options() or {})
    tf.config.optimizer.set_experimental_options(options)
    try:
        yield
    finally:
        ctx._optimizer_experimental_options = saved  # set_experimental_options can only add keys, not remove them
        ctx._thread_local_data.function_call_options = None  # rebuilt from the options at the next call


def tf1_config(base, options: dict):
    """A copy of the Session config `base` with the same options in its RewriterConfig."""
    config = config_pb2.ConfigProto()
    config.CopyFrom(base)
    rewrite = config.graph_options.rewrite_options
    for key, on in options.items():
        if key == "disable_meta_optimizer":
            rewrite.disable_meta_optimizer = bool(on)
        else:
            setattr(rewrite, key, rewriter_config_pb2.RewriterConfig.ON if on else rewriter_config_pb2.RewriterConfig.OFF)
    return config


def bisect(mode: str, against: str, compare: Callable[[dict], tuple[bool, str]]) -> PassSearch:
    """`compare(options)` reruns the mode under `options` and says (agrees with eager?, the error)."""
    t0 = time.perf_counter()
    agrees, before = compare({})
    search = PassSearch(mode, against, differs=not agrees, error_before=before)
    if agrees:
        return search
    ok, err = compare({"disable_meta_optimizer": True})
    search.all_off = {"agrees": ok, "error": err}
    if ok:
        for name in PASSES:
            ok, err = compare({name: False})
            search.passes.append({"pass": name, "agrees": ok, "error": err})
    search.seconds = time.perf_counter() - t0
    return search


def per_pass_graphs(graph, fetches: list, feeds: list) -> list[tuple[str, object]]:
    """(stage, GraphDef): the graph as built, then after each pass of Grappler's pipeline added in order."""
    graph_def = graph.as_graph_def()
    for node in graph_def.node:  # the remapper only fuses placed nodes
        node.device = node.device or "/job:localhost/replica:0/task:0/device:CPU:0"
    with graph.as_default():
        meta = tf.compat.v1.train.export_meta_graph(graph_def=graph_def, graph=graph)
    keep = meta_graph_pb2.CollectionDef()
    for t in list(feeds) + list(fetches):
        keep.node_list.value.append(t.name)
    meta.collection_def["train_op"].CopyFrom(keep)  # Grappler's fetch list: what must survive
    out = [("original", graph_def)]
    for i in range(len(ORDER)):
        config = config_pb2.ConfigProto()
        config.graph_options.rewrite_options.min_graph_nodes = -1
        config.graph_options.rewrite_options.optimizers.extend(ORDER[:i + 1])
        out.append((ORDER[i], tf_optimizer.OptimizeGraph(config, meta)))
    return out


def stage_files(files: list[str], culprit: str) -> tuple[str, str] | None:
    """The per-pass dump files before and after `culprit`'s stage, or None if the pass has no stage of its own."""
    stage = STAGE.get(culprit)
    if stage is None:
        return None
    after = next((i for i, f in enumerate(files) if f.endswith(f"-after-{stage}.pbtxt")), None)
    return (files[after - 1], files[after]) if after else None
