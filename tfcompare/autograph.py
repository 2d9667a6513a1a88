"""What AutoGraph did to a case: the converted source of its TF2 step, and the control-flow ops of the
`tf2-function` graph next to those of the `tf1-graph` graph (Python if/while -> cond/while_loop)."""

from __future__ import annotations

import collections
import dataclasses

import numpy as np
import tensorflow as tf

from tfcompare.cases import Case
from tfcompare.environment import session_config
from tfcompare.modes import MODES
from tfcompare.runners import make_runner

__all__ = ["CONTROL_FLOW_OPS", "AutographView", "op_counts", "control_flow_ops", "autograph_view"]

CONTROL_FLOW_OPS = ("While", "StatelessWhile", "If", "StatelessIf", "Case", "StatelessCase",
                    "Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond")


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


@dataclasses.dataclass
class AutographView:
    case: str
    code: str
    tf1_control_flow: dict[str, int]
    tf2_control_flow: dict[str, int]
    tf1_ops: int
    tf2_ops: int


def autograph_view(case: Case, seed: int = 0) -> AutographView:
    """Build both graphs for one batch and read their control flow; nothing is timed."""
    weights = case.init_weights(np.random.default_rng(seed))
    batch = case.make_batch(np.random.default_rng(seed + 1), case.default_batch_size)
    graphs = {}
    for mode in ("tf1-graph", "tf2-function"):
        runner = make_runner(mode, MODES[mode], case, weights, session_config(1, 1))
        runner.build()
        graphs[mode] = runner.graph_def(batch)
        if mode == "tf2-function":
            code = runner.autograph_code()
        runner.close()
    return AutographView(
        case=case.name, code=code,
        tf1_control_flow=control_flow_ops(graphs["tf1-graph"]),
        tf2_control_flow=control_flow_ops(graphs["tf2-function"]),
        tf1_ops=sum(op_counts(graphs["tf1-graph"]).values()),
        tf2_ops=sum(op_counts(graphs["tf2-function"]).values()))
