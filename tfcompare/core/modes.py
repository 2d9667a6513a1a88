"""Execution modes: small frozen option objects, validated at construction, one per CLI name.

One table says everything about a mode: how the harness runs the step, and, for the TF2 modes, the
parent mode it builds on and the lever it adds over that parent (what the lever report measures).
"""

from __future__ import annotations

import dataclasses

__all__ = ["ExecutionOptions", "MODES", "CORE_MODES", "LEVER_MODES", "REFERENCE_MODE", "EAGER_MODE"]

_KINDS = ("tf1-graph", "eager", "function")


@dataclasses.dataclass(frozen=True)
class ExecutionOptions:
    """How the harness runs a case's step.

    Args:
        kind: `tf1-graph` (Session.run on a tf.Graph), `eager`, or `function` (`tf.function`).
        jit_compile: compile the function with XLA (`tf.function(jit_compile=True)`).
        concrete: call the step's concrete function directly, skipping `tf.function` dispatch.
        loop: run K steps per call in a `tf.range` loop inside one function.
        partial: compile only the hot path: forward, loss and gradients in `tf.function`, the optimizer update
            eager (partial conversion).
        description: one line for `tfcompare list`.
        parent: the TF2 mode this one adds a lever to (None for tf1-graph and tf2-eager).
        lever: what this mode adds over `parent` (for the lever report); empty for tf1-graph.
    """

    kind: str
    jit_compile: bool = False
    concrete: bool = False
    loop: bool = False
    partial: bool = False
    description: str = ""
    parent: str | None = None
    lever: str = ""

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"`kind={self.kind!r}` is not one of {', '.join(_KINDS)}")
        for flag in ("jit_compile", "concrete", "loop", "partial"):
            if getattr(self, flag) and self.kind != "function":
                raise ValueError(f"`{flag}=True` requires `kind='function'`, got `kind={self.kind!r}`")
        if self.concrete and self.loop:
            raise ValueError("`concrete=True` and `loop=True` cannot be combined")
        if self.concrete and self.jit_compile:
            raise ValueError("`concrete=True` and `jit_compile=True` cannot be combined")
        if self.partial and (self.jit_compile or self.concrete or self.loop):
            raise ValueError("`partial=True` cannot be combined with `jit_compile`, `concrete` or `loop`")
        if self.parent is not None and self.kind != "function":
            raise ValueError(f"`parent={self.parent!r}` requires `kind='function'`, got `kind={self.kind!r}`")

    @property
    def traced(self) -> bool:
        """The step runs as a traced `tf.function` (it has a graph, a trace count, AutoGraph code)."""
        return self.kind == "function"


REFERENCE_MODE = "tf1-graph"
EAGER_MODE = "tf2-eager"  # the dynamic graph every mode is also set against (`x eager`)

MODES: dict[str, ExecutionOptions] = {
    "tf1-graph": ExecutionOptions("tf1-graph", description="tf.compat.v1 Session.run on a tf.Graph"),
    "tf2-eager": ExecutionOptions("eager", description="TF2 eager: every op dispatched from Python",
                                  lever="TF2 as written: every op dispatched from Python"),
    "tf2-partial": ExecutionOptions("function", partial=True,
                                    description="forward, loss and gradients in tf.function; optimizer update eager",
                                    parent="tf2-eager", lever="hot path compiled, optimizer update eager"),
    "tf2-function": ExecutionOptions("function", description="tf.function with AutoGraph",
                                     parent="tf2-eager", lever="graph: Python dispatch per op removed"),
    "tf2-xla": ExecutionOptions("function", jit_compile=True, description="tf.function(jit_compile=True)",
                                parent="tf2-function", lever="fusion (XLA)"),
    "tf2-concrete": ExecutionOptions("function", concrete=True,
                                     description="the step's concrete function called directly",
                                     parent="tf2-function", lever="tf.function call dispatch removed"),
    "tf2-loop": ExecutionOptions("function", loop=True, description="K steps per call in one tf.function",
                                 parent="tf2-function", lever="steps per call"),
    "tf2-xla-loop": ExecutionOptions("function", jit_compile=True, loop=True,
                                     description="K steps per call, XLA-compiled",
                                     parent="tf2-loop", lever="fusion (XLA)"),
}
CORE_MODES = ("tf1-graph", "tf2-eager", "tf2-function", "tf2-xla")
LEVER_MODES = ("tf2-partial", "tf2-concrete", "tf2-loop", "tf2-xla-loop")
