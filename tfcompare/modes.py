"""Execution modes: small frozen option objects, validated at construction, one per CLI name."""

from __future__ import annotations

import dataclasses

__all__ = ["ExecutionOptions", "MODES", "CORE_MODES", "LEVER_MODES", "REFERENCE_MODE", "get_mode"]

_KINDS = ("tf1-graph", "eager", "function")


@dataclasses.dataclass(frozen=True)
class ExecutionOptions:
    """How the harness runs a case's step.

    Args:
        kind: `tf1-graph` (Session.run on a tf.Graph), `eager`, or `function` (`tf.function`).
        jit_compile: compile the function with XLA (`tf.function(jit_compile=True)`).
        concrete: call the step's concrete function directly, skipping `tf.function` dispatch.
        loop: run K steps per call in a `tf.range` loop inside one function.
        lever: the TF2 lever this mode adds over plain `tf.function` (for the lever report).
    """

    kind: str
    jit_compile: bool = False
    concrete: bool = False
    loop: bool = False
    description: str = ""
    lever: str = ""

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"`kind={self.kind!r}` is not one of {', '.join(_KINDS)}")
        for flag in ("jit_compile", "concrete", "loop"):
            if getattr(self, flag) and self.kind != "function":
                raise ValueError(f"`{flag}=True` requires `kind='function'`, got `kind={self.kind!r}`")
        if self.concrete and self.loop:
            raise ValueError("`concrete=True` and `loop=True` cannot be combined")
        if self.concrete and self.jit_compile:
            raise ValueError("`concrete=True` and `jit_compile=True` cannot be combined")

    @property
    def traced(self) -> bool:
        return self.kind == "function"


REFERENCE_MODE = "tf1-graph"

MODES: dict[str, ExecutionOptions] = {
    "tf1-graph": ExecutionOptions("tf1-graph", description="tf.compat.v1 Session.run on a tf.Graph"),
    "tf2-eager": ExecutionOptions("eager", description="TF2 eager: every op dispatched from Python"),
    "tf2-function": ExecutionOptions("function", description="tf.function with AutoGraph"),
    "tf2-xla": ExecutionOptions("function", jit_compile=True, description="tf.function(jit_compile=True)",
                                lever="fusion (XLA)"),
    "tf2-concrete": ExecutionOptions("function", concrete=True,
                                     description="the step's concrete function called directly",
                                     lever="dispatch removed"),
    "tf2-loop": ExecutionOptions("function", loop=True, description="K steps per call in one tf.function",
                                 lever="steps per call"),
    "tf2-xla-loop": ExecutionOptions("function", jit_compile=True, loop=True,
                                     description="K steps per call, XLA-compiled",
                                     lever="steps per call + fusion (XLA)"),
}
CORE_MODES = ("tf1-graph", "tf2-eager", "tf2-function", "tf2-xla")
LEVER_MODES = ("tf2-concrete", "tf2-loop", "tf2-xla-loop")


def get_mode(name: str) -> ExecutionOptions:
    try:
        return MODES[name]
    except KeyError:
        raise ValueError(f"unknown mode {name!r}; choose from {', '.join(MODES)}") from None
