"""What AutoGraph did to a case: each function of its TF2 step as written, then AutoGraph's rewrite of it, so
the learner sees which Python became which call (`if` -> `ag__.if_stmt`, `while` -> `ag__.while_stmt`); then
the control-flow ops of the `tf2-function` graph next to those of the `tf1-graph` graph."""

from __future__ import annotations

import dataclasses

import numpy as np

from tfcompare.core.cases import Case
from tfcompare.core.environment import session_config
from tfcompare.core.graphs import control_flow_ops, op_counts
from tfcompare.core.modes import MODES
from tfcompare.core.runners import make_runner
from tfcompare.report.format import counts

__all__ = ["AutographView", "autograph_view"]


@dataclasses.dataclass
class AutographView:
    case: str
    code: str  # AutoGraph's rewrite of every function, as one text
    tf1_control_flow: dict[str, int]
    tf2_control_flow: dict[str, int]
    tf1_ops: int
    tf2_ops: int
    functions: list[dict] = dataclasses.field(default_factory=list)  # {"name", "source", "code"} per function

    def text(self) -> str:
        pairs = []
        for f in self.functions:
            pairs += [f"=== {f['name']}: the Python source, as written ===", f["source"], "",
                      f"=== {f['name']}: AutoGraph's generated code (tf.autograph.to_code) ===", f["code"], ""]
        return "\n".join(pairs + [
            f"control flow in tf1-graph ({self.tf1_ops} ops): {counts(self.tf1_control_flow)}",
            f"control flow in tf2-function ({self.tf2_ops} ops): {counts(self.tf2_control_flow)}"])


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
            functions = [{"name": n, "source": source, "code": code} for n, source, code in runner.autograph_functions()]
        runner.close()
    return AutographView(
        case=case.name, code="\n\n".join(f["code"] for f in functions), functions=functions,
        tf1_control_flow=control_flow_ops(graphs["tf1-graph"]),
        tf2_control_flow=control_flow_ops(graphs["tf2-function"]),
        tf1_ops=sum(op_counts(graphs["tf1-graph"]).values()),
        tf2_ops=sum(op_counts(graphs["tf2-function"]).values()))
