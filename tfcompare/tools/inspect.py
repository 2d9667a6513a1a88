"""Inside the compiler: what Grappler and XLA did to a case's graph, and what it bought.

For each graph mode the graph as built is set beside the graph the runtime really ran (TF1: the
Session's partition graph; `tf.function`: the post-optimisation graph from run metadata), with node
counts by op type, the fused kernels that appeared and the ops they absorbed, and the constants
Grappler folded. For XLA, HLO instruction counts before and after optimisation and the fusions.
Grappler options can be switched off, and the step time with and without them is measured, interleaved.
"""

from __future__ import annotations

import contextlib
import dataclasses

import numpy as np
import tensorflow as tf

from tfcompare.core.cases import Case
from tfcompare.core.environment import session_config
from tfcompare.core.graphs import fused_kinds, fused_ops, hlo_counts, op_counts
from tfcompare.core.modes import MODES
from tfcompare.core.runners import make_runner
from tfcompare.core.timing import NOISY_HALF_WIDTH, Timer, interleave
from tfcompare.core.trace_log import QuietRetraceWarning
from tfcompare.report.format import counts, format_seconds, grid

__all__ = ["GRAPPLER_OPTIONS", "parse_grappler", "Variant", "GraphView", "HloView", "Inspection", "inspect_case"]

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


@dataclasses.dataclass(frozen=True)
class Variant:
    """A graph mode built with some Grappler options (none: every optimisation at its default)."""

    mode: str
    options: tuple[tuple[str, bool], ...] = ()

    @property
    def label(self) -> str:
        """`tf2-function`, or `tf2-function [remapping=False]`: how reports and TensorBoard name it."""
        if not self.options:
            return self.mode
        return f"{self.mode} [{', '.join(f'{k}={v}' for k, v in self.options)}]"

    @property
    def run_name(self) -> str:
        """A folder name for TensorBoard: `tf2-function_remapping-False`."""
        return "_".join([self.mode] + [f"{k}-{v}" for k, v in self.options])


@dataclasses.dataclass
class GraphView:
    variant: Variant
    nodes_before: int
    nodes_after: int
    ops_before: dict[str, int]
    ops_after: dict[str, int]
    fused: list[dict]  # each: {"node", "op", "absorbed": [...]}
    constants_folded: int
    graph_before: object = dataclasses.field(default=None, repr=False)  # GraphDefs, for TensorBoard only
    graph_after: object = dataclasses.field(default=None, repr=False)

    @property
    def mode(self) -> str:
        return self.variant.label

    def fused_summary(self) -> str:
        return counts(fused_kinds(self.fused))

    def to_json(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
               if not f.name.startswith("graph_") and f.name != "variant"}
        return {"mode": self.mode, "options": dict(self.variant.options), **out}


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
    step_s: dict[Variant, float]  # median seconds per step
    noisy: dict[Variant, bool]

    def step(self, mode: str, options: dict[str, bool] | None = None) -> float:
        """The median step of `mode` built with `options` (none: the defaults)."""
        return self.step_s[Variant(mode, tuple((options or {}).items()))]

    def to_json(self) -> dict:
        return {"case": self.case, "options": self.options, "graphs": [g.to_json() for g in self.graphs],
                "hlo": self.hlo.to_json() if self.hlo else None,
                "step_s": {v.label: s for v, s in self.step_s.items()},
                "noisy": {v.label: n for v, n in self.noisy.items()}}

    def text(self) -> str:
        """Graphs before and after optimisation, fused kernels, HLO counts, and step times per variant."""
        lines = [f"tfcompare inspect {self.case}", ""]
        head = ("graph", "nodes built", "nodes run", "fused kernels (ops absorbed)", "constants folded")
        body = [(g.mode, str(g.nodes_before), str(g.nodes_after), g.fused_summary(), str(g.constants_folded))
                for g in self.graphs]
        lines += grid(head, body)
        lines.append("nodes run: TF1 = the Session's partition graph; tf.function = the post-optimisation graph "
                     "(oneDNN builds show _MklNative* kernels in TF1)")
        if self.hlo:
            lines.append(f"XLA: {self.hlo.instructions_before} HLO instructions in ENTRY before optimisation, "
                         f"{self.hlo.instructions_after} after; {self.hlo.fusions} fusions")
        lines.append("")
        lines.append("step time (interleaved):")
        for variant, value in self.step_s.items():
            plain = self.step_s.get(Variant(variant.mode))
            ratio = f"  ({_against_default(variant, plain / value)})" if variant.options and plain and value else ""
            noisy = "  noisy" if self.noisy.get(variant) else ""
            lines.append(f"  {variant.label:45s} {format_seconds(value)}{ratio}{noisy}")
        if any(self.noisy.get(v) for v in self.step_s):
            lines.append(f"noisy = the median's 95% interval reaches beyond \u00b1{NOISY_HALF_WIDTH:.0%} of it (or too "
                         "few rounds for an interval): the time is less sure than it looks; more --repeats narrow it.")
        return "\n".join(lines)


# the switches rewriter_config.proto documents as on by default; the baseline row runs with them on
_DEFAULT_ON = ("layout_optimizer", "constant_folding", "shape_optimization", "remapping", "arithmetic_optimization",
               "dependency_optimization", "loop_optimization", "function_optimization")


def _setting(key: str, on: bool) -> str:
    """`remapping off`; a `disable_*` field as `disable_meta_optimizer=True`."""
    return f"{key}={on}" if key in _BOOL_FIELDS else f"{key} {'on' if on else 'off'}"


def _against_default(variant: Variant, speed: float) -> str:
    """`remapping off runs at 2.44x the speed of remapping on (the default): faster`: the variant's step speed
    against the same mode built with Grappler's defaults (the row without brackets)."""
    chosen = ", ".join(_setting(k, v) for k, v in variant.options)
    if all(k in _DEFAULT_ON or k in _BOOL_FIELDS for k, _ in variant.options):
        default = ", ".join(_setting(k, k in _DEFAULT_ON) for k, _ in variant.options) + " (the default)"
    else:
        default = f"{variant.mode} with Grappler's defaults"
    way = "faster" if speed > 1 else ("slower" if speed < 1 else "the same")
    return f"{chosen} runs at {speed:.2f}x the speed of {default}: {way}"


def _view(variant: Variant, before, after) -> GraphView:
    ops_before, ops_after = op_counts(before, library=False), op_counts(after, library=False)
    return GraphView(
        variant=variant, nodes_before=sum(ops_before.values()), nodes_after=sum(ops_after.values()),
        ops_before=dict(sorted(ops_before.items())), ops_after=dict(sorted(ops_after.items())),
        fused=fused_ops(after),
        constants_folded=sum("ConstantFolding" in n.name for n in after.node),
        graph_before=before, graph_after=after)


def inspect_case(case: Case, modes=_INSPECTED_MODES, options: dict[str, bool] | None = None, *, seed: int = 0,
                 threads: int = 2, repeats: int = 10, timer: Timer | None = None) -> Inspection:
    """Graphs before and after optimisation per mode; with `options`, step times with and without them."""
    with QuietRetraceWarning():
        return _inspect(case, modes, options or {}, seed, threads, repeats, timer)


def _inspect(case, modes, options, seed, threads, repeats, timer) -> Inspection:
    weights = case.init_weights(np.random.default_rng(seed))
    batch = case.make_batch(np.random.default_rng(seed + 1), case.default_batch_size)
    runners, views, hlo = {}, [], None
    option_sets = [{}] + ([options] if options else [])
    for opts in option_sets:
        for mode in modes:
            variant = Variant(mode, tuple(opts.items()))
            runner = make_runner(mode, MODES[mode], case, weights, _session_config(threads, threads, opts))
            with _grappler(opts):
                runner.build()
                runner.first_call(batch)
            runners[variant] = runner
            if opts:
                continue
            before = runner.graph_def(batch)
            after = runner.optimized_graph(batch)
            if after is not None:
                views.append(_view(variant, before, after))
            if MODES[mode].jit_compile:
                b, _ = hlo_counts(runner.hlo(batch, "hlo"))
                a, f = hlo_counts(runner.hlo(batch, "optimized_hlo"))
                hlo = HloView(b, a, f)
    if options:  # the effect of the options on the optimised graph, for the report
        for variant, runner in runners.items():
            if not variant.options:
                continue
            with _grappler(options):
                after = runner.optimized_graph(batch)
            if after is not None:
                views.append(_view(variant, runner.graph_def(batch), after))
    timer = timer or Timer(min_block_s=0.02)
    measured = interleave(timer, {k: r.timed(batch, 1) for k, r in runners.items()}, repeats)
    for r in runners.values():
        r.close()
    return Inspection(case=case.name, options=options, graphs=views, hlo=hlo,
                      step_s={k: m.median for k, m in measured.items()},
                      noisy={k: m.noisy for k, m in measured.items()})
