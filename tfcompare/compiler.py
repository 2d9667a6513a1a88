"""Inside the compiler: what Grappler and XLA did to a case's graph, and what it bought.

For each graph mode the graph as built is set beside the graph the runtime really ran (TF1: the
Session's partition graph; `tf.function`: the post-optimisation graph from run metadata), with node
counts by op type, the fused kernels that appeared and the ops they absorbed, and the constants
Grappler folded. For XLA, HLO instruction counts before and after optimisation and the fusions.
Grappler options can be switched off, and the step time with and without them is measured, interleaved.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import re

import numpy as np
import tensorflow as tf

from tfcompare.audit import QuietRetraceWarning
from tfcompare.autograph import op_counts
from tfcompare.cases import Case
from tfcompare.environment import session_config
from tfcompare.modes import MODES
from tfcompare.runners import make_runner
from tfcompare.timing import Timer, interleave

__all__ = ["GRAPPLER_OPTIONS", "parse_grappler", "GraphView", "HloView", "Inspection", "inspect_case",
           "hlo_counts"]

# tf.config.optimizer.set_experimental_options keys that are on/off switches, which RewriterConfig shares
GRAPPLER_OPTIONS = ("layout_optimizer", "constant_folding", "shape_optimization", "remapping",
                    "arithmetic_optimization", "dependency_optimization", "loop_optimization",
                    "function_optimization", "debug_stripper", "scoped_allocator_optimization",
                    "pin_to_host_optimization", "implementation_selector", "auto_mixed_precision",
                    "disable_meta_optimizer", "disable_model_pruning")
_BOOL_FIELDS = ("disable_meta_optimizer", "disable_model_pruning")
_INSPECTED_MODES = ("tf1-graph", "tf2-function", "tf2-xla")


def parse_grappler(items: dict[str, str]) -> dict[str, bool]:
    """`{"remapping": "off"}` -> `{"remapping": False}`; unknown keys and values raise ValueError."""
    out = {}
    for key, raw in items.items():
        if key not in GRAPPLER_OPTIONS:
            raise ValueError(f"unknown Grappler option {key!r}; choose from {', '.join(GRAPPLER_OPTIONS)}")
        value = str(raw).lower()
        if value not in ("on", "off", "true", "false"):
            raise ValueError(f"Grappler option {key}={raw!r}: the value must be on, off, true or false")
        out[key] = value in ("on", "true")
    return out


def _session_config(intra: int, inter: int, options: dict[str, bool]):
    from tensorflow.core.protobuf import rewriter_config_pb2

    config = session_config(intra, inter)
    rewrite = config.graph_options.rewrite_options
    for key, on in options.items():
        if key in _BOOL_FIELDS:
            setattr(rewrite, key, on)
        else:
            setattr(rewrite, key, rewriter_config_pb2.RewriterConfig.ON if on else rewriter_config_pb2.RewriterConfig.OFF)
    return config


@contextlib.contextmanager
def _grappler(options: dict[str, bool]):
    """Grappler options for tf.functions instantiated inside the block (their first call)."""
    before = tf.config.optimizer.get_experimental_options()
    tf.config.optimizer.set_experimental_options(options)
    try:
        yield
    finally:
        restore = {k: before.get(k, k not in _BOOL_FIELDS) for k in options}
        tf.config.optimizer.set_experimental_options({**restore, **before})


@dataclasses.dataclass
class GraphView:
    mode: str
    nodes_before: int
    nodes_after: int
    ops_before: dict[str, int]
    ops_after: dict[str, int]
    fused: list[dict]  # each: {"node", "op", "absorbed": [...]}
    constants_folded: int
    graph_before: object = dataclasses.field(default=None, repr=False)  # GraphDefs, for TensorBoard only
    graph_after: object = dataclasses.field(default=None, repr=False)

    def to_json(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if not f.name.startswith("graph_")}


@dataclasses.dataclass
class HloView:
    instructions_before: int
    instructions_after: int
    fusions: int

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class Inspection:
    case: str
    options: dict[str, bool]
    graphs: list[GraphView]
    hlo: HloView | None
    step_s: dict[str, float]  # "<mode>" and "<mode> [options]" -> median seconds per step
    noisy: dict[str, bool]

    def to_json(self) -> dict:
        return {"case": self.case, "options": self.options, "graphs": [g.to_json() for g in self.graphs],
                "hlo": self.hlo.to_json() if self.hlo else None, "step_s": self.step_s, "noisy": self.noisy}


def _fused(graph_def) -> list[dict]:
    out = []
    for node in graph_def.node:
        if "Fused" in node.op:
            absorbed = [s.decode() for s in node.attr["fused_ops"].list.s] if "fused_ops" in node.attr else []
            out.append({"node": node.name, "op": node.op, "absorbed": absorbed})
    return out


def _view(mode: str, before, after) -> GraphView:
    ops_before, ops_after = op_counts(before, library=False), op_counts(after, library=False)
    return GraphView(
        mode=mode, nodes_before=sum(ops_before.values()), nodes_after=sum(ops_after.values()),
        ops_before=dict(sorted(ops_before.items())), ops_after=dict(sorted(ops_after.items())),
        fused=_fused(after),
        constants_folded=sum("ConstantFolding" in n.name for n in after.node),
        graph_before=before, graph_after=after)


_INSTRUCTION = re.compile(r"^\s*(ROOT\s+)?%?[\w.\-]+\s*=\s*\S+")


def hlo_counts(text: str) -> tuple[int, int]:
    """(instructions of the ENTRY computation, fusion instructions anywhere in the module) in HLO text."""
    instructions = fusions = 0
    in_entry = False
    for line in text.splitlines():
        if line.startswith("ENTRY "):
            in_entry = True
        elif in_entry and line.startswith("}"):
            in_entry = False
        if _INSTRUCTION.match(line):
            instructions += in_entry
            fusions += bool(re.search(r"\bfusion\(", line))
    return instructions, fusions


def inspect_case(case: Case, modes=_INSPECTED_MODES, options: dict[str, bool] | None = None, *, seed: int = 0,
                 threads: int = 2, repeats: int = 10, timer: Timer | None = None) -> Inspection:
    """Graphs before and after optimisation per mode; with `options`, step times with and without them."""
    with QuietRetraceWarning():
        return _inspect(case, modes, options or {}, seed, threads, repeats, timer)


def _inspect(case, modes, options, seed, threads, repeats, timer) -> Inspection:
    weights = case.init_weights(np.random.default_rng(seed))
    batch = case.make_batch(np.random.default_rng(seed + 1), case.default_batch_size)
    runners, views, hlo = {}, [], None
    variants = [("", {})] + ([(f" [{', '.join(f'{k}={v}' for k, v in options.items())}]", options)] if options else [])
    for suffix, opts in variants:
        for mode in modes:
            runner = make_runner(mode, MODES[mode], case, weights, _session_config(threads, threads, opts))
            with _grappler(opts):
                runner.build()
                runner.first_call(batch)
            runners[mode + suffix] = runner
            if suffix:
                continue
            before = runner.graph_def(batch)
            after = runner.optimized_graph(batch)
            if after is not None:
                views.append(_view(mode, before, after))
            if MODES[mode].jit_compile:
                b, _ = hlo_counts(runner.hlo(batch, "hlo"))
                a, f = hlo_counts(runner.hlo(batch, "optimized_hlo"))
                hlo = HloView(b, a, f)
    if options:  # the effect of the options on the optimised graph, for the report
        for mode in modes:
            runner = runners[mode + variants[1][0]]
            with _grappler(options):
                after = runner.optimized_graph(batch)
            if after is not None:
                views.append(_view(mode + variants[1][0], runner.graph_def(batch), after))
    timer = timer or Timer(min_block_s=0.02)
    measured = interleave(timer, {k: r.timed(batch, 1) for k, r in runners.items()}, repeats)
    for r in runners.values():
        r.close()
    return Inspection(case=case.name, options=options, graphs=views, hlo=hlo,
                      step_s={k: m.median for k, m in measured.items()},
                      noisy={k: m.noisy for k, m in measured.items()})


def fused_summary(view: GraphView) -> str:
    kinds = collections.Counter(f"{f['op']}({'+'.join(f['absorbed'])})" if f["absorbed"] else f["op"]
                                for f in view.fused)
    return ", ".join(f"{k} x{v}" for k, v in kinds.items()) or "none"
